#include "kernels/reduce.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/reduce_typed.h"
#include "kernels/vec.cuh"

namespace opmark::kernels {

namespace {

// The partial states of split rows: the largest (Welford's count, mean and sum of squared deviations) fits in 16
// bytes.
constexpr std::size_t kPartialBytes = 16;

}  // namespace

core::ReducePlan plan_reduce(const std::string& op, core::DType type, const ReduceTensors& t, std::int64_t rows,
                             std::int64_t cols) {
  return plan_reduce_candidates(op, type, t, rows, cols).front();
}

std::vector<core::ReducePlan> plan_reduce_candidates(const std::string& op, core::DType type, const ReduceTensors& t,
                                                     std::int64_t rows, std::int64_t cols) {
  int device = 0, sms = 0, optin = 0;
  OPMARK_CHECK_CUDA(cudaGetDevice(&device));
  OPMARK_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  OPMARK_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::int64_t elem = static_cast<std::int64_t>(core::size_of(type));
  // The kernels find a row's first 16-byte boundary from x and take it for the residual and the output too (rows
  // read past an unaligned start, kernels/reduce/common.cuh's head_elements): the three must lie equally far from one.
  const auto offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; };
  for (const void* p : {t.residual, static_cast<const void*>(t.out)})
    if (p != nullptr && offset(p) != offset(t.x))
      throw Error("reduce: x, residual and out must lie equally far from a 16-byte boundary (x at +" +
                  std::to_string(offset(t.x)) + " bytes, another at +" + std::to_string(offset(p)) + ")");
  // Every tensor a row is read from or written to (add_*'s sum follows the normalised rows in `out`, at rows x cols
  // elements: aligned when cols is a multiple of the vector). Tensors off a 16-byte boundary (a slice of a larger
  // one) get element loads where the packed and tile paths would read whole vectors, not an error.
  const bool aligned = aligned16(t.x) && aligned16(t.residual) && aligned16(t.out);
  // Room for the kernels' own static shared memory beside the row, which they ask for as dynamic shared memory.
  return core::reduce_plans(core::reduce_op(op), rows, cols, elem, aligned, std::max(0, optin - 2048), sms);
}

std::size_t reduce_workspace_bytes(const core::ReducePlan& plan, std::int64_t rows) {
  switch (plan.path) {
    case core::ReducePath::all_partials: return static_cast<std::size_t>(plan.blocks) * sizeof(float);
    case core::ReducePath::split_rows:
    case core::ReducePath::two_pass: return static_cast<std::size_t>(rows * plan.splits) * kPartialBytes;
    default: return 0;
  }
}

void launch_reduce(ReduceOp op, core::DType type, const core::ReducePlan& plan, const ReduceTensors& t,
                   std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  switch (type) {
    case core::DType::f32: return launch_reduce_typed<float>(op, plan, t, rows, cols, stream);
    case core::DType::f16: return launch_reduce_typed<__half>(op, plan, t, rows, cols, stream);
    case core::DType::bf16: return launch_reduce_typed<__nv_bfloat16>(op, plan, t, rows, cols, stream);
    default: throw Error(std::string("reduce kernels run fp32, fp16 and bf16, not ") + core::name_of(type));
  }
}

std::vector<double> reduce_reference(ReduceOp op, const std::vector<double>& x, const std::vector<double>& residual,
                                     const std::vector<double>& gamma, const std::vector<double>& beta,
                                     std::int64_t rows, std::int64_t cols,
                                     const std::function<double(double)>& stored) {
  const std::size_t r_count = static_cast<std::size_t>(rows), c_count = static_cast<std::size_t>(cols);
  if (op == ReduceOp::sum_all) {
    long double total = 0;
    for (double v : x) total += v;
    return {static_cast<double>(total)};
  }
  const bool adds = op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm;
  const bool normalises = op != ReduceOp::sum && op != ReduceOp::mean && op != ReduceOp::max;
  const std::size_t n = r_count * c_count;
  std::vector<double> out(normalises ? (adds ? 2 * n : n) : r_count);
  std::vector<double> row(c_count);
  for (std::size_t r = 0; r < r_count; ++r) {
    for (std::size_t c = 0; c < c_count; ++c) {
      row[c] = x[r * c_count + c];
      if (adds) {
        row[c] += residual[r * c_count + c];
        if (stored) row[c] = stored(row[c]);
      }
    }
    double sum = 0, squares = 0, max = row[0];
    for (double v : row) {
      sum += v;
      squares += v * v;
      max = std::max(max, v);
    }
    const double mean = sum / static_cast<double>(cols);
    double* y = out.data() + r * c_count;
    switch (op) {
      case ReduceOp::sum: out[r] = sum; break;
      case ReduceOp::mean: out[r] = mean; break;
      case ReduceOp::max: out[r] = max; break;
      case ReduceOp::softmax:
      case ReduceOp::log_softmax: {
        double denom = 0;
        for (double v : row) denom += std::exp(v - max);
        for (std::size_t c = 0; c < c_count; ++c)
          y[c] = op == ReduceOp::softmax ? std::exp(row[c] - max) / denom : row[c] - max - std::log(denom);
        break;
      }
      case ReduceOp::layernorm:
      case ReduceOp::add_layernorm: {
        double var = 0;
        for (double v : row) var += (v - mean) * (v - mean);
        const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + kLayerNormEps);
        for (std::size_t c = 0; c < c_count; ++c) y[c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
        break;
      }
      case ReduceOp::rmsnorm:
      case ReduceOp::add_rmsnorm: {
        const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(cols) + kRmsNormEps);
        for (std::size_t c = 0; c < c_count; ++c) y[c] = row[c] * rstd * gamma[c];
        break;
      }
      case ReduceOp::sum_all: break;
    }
    if (adds) std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(n + r * c_count));
  }
  return out;
}

}  // namespace opmark::kernels
