#pragma once
// The packed path: rows that divide a 16-byte vector, read and written as a pointwise op's.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// ---- packed: rows of kCols elements, kCols dividing a 16-byte vector's count ----

// Every 16-byte vector of the tensor holds kC / kCols whole rows, so the rows are read and written as a pointwise op
// reads its operands (16-byte vectors, kInFlight in flight a thread) and each thread reduces its vectors' rows in
// registers. The rows past the last whole vector (fewer than a vector's) go one to a thread of block 0.
template <class T, int kCols>
struct Packed {
  static constexpr int kC = Vec<T>::kCount, kRowsPerVector = kC / kCols;
  static_assert(kC % kCols == 0, "a packed row divides a 16-byte vector");
  std::int64_t vectors, tail_row;  // whole vectors, and the first row past them
  __device__ explicit Packed(std::int64_t rows) : vectors(rows * kCols / kC), tail_row(vectors * kRowsPerVector) {}
  // f(element index, 16-byte piece) for this thread's vectors, kInFlight at a time (loads in read_vectors).
  template <bool kAdd, class F>
  __device__ void each_vector(const Rows<T>& a, F&& f) const {
    read_vectors<T, kAdd>(a.x, a.residual, 0, vectors, std::int64_t(blockIdx.x) * kThreads + threadIdx.x,
                          std::int64_t(gridDim.x) * kThreads, f);
  }
  // The tail row this thread takes, or -1.
  __device__ std::int64_t tail(std::int64_t rows) const {
    const std::int64_t r = tail_row + threadIdx.x;
    return blockIdx.x == 0 && r < rows ? r : -1;
  }
};

// Row k of the rows packed in v, as its own array.
template <int kCols, int N>
__device__ __forceinline__ void row_of(const float (&v)[N], int k, float (&row)[kCols]) {
#pragma unroll
  for (int c = 0; c < kCols; ++c) row[c] = v[k * kCols + c];
}

// A row of kCols values at hand, normalised in place (exact_coef's two steps, as the other paths).
template <ReduceOp Op, int kCols>
__device__ __forceinline__ void normalise_row(float (&row)[kCols], const float (&g)[kCols], const float (&b)[kCols]) {
  const float2 c = exact_coef<Op, 1>([&](auto&& f) { f(row); }, static_cast<float>(kCols));
#pragma unroll
  for (int k = 0; k < kCols; ++k) row[k] = Norm<Op>::apply(row[k], c, g[k], b[k]);
}

template <ReduceOp Op, class T, int kCols>
__global__ void __launch_bounds__(kThreads) packed_normalise_kernel(Rows<T> a) {
  using M = Norm<Op>;
  using P = Packed<T, kCols>;
  float g[kCols], b[kCols];  // the whole of gamma and beta, once
#pragma unroll
  for (int k = 0; k < kCols; ++k) {
    g[k] = M::kGamma ? to_float(a.gamma[k]) : 1.0f;
    b[k] = M::kBeta ? to_float(a.beta[k]) : 0.0f;
  }
  const P packed(a.rows);
  packed.template each_vector<M::kAdd>(a, [&](std::int64_t e, const Piece<T, P::kC>& in) {
    float v[P::kC];
    widen(in, v);
#pragma unroll
    for (int k = 0; k < P::kRowsPerVector; ++k) {
      float row[kCols];
      row_of(v, k, row);
      normalise_row<Op>(row, g, b);
#pragma unroll
      for (int c = 0; c < kCols; ++c) v[k * kCols + c] = row[c];
    }
    store_global(a.out + e, narrow<T>(v));
    if constexpr (M::kAdd) store_global(a.sum + e, in);
  });
  const std::int64_t r = packed.tail(a.rows);
  if (r < 0) return;
  float row[kCols];
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    const Piece<T, 1> in = load_piece<T, 1, M::kAdd>(a.x, a.residual, r * kCols + c);
    row[c] = to_float(in.v[0]);
    if constexpr (M::kAdd) a.sum[r * kCols + c] = in.v[0];
  }
  normalise_row<Op>(row, g, b);
#pragma unroll
  for (int c = 0; c < kCols; ++c) a.out[r * kCols + c] = from_float<T>(row[c]);
}

// sum, mean, max: a vector's kRowsPerVector results are consecutive, and stored as one piece.
template <class S, class T, int kCols>
__global__ void __launch_bounds__(kThreads) packed_reduce_kernel(Rows<T> a, float scale) {
  using P = Packed<T, kCols>;
  const P packed(a.rows);
  packed.template each_vector<false>(a, [&](std::int64_t e, const Piece<T, P::kC>& in) {
    float v[P::kC], o[P::kRowsPerVector];
    widen(in, v);
#pragma unroll
    for (int k = 0; k < P::kRowsPerVector; ++k) {
      float row[kCols];
      row_of(v, k, row);
      S s;
      s.add_chunk(row);
      o[k] = s.v * scale;
    }
    store_global(a.out + e / kCols, narrow<T>(o));
  });
  const std::int64_t r = packed.tail(a.rows);
  if (r < 0) return;
  S s;
  for (int c = 0; c < kCols; ++c) s.add(to_float(a.x[r * kCols + c]));
  a.out[r] = from_float<T>(s.v * scale);
}

// kCols from the plan (1, 2, 4 or 8).
template <class T>
unsigned packed_blocks(const Rows<T>& a) {
  return grid_for(a.rows * a.cols / Vec<T>::kCount, std::int64_t{kThreads} * kInFlight);
}
// go(std::integral_constant<int, cols>) for the packed row lengths T's vector holds: 1, 2, 4 (and 8 for 2-byte T).
template <class T, class Go>
void with_packed_cols(std::int64_t cols, Go&& go) {
  if (cols == 1) return go(std::integral_constant<int, 1>{});
  if (cols == 2) return go(std::integral_constant<int, 2>{});
  if (cols == 4) return go(std::integral_constant<int, 4>{});
  if constexpr (Vec<T>::kCount % 8 == 0)
    if (cols == 8) return go(std::integral_constant<int, 8>{});
  throw Error("reduce: no packed kernel for rows of " + std::to_string(cols) + " columns");
}

}  // namespace opmark::kernels::reduce_detail
