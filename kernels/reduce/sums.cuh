#pragma once
// sum, mean, max and sum_all: streaming rows, split rows combined, and sum_all's fixed two passes.
#include "kernels/reduce/two_pass.cuh"

namespace opmark::kernels::reduce_detail {

// sum, mean, max: the factor a row's state is multiplied by (`scale` of the kernels below): 1, or for mean the
// reciprocal of the column count, computed once on the host (a division per row or per thread cost time). The
// product differs from the quotient by at most about an ulp.
inline float value_scale(bool mean, std::int64_t cols) { return mean ? 1.0f / static_cast<float>(cols) : 1.0f; }

// ---- sum, mean, max ----

// streaming: kGroup threads per row reduce as they read: whole 16-byte vectors (kVec: aligned rows), elements, or
// (kPieces) 16-byte vectors from each row's first 16-byte boundary on. The last pays some index arithmetic a row,
// which only long rows repay: core::kStreamingPiecesMinCols says where it starts.
template <class S, class T, int kGroup, bool kVec, bool kPieces>
__global__ void __launch_bounds__(kThreads) streaming_kernel(Rows<T> a, float scale) {
  constexpr int kPerBlock = kThreads / kGroup;
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  const std::int64_t slot = threadIdx.x / kGroup;
  for (std::int64_t base = std::int64_t(blockIdx.x) * kPerBlock; base < a.rows;
       base += std::int64_t(gridDim.x) * kPerBlock) {
    const std::int64_t r = base + slot;
    const bool live = r < a.rows;
    S s;
    if constexpr (kPieces)
      read_pieces<T, false>(a.x + (live ? r * a.cols : 0), nullptr, live ? a.cols : 0, lane, kGroup,
                            [&](std::int64_t, const auto& p) {
                              float v[std::decay_t<decltype(p)>::kCount];
                              widen(p, v);
                              s.add_chunk(v);
                            });
    else
      for_each_chunk<T, kVec>(a.x + (live ? r * a.cols : 0), live ? a.cols : 0, lane, kGroup,
                              [&](const auto& v) { s.add_chunk(v); });
    s = group_reduce<kGroup>(s);
    if (live && lane == 0) a.out[r] = from_float<T>(s.v * scale);
  }
}

// split_rows, second kernel: one thread per row combines its slices.
template <class S, class T>
__global__ void combine_slices_kernel(Rows<T> a, std::int64_t splits, const S* __restrict__ partials, float scale) {
  for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < a.rows;
       r += std::int64_t(gridDim.x) * blockDim.x)
    a.out[r] = from_float<T>(combine_slices(partials, r, splits).v * scale);
}

// sum_all: each block sums a grid-strided share into partials[block], then one block sums the partials (two fixed
// passes: the result does not depend on scheduling, as atomics would make it).

// kDirect: a grid of one block, which writes the sum itself (small tensors: one launch instead of two).
template <class T, bool kVec, bool kDirect>
__global__ void sum_all_partials_kernel(const T* __restrict__ x, float* __restrict__ partials, T* __restrict__ out,
                                        std::int64_t count) {
  Sum s;
  const std::int64_t thread = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for_each_chunk<T, kVec>(x, count, thread, std::int64_t(gridDim.x) * blockDim.x,
                          [&](const auto& v) { s.add_chunk(v); });
  if constexpr (kVec) {  // the elements after the last whole vector, one a thread
    const std::int64_t whole = count / Vec<T>::kCount * Vec<T>::kCount;
    if (thread < count - whole) s.add(to_float(x[whole + thread]));
  }
  s = block_reduce(s);
  if (threadIdx.x != 0) return;
  if constexpr (kDirect) out[0] = from_float<T>(s.v);
  else partials[blockIdx.x] = s.v;
}

template <class T>
__global__ void sum_all_final_kernel(const float* __restrict__ partials, unsigned count, T* __restrict__ out) {
  Sum s;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) s.add(partials[i]);
  s = block_reduce(s);
  if (threadIdx.x == 0) out[0] = from_float<T>(s.v);
}

template <class S, class T, bool kVec, bool kPieces>
void launch_streaming(const ReducePlan& plan, const Rows<T>& a, float scale, cudaStream_t stream) {
  const unsigned blocks = grid_for(a.rows, kThreads / plan.group);
  if (plan.group == 1) streaming_kernel<S, T, 1, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else if (plan.group == 8) streaming_kernel<S, T, 8, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else if (plan.group == 32) streaming_kernel<S, T, 32, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else streaming_kernel<S, T, kThreads, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
}

}  // namespace opmark::kernels::reduce_detail
