// The reduce family's float64 reference on the GPU: the host reference's arithmetic (kernels/reduce.cu), one block
// a row, so that verifying a suite's largest rows takes milliseconds instead of seconds through the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/reduce.h"

namespace opmark::kernels {
namespace {

constexpr unsigned kThreads = 256;

// The sum over the block (max when `take_max`), the same on every thread.
template <bool take_max>
__device__ double block_combine(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      shared[threadIdx.x] = take_max ? fmax(shared[threadIdx.x], shared[threadIdx.x + s])
                                     : shared[threadIdx.x] + shared[threadIdx.x + s];
    __syncthreads();
  }
  const double out = shared[0];
  __syncthreads();
  return out;
}

// x + residual as the kernels store it before normalising (the storage type's rounding), as the host's `stored`.
__device__ double stored(double v, core::DType type) {
  switch (type) {
    case core::DType::f16: return double(__half2float(__float2half_rn(float(v))));
    case core::DType::bf16: return double(__bfloat162float(__float2bfloat16_rn(float(v))));
    default: return double(float(v));
  }
}

__global__ void sum_all_kernel(const double* x, std::int64_t n, double* out) {
  __shared__ double shared[kThreads];
  double sum = 0;
  for (std::int64_t i = threadIdx.x; i < n; i += kThreads) sum += x[i];
  sum = block_combine<false>(sum, shared);
  if (threadIdx.x == 0) out[0] = sum;
}

__global__ void row_kernel(ReduceOp op, const double* x, const double* residual, const double* gamma,
                           const double* beta, std::int64_t cols, core::DType type, std::int64_t n, double* out) {
  __shared__ double shared[kThreads];
  const std::int64_t r = blockIdx.x;
  const bool adds = op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm;
  const auto value = [&](std::int64_t c) {
    const double v = x[r * cols + c];
    return adds ? stored(v + residual[r * cols + c], type) : v;
  };
  double sum = 0, squares = 0, max = -INFINITY;
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const double v = value(c);
    sum += v;
    squares += v * v;
    max = fmax(max, v);
  }
  sum = block_combine<false>(sum, shared);
  squares = block_combine<false>(squares, shared);
  max = block_combine<true>(max, shared);
  const double mean = sum / double(cols);
  double* y = out + r * cols;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::mean:
    case ReduceOp::max:
      if (threadIdx.x == 0) out[r] = op == ReduceOp::sum ? sum : op == ReduceOp::mean ? mean : max;
      return;
    case ReduceOp::softmax:
    case ReduceOp::log_softmax: {
      double denom = 0;
      for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) denom += exp(value(c) - max);
      denom = block_combine<false>(denom, shared);
      for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
        y[c] = op == ReduceOp::softmax ? exp(value(c) - max) / denom : value(c) - max - log(denom);
      break;
    }
    case ReduceOp::layernorm:
    case ReduceOp::add_layernorm: {
      double var = 0;
      for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) var += (value(c) - mean) * (value(c) - mean);
      var = block_combine<false>(var, shared);
      const double rstd = 1.0 / sqrt(var / double(cols) + kLayerNormEps);
      for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) y[c] = (value(c) - mean) * rstd * gamma[c] + beta[c];
      break;
    }
    case ReduceOp::rmsnorm:
    case ReduceOp::add_rmsnorm: {
      const double rstd = 1.0 / sqrt(squares / double(cols) + kRmsNormEps);
      for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) y[c] = value(c) * rstd * gamma[c];
      break;
    }
    case ReduceOp::sum_all: break;
  }
  if (adds)
    for (std::int64_t c = threadIdx.x; c < cols; c += kThreads) out[n + r * cols + c] = value(c);
}

}  // namespace

void reduce_reference_on_device(ReduceOp op, const double* x, const double* residual, const double* gamma,
                                const double* beta, std::int64_t rows, std::int64_t cols, core::DType stored_type,
                                double* out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  if (op == ReduceOp::sum_all) {
    sum_all_kernel<<<1, kThreads, 0, stream>>>(x, rows * cols, out);
  } else {
    row_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(op, x, residual, gamma, beta, cols, stored_type,
                                                                     rows * cols, out);
  }
  OPMARK_CHECK_CUDA(cudaGetLastError());
}

}  // namespace opmark::kernels
