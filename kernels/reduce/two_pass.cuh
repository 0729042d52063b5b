#pragma once
// Slices of rows: two_pass (the norms: partial statistics, then each slice normalised) and split_rows' first pass.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// ---- slices of rows (two_pass, split_rows): block b of rows x splits takes slice b % splits of row b / splits ----

struct Slice {
  std::int64_t row, begin, count;
};

__device__ __forceinline__ Slice slice_of(std::int64_t block, std::int64_t splits, std::int64_t cols) {
  // Slices of a multiple of 16 elements, so most slices start where the row's vectors do.
  const std::int64_t width = ((cols + splits - 1) / splits + 15) / 16 * 16;
  Slice s;
  s.row = block / splits;
  s.begin = std::min(cols, (block % splits) * width);
  s.count = std::min(cols - s.begin, width);
  return s;
}

// Pass 1: each block's partial state of its slice, in partials[block].
template <class S, class T, bool kAdd>
__global__ void __launch_bounds__(kThreads) slice_state_kernel(Rows<T> a, std::int64_t splits, S* __restrict__ partials) {
  for (std::int64_t b = blockIdx.x; b < a.rows * splits; b += gridDim.x) {
    const Slice sl = slice_of(b, splits, a.cols);
    const std::int64_t at = sl.row * a.cols + sl.begin;
    S s;
    read_pieces<T, kAdd>(a.x + at, a.residual + at, sl.count, threadIdx.x, kThreads, [&](std::int64_t, const auto& p) {
      float v[std::decay_t<decltype(p)>::kCount];
      widen(p, v);
      s.add_chunk(v);
    });
    s = block_reduce(s);
    if (threadIdx.x == 0) partials[b] = s;
  }
}

// The row's state from its slices' partials, combined in slice order (the same result however blocks ran).
template <class S>
__device__ __forceinline__ S combine_slices(const S* __restrict__ partials, std::int64_t row, std::int64_t splits) {
  S s = partials[row * splits];
  for (std::int64_t k = 1; k < splits; ++k) s = S::combine(s, partials[row * splits + k]);
  return s;
}

// Pass 2 of two_pass: each block reads its slice again and writes it normalised with the row's statistics.
template <ReduceOp Op, class T>
__global__ void __launch_bounds__(kThreads) slice_normalise_kernel(Rows<T> a, std::int64_t splits,
                                                                   const typename Norm<Op>::State* __restrict__ partials) {
  using M = Norm<Op>;
  // gamma and beta element by element for 2-byte add + layer norm, where 16-byte vectors of them were slower.
  constexpr bool kVectorParameters = !(M::kAdd && M::kBeta && sizeof(T) == 2);
  for (std::int64_t b = blockIdx.x; b < a.rows * splits; b += gridDim.x) {
    const Slice sl = slice_of(b, splits, a.cols);
    const float2 c = M::coef(combine_slices(partials, sl.row, splits), static_cast<float>(a.cols));
    const std::int64_t at = sl.row * a.cols + sl.begin;
    read_pieces<T, M::kAdd>(a.x + at, a.residual + at, sl.count, threadIdx.x, kThreads,
                            [&](std::int64_t e, const auto& p) {
                              using P = std::decay_t<decltype(p)>;
                              write_piece<Op, T, P::kCount, M::kAdd, kVectorParameters>(
                                  p, c, a.gamma + sl.begin + e, a.beta + sl.begin + e, a.out, a.sum, at + e);
                            });
  }
}

}  // namespace opmark::kernels::reduce_detail
