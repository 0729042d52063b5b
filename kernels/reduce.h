#pragma once
// opmark's reduction kernels (the reduce family) and their float64 host reference. Tensors are rows x cols,
// row-major; sum, mean and max reduce each row, sum_all reduces everything; softmax, log_softmax, layer norm (eps
// 1e-5, gamma and beta of length cols) and RMSNorm (eps 1e-6, a weight of length cols) normalise each row;
// add_layernorm and add_rmsnorm normalise x + residual and also write that sum (as inference engines fuse the
// residual add into the norm). fp32 math inside whatever the storage type. How a launch walks the tensor is
// core::reduce_plan's choice (core/reduce_path.h), made on the host from the shape.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/reduce_path.h"

namespace opmark::kernels {

// The ops and their names are core's (core/reduce_path.h), shared with the planner.
using core::ReduceOp;
using core::reduce_op;

constexpr double kLayerNormEps = 1e-5;
constexpr double kRmsNormEps = 1e-6;  // LLaMA's

// The device tensors of one launch. out: rows values (sum, mean, max), 1 (sum_all), rows x cols (softmax,
// log_softmax, the norms), or 2 rows x cols for add_*: the normalised rows, then the sum x + residual. residual:
// add_* only; gamma: the norms' weight; beta: layer norm's bias; workspace: reduce_workspace_bytes of the plan.
// Where add_layernorm's and add_rmsnorm's sum (x + residual) starts in `out`, in elements: after the normalised
// rows, rounded up to 16 elements, so that a row of the sum sits at the same offset from a 16-byte boundary as the
// same row of x (the kernels' vector loads and stores assume it; at rows x cols elements it did not when rows x cols
// was odd, a misaligned-address fault on the H100).
inline std::int64_t reduce_sum_offset(std::int64_t rows, std::int64_t cols) { return (rows * cols + 15) / 16 * 16; }

struct ReduceTensors {
  const void* x = nullptr;
  const void* residual = nullptr;
  const void* gamma = nullptr;
  const void* beta = nullptr;
  void* out = nullptr;
  void* workspace = nullptr;
};

// core::reduce_plan for these tensors on the current device (its shared memory per block and multiprocessors; 16-byte
// loads where every tensor a row touches starts each row on a 16-byte boundary, element loads for short rows of
// tensors off one). Throws where x, residual and out lie at different distances from a 16-byte boundary.
core::ReducePlan plan_reduce(const std::string& op, core::DType type, const ReduceTensors& t, std::int64_t rows,
                             std::int64_t cols);
// core::reduce_plans for the same: every plan the kernels can run for these tensors, plan_reduce's first (the tuner's
// candidates).
std::vector<core::ReducePlan> plan_reduce_candidates(const std::string& op, core::DType type, const ReduceTensors& t,
                                                     std::int64_t rows, std::int64_t cols);

// Scratch the plan needs (partial states of split rows, sum_all's partial sums), in bytes; 0 for most.
std::size_t reduce_workspace_bytes(const core::ReducePlan& plan, std::int64_t rows);

void launch_reduce(ReduceOp op, core::DType type, const core::ReducePlan& plan, const ReduceTensors& t,
                   std::int64_t rows, std::int64_t cols, cudaStream_t stream);

// The same op in float64 on the host, from the inputs widened to double: the verification reference (the layout of
// `out` above). residual: add_* only. stored: add_*'s x + residual as the kernels store it (rounded to the storage
// precision) before normalising it; the kernels normalise the stored sum, and where a row's values nearly agree
// (layer norm over 2 columns) the rounding moves the result past any tolerance. Empty: the exact sum.
std::vector<double> reduce_reference(ReduceOp op, const std::vector<double>& x, const std::vector<double>& residual,
                                     const std::vector<double>& gamma, const std::vector<double>& beta,
                                     std::int64_t rows, std::int64_t cols,
                                     const std::function<double(double)>& stored = {});
// The same reference on the GPU (kernels/reduce_reference.cu) from device arrays of doubles (residual, gamma and
// beta null where the op has none), with add_*'s sum stored as `stored_type`: what verification uses.
void reduce_reference_on_device(ReduceOp op, const double* x, const double* residual, const double* gamma,
                                const double* beta, std::int64_t rows, std::int64_t cols, core::DType stored_type,
                                double* out, cudaStream_t stream);

}  // namespace opmark::kernels
