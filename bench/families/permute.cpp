// A permuted copy (the permute family): x.permute(perm).contiguous() of a 4-D tensor through opmark's kernel
// (kernels/permute.cu), whose paths that can run the shape are the tuner's candidates (the heuristic's first, the
// default). Memory bound: judged by GB/s, no FLOPs; the result is a copy, verified exactly.
#include <memory>
#include <string>
#include <vector>

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
      : p_(core::permute_problem(c)),
        view_(core::permute_view(p_)),
        prec_(core::precision_info(c.precision)),
        paths_(core::permute_paths(view_, static_cast<std::int64_t>(core::size_of(prec_.input)))) {
    const std::size_t n = static_cast<std::size_t>(p_.elements());
    in_ = DeviceBuffer(prec_.input, n);
    out_ = DeviceBuffer(prec_.input, n);
    kernels::fill_random(in_.get(), n, prec_.input, ctx.seed, ctx.stream);
  }

  void launch(cudaStream_t stream) override {
    kernels::launch_permute(view_, path(), in_.get(), out_.get(), core::size_of(prec_.input), stream);
  }

  // One path is nothing to tune.
  int candidate_count() const override { return paths_.size() > 1 ? static_cast<int>(paths_.size()) : 0; }
  std::string candidate_name(int i) const override {
    return core::permute_path_name(paths_[static_cast<std::size_t>(i)], view_);
  }
  // Where the permutation moves nothing, PyTorch's copy_ is one cudaMemcpyAsync: the copy path.
  int reference_candidate() const override {
    for (int i = 0; i < candidate_count(); ++i)
      if (paths_[static_cast<std::size_t>(i)] == core::PermutePath::copy) return i;
    return -1;
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

  // A tuned case's label names its path first (the harness puts the chosen candidate there).
  std::string label() const override {
    const std::string base = memory_bound_label("opmark kernel", prec_.input);
    return candidate_count() > 0 ? base : base + " | " + core::permute_path_name(path(), view_);
  }

 private:
  core::PermutePath path() const { return paths_[static_cast<std::size_t>(chosen())]; }

  core::PermuteProblem p_;
  core::PermuteView view_;
  const core::PrecisionInfo& prec_;
  std::vector<core::PermutePath> paths_;
  DeviceBuffer in_, out_;
};

}  // namespace

const WorkloadFactory make_permute_workload = construct_workload<PermuteWorkload>;

}  // namespace opmark::bench
