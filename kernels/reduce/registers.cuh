#pragma once
// The registers path: a group of threads holds a row in registers.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// The register cache's unit: single elements widened to float once, as they load (a 2-byte element takes a register
// either way, and every pass then skips its conversion); 16-byte vectors as stored (half the registers of their
// floats).
template <class T, int kUnit>
struct CachedUnit {
  using type = Piece<T, kUnit>;
};
template <class T>
struct CachedUnit<T, 1> {
  using type = Piece<float, 1>;
};

// ---- registers: kGroup threads per row, each keeping kCache units (a 16-byte vector or one element) ----

// kRows rows a group at once (core::registers_rows_in_flight): group g of a block takes rows base + j * kPerBlock + g,
// j < kRows, so that a warp's loads of one j stay contiguous. All loads of all kRows rows are issued before the
// first use. The statistics are exact_coef's two steps over the cache: an online update per element (unit 1) cost
// softmax two exponentials an element and layer norm a division.
// Per element, bookkeeping is most of the work, so which units a lane holds is counted once (lane_units), each row's
// offset is taken once (its units sit at constant distances from it), and single elements are widened once and
// padded (pad_value), so that the passes over them run unmasked (layer norm's deviations excepted). 16-byte vectors
// stay masked and packed: padded, with their masks kept through the kernel, they took 254-255 registers a thread.
template <ReduceOp Op, class T, int kUnit, int kGroup, int kCache, int kMostRows = 8>
__global__ void __launch_bounds__(kThreads) registers_kernel(Rows<T> a) {
  using M = Norm<Op>;
  using U = Piece<T, kUnit>;
  using C = typename CachedUnit<T, kUnit>::type;
  constexpr bool kPadded = kUnit == 1;
  constexpr int kPerBlock = kThreads / kGroup;
  constexpr int kFits = core::registers_rows_in_flight(kGroup, kCache, sizeof(U));
  constexpr int kRows = kFits < kMostRows ? kFits : kMostRows;
  constexpr std::int64_t kStride = std::int64_t{kGroup} * kUnit;  // elements from one of a lane's units to the next
  // gamma and beta element by element for fp32 add + layer norm with 16 vectors a thread: as vectors, that kernel
  // took 155 registers (120 element by element), one block a multiprocessor.
  constexpr bool kVectorParameters = !(M::kAdd && M::kBeta && sizeof(T) == 4 && kCache >= 16);
  const std::int64_t units = a.cols / kUnit;
  const int lane = static_cast<int>(threadIdx.x % kGroup);
  const std::int64_t slot = threadIdx.x / kGroup;
  const std::int64_t lane_col = std::int64_t{lane} * kUnit;
  // The units this lane holds of any row: units lane, lane + kGroup, ... below the row's.
  const int lane_units =
      units > lane ? static_cast<int>(std::min<std::int64_t>(kCache, (units - lane + kGroup - 1) / kGroup)) : 0;
  for (std::int64_t base = std::int64_t(blockIdx.x) * kPerBlock * kRows; base < a.rows;
       base += std::int64_t(gridDim.x) * kPerBlock * kRows) {
    C cache[kRows][kCache];
    bool live[kRows];
    float2 c[kRows];
#pragma unroll
    for (int j = 0; j < kRows; ++j) live[j] = base + j * kPerBlock + slot < a.rows;
    const auto has = [&](int j, int u) { return live[j] && u < lane_units; };
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const std::int64_t at = (base + j * kPerBlock + slot) * a.cols + lane_col;
#pragma unroll
      for (int u = 0; u < kCache; ++u) {
        if constexpr (kPadded) cache[j][u].v[0] = pad_value<Op>();
        if (has(j, u)) {
          const U piece = load_piece<T, kUnit, M::kAdd>(a.x + at, a.residual + at, u * kStride);
          if constexpr (kPadded) cache[j][u].v[0] = to_float(piece.v[0]);
          else cache[j][u] = piece;
        }
      }
    }
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const auto each_unit = [&](bool real_only, auto&& f) {
#pragma unroll
        for (int u = 0; u < kCache; ++u)
          if ((kPadded && !real_only) || has(j, u)) {
            float v[kUnit];
            widen(cache[j][u], v);
            f(v);
          }
      };
      c[j] = exact_coef<Op, kGroup>(  // every lane of the group, live or not
          [&](auto&& f) { each_unit(false, f); }, [&](auto&& f) { each_unit(true, f); }, static_cast<float>(a.cols));
    }
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      if (!live[j]) break;  // rows only grow with j
      const std::int64_t at = (base + j * kPerBlock + slot) * a.cols + lane_col;
#pragma unroll
      for (int u = 0; u < kCache; ++u) {
        if (u >= lane_units) break;
        const std::int64_t col = lane_col + u * kStride;
        float v[kUnit];
        widen(cache[j][u], v);
        write_values<Op, T, kUnit, kVectorParameters>(v, c[j], a.gamma + col, a.beta + col, a.out + at + u * kStride);
        if constexpr (M::kAdd) {
          if constexpr (kPadded) store_global(a.sum + at + u * kStride, narrow<T>(v));  // exact: v came from T
          else store_global(a.sum + at + u * kStride, cache[j][u]);
        }
      }
    }
  }
}

// A warp with 32 units a lane: built for elements only (core's kRegisterFits; 32 vectors a lane would spill).
template <ReduceOp Op, class T, int kUnit, class Go>
void launch_warp_of_32(const Go& go) {
  if constexpr (kUnit == 1) go(registers_kernel<Op, T, kUnit, 32, 32>);
  else throw Error("reduce: a warp with 32 units a lane reads elements, not vectors");
}

template <ReduceOp Op, class T, int kUnit>
void launch_registers(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  const std::int64_t per_block = kThreads / plan.group * plan.rows_in_flight;
  const unsigned blocks = plan.one_shot ? static_cast<unsigned>((a.rows + per_block - 1) / per_block)
                                        : grid_for(a.rows, per_block);
  const auto go = [&](auto kernel) { kernel<<<blocks, kThreads, 0, stream>>>(a); };
  // One row at once: core offers it for elements only, where several rows a thread leave multiprocessors idle.
  if constexpr (kUnit == 1) {
    if (plan.group == 1 && plan.cache == 1 && plan.rows_in_flight == 1) {
      go(registers_kernel<Op, T, kUnit, 1, 1, 1>);
      return;
    }
  }
  if (plan.group == 1 && plan.cache == 1) go(registers_kernel<Op, T, kUnit, 1, 1>);
  else if (plan.group == 1) go(registers_kernel<Op, T, kUnit, 1, 4>);
  else if (plan.group == 4) go(registers_kernel<Op, T, kUnit, 4, 2>);
  else if (plan.group == 8) go(registers_kernel<Op, T, kUnit, 8, 4>);
  else if (plan.group == 16 && plan.cache <= 4) go(registers_kernel<Op, T, kUnit, 16, 4>);
  else if (plan.group == 16) go(registers_kernel<Op, T, kUnit, 16, 8>);
  else if (plan.group == 32 && plan.cache <= 4) go(registers_kernel<Op, T, kUnit, 32, 4>);
  else if (plan.group == 32 && plan.cache <= 8) go(registers_kernel<Op, T, kUnit, 32, 8>);
  else if (plan.group == 32 && plan.cache <= 16) go(registers_kernel<Op, T, kUnit, 32, 16>);
  else if (plan.group == 32) launch_warp_of_32<Op, T, kUnit>(go);
  else if (plan.cache <= 4) go(registers_kernel<Op, T, kUnit, kThreads, 4>);
  else if (plan.cache <= 8) go(registers_kernel<Op, T, kUnit, kThreads, 8>);
  else go(registers_kernel<Op, T, kUnit, kThreads, 16>);
}

}  // namespace opmark::kernels::reduce_detail
