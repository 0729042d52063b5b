// An embedding lookup (the gather family): out[i, :] = table[idx[i], :] through opmark's kernel (kernels/gather.cu),
// seeded random int64 indices. Memory bound: judged by GB/s, no FLOPs; the result is a copy, verified exactly.
#include <cstdint>
#include <memory>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/gather.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

// SplitMix64: index i depends only on (seed, i), the same on every machine and standard library.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class GatherWorkload final : public Workload {
 public:
  GatherWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::gather_problem(c)), prec_(core::precision_info(c.precision)) {
    const std::size_t table = static_cast<std::size_t>(p_.table_rows * p_.cols);
    table_ = DeviceBuffer(prec_.input, table);
    out_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.rows * p_.cols));
    kernels::fill_random(table_.get(), table, prec_.input, ctx.seed, ctx.stream);
    indices_.resize(static_cast<std::size_t>(p_.rows));
    for (std::size_t i = 0; i < indices_.size(); ++i)
      indices_[i] = static_cast<std::int64_t>(mix(ctx.seed ^ mix(i)) % static_cast<std::uint64_t>(p_.table_rows));
    indices_dev_ = DeviceBuffer(indices_.size() * sizeof(std::int64_t));
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(indices_dev_.get(), indices_.data(), indices_dev_.bytes(),
                                      cudaMemcpyHostToDevice, ctx.stream));
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
  }

  void launch(cudaStream_t stream) override {
    kernels::launch_gather(table_.get(), indices_dev_.as<std::int64_t>(), out_.get(), p_.rows, p_.cols,
                           core::size_of(prec_.input), stream, paths_[static_cast<std::size_t>(chosen())]);
  }

  // The kernel's paths are the tuner's candidates, a warp a row (the default) first.
  int candidate_count() const override { return paths_.size() > 1 ? static_cast<int>(paths_.size()) : 0; }
  std::string candidate_name(int i) const override {
    return kernels::gather_path_name(paths_[static_cast<std::size_t>(i)]);
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t n = static_cast<std::size_t>(p_.rows * p_.cols);
    const auto table = download_as_double(table_, prec_.input, static_cast<std::size_t>(p_.table_rows * p_.cols),
                                          stream);
    const DeviceBuffer ref = upload(kernels::gather_reference(table, indices_, p_.cols), stream);
    kernels::poison(out_.get(), n, prec_.input, stream);
    launch(stream);
    // A copy: exact (tolerance 0).
    return kernels::compare_to_reference(out_.get(), prec_.input, ref.as<double>(), n, 0.0, stream);
  }

  std::string label() const override { return memory_bound_label("opmark kernel", prec_.input) + " | int64 indices"; }

 private:
  core::GatherProblem p_;
  const core::PrecisionInfo& prec_;
  std::vector<kernels::GatherPath> paths_ = kernels::gather_paths();
  std::vector<std::int64_t> indices_;
  DeviceBuffer table_, indices_dev_, out_;
};

}  // namespace

const WorkloadFactory make_gather_workload = construct_workload<GatherWorkload>;

}  // namespace opmark::bench
