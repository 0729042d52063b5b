#pragma once
// What the float64 attention references (forward: reference_attention.cu, backward: reference_attention_bwd.cu)
// share: the block size, the head_dim bound, and a block-wide float64 sum or max.
#include <cuda_runtime.h>

namespace opmark::kernels::attention_ref {

constexpr int kThreads = 128;     // keys (or queries) per tile, and output columns per pass of a thread
constexpr int kMaxHeadDim = 256;  // the attention schema's bound
constexpr int kColumnParts = kMaxHeadDim / kThreads;

__device__ inline double block_reduce(double v, bool take_max, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int step = kThreads / 2; step > 0; step /= 2) {
    if (static_cast<int>(threadIdx.x) < step) {
      const double other = scratch[threadIdx.x + step];
      scratch[threadIdx.x] = take_max ? fmax(scratch[threadIdx.x], other) : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const double out = scratch[0];
  __syncthreads();
  return out;
}

}  // namespace opmark::kernels::attention_ref
