#pragma once
// Staged tiles (the tile path for rows of tens to hundreds of elements), and the tile path's launchers.
#include "kernels/reduce/tiles.cuh"

namespace opmark::kernels::reduce_detail {

// ---- staged tiles: rows of tens to hundreds of elements that are not whole 16-byte vectors ----

// Read in place by their groups (the registers path), such rows load one element a lane a time: a warp over 31
// 2-byte columns has 256 bytes in flight, too few to cover memory's latency. Staged, a block copies a tile of whole
// rows (one contiguous span) into shared memory as asynchronous 16-byte copies (cp.async), the next tile's copies in
// flight while it works on this one (two buffers); groups of kGroup lanes take each row into registers (kCache
// elements a lane, padded as the registers path pads them), normalise it in place, and the block writes the span
// back in 16-byte pieces.

// A tile in flight: its edges (x's, and with kAdd the residual's) and its shift in its buffer.
template <class T>
struct StagedTile {
  SpanEdges<T> x, residual;
  std::int64_t shift = 0;
};

// Elements of one buffer region: a tile plus a vector's room for the shift, in whole 16-byte vectors.
template <class T>
__host__ __device__ constexpr std::int64_t staged_region(std::int64_t tile_rows, std::int64_t cols) {
  return (tile_rows * cols + 2 * Vec<T>::kCount - 1) / Vec<T>::kCount * Vec<T>::kCount;
}

// Block b walks tiles b, b + gridDim.x, ..., each staged while the block works on the one before: the copies of
// the next tile are issued, this one's waited for, then row(tile, xs, sums, r) runs for every row r of the tile in
// its group of kGroup threads (r >= tile.rows for a thread without a row: every lane still calls, the shuffles need
// it). xs is the tile's x in shared memory; with kAdd, sums is the residual's tile beside it. kWriteBack: the rows
// were normalised in place, and the block writes the span (with kAdd, sums as add_*'s second output too).
template <class T, int kGroup, bool kAdd, bool kWriteBack, class RowFn>
__device__ __forceinline__ void walk_staged_tiles(const Rows<T>& a, std::int64_t tile_rows, RowFn&& row) {
  constexpr int kRegions = kAdd ? 2 : 1;
  constexpr int kPerPass = kThreads / kGroup;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const shared = reinterpret_cast<T*>(shared_bytes);
  const std::int64_t region = staged_region<T>(tile_rows, a.cols);
  const int slot = static_cast<int>(threadIdx.x / kGroup);
  const std::int64_t tiles = (a.rows + tile_rows - 1) / tile_rows;
  const auto issue = [&](std::int64_t t, T* buffer) {
    const Tile tile = tile_at(a, t, tile_rows);
    StagedTile<T> staged;
    staged.shift = shared_shift(a.x + tile.start, tile.count);
    staged.x = issue_span(a.x + tile.start, buffer + staged.shift, tile.count);
    if constexpr (kAdd) staged.residual = issue_span(a.residual + tile.start, buffer + region + staged.shift, tile.count);
    __pipeline_commit();
    return staged;
  };
  std::int64_t t = blockIdx.x;
  if (t >= tiles) return;
  StagedTile<T> current = issue(t, shared);
  for (int k = 0; t < tiles; t += gridDim.x, k ^= 1) {
    T* const buffer = shared + k * kRegions * region;
    const std::int64_t next = t + gridDim.x;
    StagedTile<T> following;
    if (next < tiles) {
      following = issue(next, shared + (k ^ 1) * kRegions * region);  // its buffer's last tile is done with
      __pipeline_wait_prior(1);
    } else {
      __pipeline_wait_prior(0);
    }
    T* const xs = buffer + current.shift;
    T* const sums = buffer + region + current.shift;
    current.x.store(xs);
    if constexpr (kAdd) current.residual.store(sums);
    __syncthreads();
    const Tile tile = tile_at(a, t, tile_rows);
    for (std::int64_t base = 0; base < tile.rows; base += kPerPass) row(tile, xs, sums, base + slot);
    if constexpr (kWriteBack) {
      __syncthreads();
      write_tile(a, tile, xs);
      if constexpr (kAdd)
        each_piece(a.sum + tile.start, tile.count, threadIdx.x, kThreads, [&](std::int64_t e, auto n) {
          using P = Piece<T, decltype(n)::value>;
          store_global(a.sum + tile.start + e, load_whole<P>(sums + e));
        });
    }
    __syncthreads();  // the next tile's copies go into this buffer
    current = following;
  }
}

// Staged tiles' rows normalised in registers: every row of a tile by a group of kGroup lanes, lane l holding columns
// l, l + kGroup, ... (at most kCache). gamma and beta are a lane's same columns in every row: loaded once. With kAdd
// each lane adds the residual's elements (rounded to T, as load_piece does) and leaves the sum in the residual's
// tile for walk_staged_tiles to write.
//
// Add + layer norm with 8 lanes a row is held to 3 blocks a multiprocessor (80 registers, no spills; left alone
// ptxas took 88, 2 blocks). The other kernels give 0 (no minimum: see cluster_min_blocks for why not 1).
template <ReduceOp Op, int kGroup>
constexpr int tile_registers_min_blocks() {
  return Op == ReduceOp::add_layernorm && kGroup == 8 ? 3 : 0;
}
template <ReduceOp Op, class T, int kGroup, int kCache>
__global__ void __launch_bounds__(kThreads, (tile_registers_min_blocks<Op, kGroup>())) tile_registers_kernel(
    Rows<T> a, std::int64_t tile_rows) {
  using M = Norm<Op>;
  const int cols = static_cast<int>(a.cols);
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  const int lane_units = lane < cols ? std::min(kCache, (cols - lane + kGroup - 1) / kGroup) : 0;
  float g[kCache], b[kCache];
#pragma unroll
  for (int u = 0; u < kCache; ++u) {
    g[u] = M::kGamma && u < lane_units ? to_float(a.gamma[lane + u * kGroup]) : 1.0f;
    b[u] = M::kBeta && u < lane_units ? to_float(a.beta[lane + u * kGroup]) : 0.0f;
  }
  walk_staged_tiles<T, kGroup, M::kAdd, true>(a, tile_rows, [&](const Tile& tile, T* xs, T* sums, std::int64_t r) {
    const int units = r < tile.rows ? lane_units : 0;
    const std::int64_t at = (r < tile.rows ? r * cols : 0) + lane;
    float v[kCache];
#pragma unroll
    for (int u = 0; u < kCache; ++u) {
      v[u] = pad_value<Op>();
      if (u < units) {
        float x = to_float(xs[at + u * kGroup]);
        if constexpr (M::kAdd) {
          const T sum = from_float<T>(x + to_float(sums[at + u * kGroup]));
          sums[at + u * kGroup] = sum;
          x = to_float(sum);
        }
        v[u] = x;
      }
    }
    const float2 c = padded_coef<Op, kGroup>(v, units, static_cast<float>(cols));
#pragma unroll
    for (int u = 0; u < kCache; ++u)
      if (u < units) xs[at + u * kGroup] = from_float<T>(M::apply(v[u], c, g[u], b[u]));
  });
}

// Staged tiles' rows summed (sum, mean, max) by groups of kGroup lanes, one value a row written.
template <class S, class T, int kGroup>
__global__ void __launch_bounds__(kThreads) tile_staged_reduce_kernel(Rows<T> a, std::int64_t tile_rows, float scale) {
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  walk_staged_tiles<T, kGroup, false, false>(a, tile_rows, [&](const Tile& tile, const T* xs, T*, std::int64_t r) {
    S s;
    if (r < tile.rows)
      for (std::int64_t col = lane; col < a.cols; col += kGroup) s.add(to_float(xs[r * a.cols + col]));
    s = group_reduce<kGroup>(s);
    if (r < tile.rows && lane == 0) a.out[tile.row0 + r] = from_float<T>(s.v * scale);
  });
}

// Staged tiles' shared memory: `regions` (x, and the residual's for the residual ops) of tile_rows rows for each
// buffer, two buffers where blocks walk more than one tile (the next one's copies in flight), else one (a grid of a
// block a tile), which leaves room for more blocks a multiprocessor.
template <class T>
std::size_t staged_bytes(const ReducePlan& plan, const Rows<T>& a, int regions) {
  const std::int64_t tiles = (a.rows + plan.tile_rows - 1) / plan.tile_rows;
  const int buffers = tile_blocks(plan, a) < tiles ? 2 : 1;
  return static_cast<std::size_t>(buffers * regions * staged_region<T>(plan.tile_rows, a.cols)) * sizeof(T);
}

// Staged tiles: tile_rows rows (with kAdd, x's and the residual's each) a buffer.
template <ReduceOp Op, class T>
void launch_tile_registers(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  constexpr int kRegions = Norm<Op>::kAdd ? 2 : 1;
  const std::size_t bytes = staged_bytes<T>(plan, a, kRegions);
  const auto go = [&](auto kernel) {
    allow_shared_bytes(reinterpret_cast<const void*>(kernel), bytes);
    kernel<<<tile_blocks(plan, a), kThreads, bytes, stream>>>(a, plan.tile_rows);
  };
  if (plan.group == 8) go(tile_registers_kernel<Op, T, 8, 4>);
  else if (plan.group == 16 && plan.cache <= 4) go(tile_registers_kernel<Op, T, 16, 4>);
  else if (plan.group == 16) go(tile_registers_kernel<Op, T, 16, 8>);
  else if (plan.cache <= 4) go(tile_registers_kernel<Op, T, 32, 4>);
  else go(tile_registers_kernel<Op, T, 32, 8>);
}

template <ReduceOp Op, class T>
void launch_tile_normalise(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  const auto go = [&](auto kernel) {
    kernel<<<tile_blocks(plan, a), kThreads, tile_bytes(plan, a), stream>>>(a, plan.tile_rows);
  };
  // A thread a row: the row's registers sized for at most 4, 8 or 16 columns (core::kTileMaxCols).
  static_assert(core::kTileMaxCols <= 16, "tiles' own rows are at most 16 columns");
  if (plan.staged) return launch_tile_registers<Op, T>(plan, a, stream);
  if (plan.group == 1 && a.cols <= 4) go(tile_own_rows_kernel<Op, T, 4>);
  else if (plan.group == 1 && a.cols <= 8) go(tile_own_rows_kernel<Op, T, 8>);
  else if (plan.group == 1) go(tile_own_rows_kernel<Op, T, 16>);
  else go(tile_normalise_kernel<Op, T, 8>);
}


template <class S, class T>
void launch_tile_reduce(const ReducePlan& plan, const Rows<T>& a, float scale, cudaStream_t stream) {
  if (plan.staged) {
    const std::size_t bytes = staged_bytes<T>(plan, a, 1);
    const auto go = [&](auto kernel) {
      allow_shared_bytes(reinterpret_cast<const void*>(kernel), bytes);
      kernel<<<tile_blocks(plan, a), kThreads, bytes, stream>>>(a, plan.tile_rows, scale);
    };
    if (plan.group == 1) go(tile_staged_reduce_kernel<S, T, 1>);
    else if (plan.group == 8) go(tile_staged_reduce_kernel<S, T, 8>);
    else go(tile_staged_reduce_kernel<S, T, 32>);
    return;
  }
  const auto go = [&](auto kernel) {
    kernel<<<tile_blocks(plan, a), kThreads, tile_bytes(plan, a), stream>>>(a, plan.tile_rows, scale);
  };
  if (plan.group == 1) go(tile_reduce_kernel<S, T, 1>);
  else go(tile_reduce_kernel<S, T, 8>);
}

}  // namespace opmark::kernels::reduce_detail
