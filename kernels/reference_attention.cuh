#pragma once
// What the float64 attention references (forward: reference_attention.cu, backward: reference_attention_bwd.cu)
// share: the block size, the head_dim bound, a block-wide float64 sum or max, and element offsets.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/reference_attention.h"

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

// Element offsets of row `token` of head `head` in batch `b`, for Q-shaped (Q, O, dO, dQ) and K-shaped tensors.
__device__ inline std::int64_t q_offset(const AttentionRefShape& s, std::int64_t b, std::int64_t head,
                                        std::int64_t token) {
  return b * s.q_stride[0] + head * s.q_stride[1] + token * s.q_stride[2];
}
__device__ inline std::int64_t kv_offset(const AttentionRefShape& s, std::int64_t b, std::int64_t head,
                                         std::int64_t token) {
  return b * s.kv_stride[0] + head * s.kv_stride[1] + token * s.kv_stride[2];
}

}  // namespace opmark::kernels::attention_ref
