#include "kernels/reduce.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "core/error.h"
#include "kernels/block_reduce.cuh"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"

namespace opmark::kernels {

ReduceOp reduce_op(const std::string& name) {
  static const std::pair<const char*, ReduceOp> names[] = {
      {"sum", ReduceOp::sum},         {"mean", ReduceOp::mean},       {"max", ReduceOp::max},
      {"sum_all", ReduceOp::sum_all}, {"softmax", ReduceOp::softmax}, {"layernorm", ReduceOp::layernorm}};
  for (const auto& [n, op] : names)
    if (name == n) return op;
  throw Error("unknown reduce op '" + name + "'");
}

namespace {

constexpr unsigned kSumAllBlocks = 1024;

std::size_t sum_all_workspace() { return kSumAllBlocks * sizeof(float); }

// The block's state over one row: each thread folds in a strided share, then the block combines them.
template <class S, class T>
__device__ S row_state(const T* row, std::int64_t cols) {
  S s;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) s.add(to_float(row[c]));
  return block_reduce(s);
}

// One block per row (grid-stride over rows): sum, mean or max of the row.
template <class T, class S, bool Mean>
__global__ void row_reduce_kernel(const T* __restrict__ x, T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const S s = row_state<S>(x + r * cols, cols);
    if (threadIdx.x == 0) out[r] = from_float<T>(Mean ? s.v / static_cast<float>(cols) : s.v);
  }
}

// Softmax over each row: one pass for the (max, sum of exp) state, one to write; the second read of a row comes
// from L2 for rows of up to megabytes.
template <class T>
__global__ void softmax_kernel(const T* __restrict__ x, T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * cols;
    const SoftmaxState s = row_state<SoftmaxState>(row, cols);
    const float inv = 1.0f / s.s;
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x)
      out[r * cols + c] = from_float<T>(__expf(to_float(row[c]) - s.m) * inv);
  }
}

// Layer norm over each row: Welford statistics, then (x - mean) / sqrt(var + eps) * gamma + beta.
template <class T>
__global__ void layernorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                                 T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = x + r * cols;
    const Welford s = row_state<Welford>(row, cols);
    const float rstd = rsqrtf(s.m2 / static_cast<float>(cols) + static_cast<float>(kLayerNormEps));
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x)
      out[r * cols + c] =
          from_float<T>((to_float(row[c]) - s.mean) * rstd * to_float(gamma[c]) + to_float(beta[c]));
  }
}

// Sum of everything: each block sums a grid-strided share into partials[block], then one block sums the partials
// (two fixed passes: the result does not depend on scheduling, as atomics would make it).
template <class T>
__global__ void sum_all_partials_kernel(const T* __restrict__ x, float* __restrict__ partials, std::int64_t count) {
  Sum s;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x)
    s.add(to_float(x[i]));
  s = block_reduce(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s.v;
}

template <class T>
__global__ void sum_all_final_kernel(const float* __restrict__ partials, unsigned count, T* __restrict__ out) {
  Sum s;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) s.add(partials[i]);
  s = block_reduce(s);
  if (threadIdx.x == 0) out[0] = from_float<T>(s.v);
}

unsigned row_blocks(std::int64_t rows) { return static_cast<unsigned>(std::min<std::int64_t>(rows, 132 * 64)); }

template <class T>
void launch_typed(ReduceOp op, const void* xv, const void* gv, const void* bv, void* ov, void* workspace,
                  std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const T* x = static_cast<const T*>(xv);
  T* out = static_cast<T*>(ov);
  switch (op) {
    case ReduceOp::sum:
      row_reduce_kernel<T, Sum, false><<<row_blocks(rows), kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::mean:
      row_reduce_kernel<T, Sum, true><<<row_blocks(rows), kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::max:
      row_reduce_kernel<T, Max, false><<<row_blocks(rows), kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::softmax: softmax_kernel<T><<<row_blocks(rows), kThreads, 0, stream>>>(x, out, rows, cols); break;
    case ReduceOp::layernorm:
      layernorm_kernel<T><<<row_blocks(rows), kThreads, 0, stream>>>(x, static_cast<const T*>(gv),
                                                                     static_cast<const T*>(bv), out, rows, cols);
      break;
    case ReduceOp::sum_all: {
      auto* partials = static_cast<float*>(workspace);
      sum_all_partials_kernel<T><<<kSumAllBlocks, kThreads, 0, stream>>>(x, partials, rows * cols);
      OPMARK_CHECK_LAUNCH();
      sum_all_final_kernel<T><<<1, kThreads, 0, stream>>>(partials, kSumAllBlocks, out);
      break;
    }
  }
  OPMARK_CHECK_LAUNCH();
}

}  // namespace

std::size_t reduce_workspace_bytes(ReduceOp op) { return op == ReduceOp::sum_all ? sum_all_workspace() : 0; }

void launch_reduce(ReduceOp op, core::DType type, const void* x, const void* gamma, const void* beta, void* out,
                   void* workspace, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  switch (type) {
    case core::DType::f32: return launch_typed<float>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    case core::DType::f16: return launch_typed<__half>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    case core::DType::bf16:
      return launch_typed<__nv_bfloat16>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    default: throw Error(std::string("reduce kernels run fp32, fp16 and bf16, not ") + core::name_of(type));
  }
}

std::vector<double> reduce_reference(ReduceOp op, const std::vector<double>& x, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, std::int64_t rows, std::int64_t cols) {
  const std::size_t r_count = static_cast<std::size_t>(rows), c_count = static_cast<std::size_t>(cols);
  if (op == ReduceOp::sum_all) {
    long double total = 0;
    for (double v : x) total += v;
    return {static_cast<double>(total)};
  }
  std::vector<double> out(op == ReduceOp::softmax || op == ReduceOp::layernorm ? r_count * c_count : r_count);
  for (std::size_t r = 0; r < r_count; ++r) {
    const double* row = x.data() + r * c_count;
    double sum = 0, max = row[0];
    for (std::size_t c = 0; c < c_count; ++c) {
      sum += row[c];
      max = std::max(max, row[c]);
    }
    const double mean = sum / static_cast<double>(cols);
    switch (op) {
      case ReduceOp::sum: out[r] = sum; break;
      case ReduceOp::mean: out[r] = mean; break;
      case ReduceOp::max: out[r] = max; break;
      case ReduceOp::softmax: {
        double denom = 0;
        for (std::size_t c = 0; c < c_count; ++c) denom += std::exp(row[c] - max);
        for (std::size_t c = 0; c < c_count; ++c) out[r * c_count + c] = std::exp(row[c] - max) / denom;
        break;
      }
      case ReduceOp::layernorm: {
        double var = 0;
        for (std::size_t c = 0; c < c_count; ++c) var += (row[c] - mean) * (row[c] - mean);
        const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + kLayerNormEps);
        for (std::size_t c = 0; c < c_count; ++c)
          out[r * c_count + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
        break;
      }
      case ReduceOp::sum_all: break;
    }
  }
  return out;
}

}  // namespace opmark::kernels
