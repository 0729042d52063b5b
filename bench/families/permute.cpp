// A permuted copy (the permute family): x.permute(perm).contiguous() of a 4-D tensor through opmark's kernel
// (kernels/permute.cu). Memory bound: judged by GB/s, no FLOPs; the result is a copy, verified exactly.
#include <memory>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/permute.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

class PermuteWorkload final : public Workload {
 public:
  PermuteWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::permute_problem(c)), view_(core::permute_view(p_)), prec_(core::precision_info(c.precision)) {
    const std::size_t n = static_cast<std::size_t>(p_.elements());
    in_ = DeviceBuffer(prec_.input, n);
    out_ = DeviceBuffer(prec_.input, n);
    kernels::fill_random(in_.get(), n, prec_.input, ctx.seed, ctx.stream);
  }

  void launch(cudaStream_t stream) override {
    kernels::launch_permute(view_, in_.get(), out_.get(), core::size_of(prec_.input), stream);
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t n = static_cast<std::size_t>(p_.elements());
    const auto in = download_as_double(in_, prec_.input, n, stream);
    const DeviceBuffer ref = upload(kernels::permute_reference(view_, in), stream);
    kernels::poison(out_.get(), n, prec_.input, stream);
    launch(stream);
    // A copy: exact (tolerance 0).
    return kernels::compare_to_reference(out_.get(), prec_.input, ref.as<double>(), n, 0.0, stream);
  }

  std::string label() const override {
    return memory_bound_label("opmark kernel", prec_.input) + " | " + core::permute_path(view_);
  }

 private:
  core::PermuteProblem p_;
  core::PermuteView view_;
  const core::PrecisionInfo& prec_;
  DeviceBuffer in_, out_;
};

}  // namespace

std::unique_ptr<Workload> make_permute_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<PermuteWorkload>(c, ctx);
}

}  // namespace opmark::bench
