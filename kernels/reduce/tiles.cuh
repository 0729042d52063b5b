#pragma once
// The tile path: runs of whole short rows staged in shared memory as one span.
#include "kernels/reduce/shared_memory.cuh"

namespace opmark::kernels::reduce_detail {

// tile: block b takes tiles b, b + gridDim.x, ... of tile_rows whole rows each. The tile is one contiguous span, so
// it is copied in and out with 16-byte accesses whatever the row length; groups of kGroup threads reduce its rows
// in shared memory. Normalising ops write each row back in place, then the block writes the span; sum, mean and
// max write one value per row.
struct Tile {
  std::int64_t row0, rows, start, count;
};

template <class T>
__device__ __forceinline__ Tile tile_at(const Rows<T>& a, std::int64_t t, std::int64_t tile_rows) {
  Tile tile;
  tile.row0 = t * tile_rows;
  tile.rows = std::min(tile_rows, a.rows - tile.row0);
  tile.start = tile.row0 * a.cols;
  tile.count = tile.rows * a.cols;
  return tile;
}

// Block b walks tiles b, b + gridDim.x, ...: each is copied into shared memory, row(tile, row, r, cols, lane) runs
// for every row r of it (row tile.row0 + r of the tensor) in its group of kGroup threads (cols 0 for a thread without
// a row: every lane still calls, the shuffles need it), then done(tile, rows) once every row is, before the next tile
// overwrites the shared memory.
template <class T, int kGroup, bool kAdd, class RowFn, class DoneFn>
__device__ __forceinline__ void walk_tiles(const Rows<T>& a, std::int64_t tile_rows, RowFn&& row, DoneFn&& done) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* saved = reinterpret_cast<T*>(shared_bytes);
  constexpr int kPerPass = kThreads / kGroup;
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  const std::int64_t slot = threadIdx.x / kGroup;
  const std::int64_t tiles = (a.rows + tile_rows - 1) / tile_rows;
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const Tile tile = tile_at(a, t, tile_rows);
    T* rows = saved + load_span<T, kAdd>(a, saved, tile.start, tile.count);
    for (std::int64_t base = 0; base < tile.rows; base += kPerPass) {  // uniform: every lane reaches the shuffles
      const std::int64_t r = base + slot;
      const std::int64_t cols = r < tile.rows ? a.cols : 0;
      row(tile, rows + (cols ? r * a.cols : 0), r, cols, lane);
    }
    __syncthreads();
    done(tile, rows);
    __syncthreads();  // the next tile overwrites this one
  }
}

// A thread's own row of a tile (at most kMax columns) normalised in place: read once from shared memory into
// registers padded as the register path pads them (pad_value), its passes unrolled over kMax (walked element by
// element, the length known only at run time, it took 1.7 times the instructions). gamma and beta come from L1
// as the row is written: kept in registers for all rows, they cost layer norm a block a multiprocessor.
template <ReduceOp Op, class T, int kMax>
__device__ __forceinline__ void normalise_own_row(T* row, int cols, const T* __restrict__ gamma,
                                                  const T* __restrict__ beta) {
  using M = Norm<Op>;
  float v[kMax];
#pragma unroll
  for (int k = 0; k < kMax; ++k) v[k] = k < cols ? to_float(row[k]) : pad_value<Op>();
  const float2 c = padded_coef<Op, 1>(v, cols, static_cast<float>(cols));
#pragma unroll
  for (int k = 0; k < kMax; ++k)
    if (k < cols)
      row[k] = from_float<T>(
          M::apply(v[k], c, M::kGamma ? to_float(gamma[k]) : 1.0f, M::kBeta ? to_float(beta[k]) : 0.0f));
}

// The tile's span written back in 16-byte pieces, once its rows are normalised in place.
template <class T>
__device__ __forceinline__ void write_tile(const Rows<T>& a, const Tile& tile, const T* rows) {
  each_piece(a.out + tile.start, tile.count, threadIdx.x, kThreads, [&](std::int64_t e, auto n) {
    using P = Piece<T, decltype(n)::value>;
    store_global(a.out + tile.start + e, load_whole<P>(rows + e));
  });
}

// Tiles whose rows are shared by kGroup threads, element by element.
template <ReduceOp Op, class T, int kGroup>
__global__ void __launch_bounds__(kThreads) tile_normalise_kernel(Rows<T> a, std::int64_t tile_rows) {
  using M = Norm<Op>;
  walk_tiles<T, kGroup, M::kAdd>(
      a, tile_rows,
      [&](const Tile&, T* row, std::int64_t, std::int64_t cols, int lane) {  // normalised in place
        const float2 c = shared_row_coef<Op, kGroup>(row, cols, lane);
        for (std::int64_t col = lane; col < cols; col += kGroup)
          write_piece<Op, T, 1, false>(load_whole<Piece<T, 1>>(row + col), c, a.gamma + col, a.beta + col, row,
                                       nullptr, col);
      },
      [&](const Tile& tile, const T* rows) { write_tile(a, tile, rows); });
}

// Tiles whose rows are a thread's own (normalise_own_row). The compiler's own register count: asking for 3 or 4
// blocks a multiprocessor (__launch_bounds__) cost spills or fewer rows in flight.
template <ReduceOp Op, class T, int kMax>
__global__ void __launch_bounds__(kThreads) tile_own_rows_kernel(Rows<T> a, std::int64_t tile_rows) {
  walk_tiles<T, 1, Norm<Op>::kAdd>(
      a, tile_rows,
      [&](const Tile&, T* row, std::int64_t, std::int64_t cols, int) {
        if (cols) normalise_own_row<Op, T, kMax>(row, static_cast<int>(cols), a.gamma, a.beta);
      },
      [&](const Tile& tile, const T* rows) { write_tile(a, tile, rows); });
}

template <class S, class T, int kGroup>
__global__ void __launch_bounds__(kThreads) tile_reduce_kernel(Rows<T> a, std::int64_t tile_rows, float scale) {
  walk_tiles<T, kGroup, false>(
      a, tile_rows,
      [&](const Tile& tile, const T* row, std::int64_t r, std::int64_t cols, int lane) {
        S s;
        for (std::int64_t col = lane; col < cols; col += kGroup) s.add(to_float(row[col]));
        s = group_reduce<kGroup>(s);
        if (cols && lane == 0) a.out[tile.row0 + r] = from_float<T>(s.v * scale);
      },
      [](const Tile&, const T*) {});
}

// The tile path's launch: the tile plus a vector's room for the alignment shift (at most 16 KiB: no opt-in).
template <class T>
std::size_t tile_bytes(const ReducePlan& plan, const Rows<T>& a) {
  return static_cast<std::size_t>(plan.tile_rows * a.cols + Vec<T>::kCount) * sizeof(T);
}
template <class T>
unsigned tile_blocks(const ReducePlan& plan, const Rows<T>& a) {
  return grid_for((a.rows + plan.tile_rows - 1) / plan.tile_rows, 1);
}

}  // namespace opmark::kernels::reduce_detail
