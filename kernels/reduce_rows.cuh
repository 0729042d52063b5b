#pragma once
// The reduce family's kernels, one template per path of core::reduce_plan (core/reduce_path.h):
//   registers      a group of 1, 8, 32 or 256 threads holds a row in registers: read once, reduced, written
//   cluster        a cluster of 1 to 16 blocks holds a long (or unaligned) row in registers, statistics combined
//                  through the blocks' shared memory: read once
//   shared_memory  a block copies its row into shared memory, takes its statistics there, then writes from there
//   rereads        a block per row: statistics as it reads, then a second read (from L2) writes the row normalised
//   two_pass       blocks each take a slice of a row: partial statistics, then (second read) the normalised slice
//   streaming      sum, mean, max: a group of threads per row reduces as it reads
//   split_rows     sum, mean, max on few long rows: partial states per slice, then one thread per row combines
//   all_partials   sum_all: a fixed grid of partial sums, then one block sums them
//   tile           very short rows: a run of whole rows (one contiguous span) staged in shared memory, reduced there
//   packed         rows of 1, 2, 4 (or 8) elements: 16-byte vectors of whole rows, each thread's reduced in registers
// Included by reduce_f32.cu, reduce_f16.cu and reduce_bf16.cu only.
#include <cooperative_groups.h>
#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/block_reduce.cuh"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/reduce_typed.h"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace reduce_detail {

using core::ReducePath;
using core::ReducePlan;

static_assert(kThreads == core::kReduceBlockThreads, "the plan's block size is the kernels'");

// ---- what each normalising op computes: its row statistic, the two numbers it keeps, and the output ----

template <ReduceOp Op>
struct Norm;

// exp(v - m) as 2^(v log2(e) - m log2(e)): one fused multiply-add and the hardware's 2^x (what __expf(v - m) takes
// a subtraction and a multiplication for), with m log2(e) computed once a row.
constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float exp_less(float v, float scaled_max) { return exp2f(fmaf(v, kLog2e, -scaled_max)); }

template <>
struct Norm<ReduceOp::softmax> {
  using State = SoftmaxState;
  static constexpr bool kGamma = false, kBeta = false, kAdd = false;
  __device__ static float2 coef(State s, float) { return {s.m * kLog2e, 1.0f / s.s}; }
  __device__ static float apply(float v, float2 c, float, float) { return exp_less(v, c.x) * c.y; }
};
template <>
struct Norm<ReduceOp::log_softmax> {
  using State = SoftmaxState;
  static constexpr bool kGamma = false, kBeta = false, kAdd = false;
  __device__ static float2 coef(State s, float) { return {s.m, logf(s.s)}; }
  __device__ static float apply(float v, float2 c, float, float) { return v - c.x - c.y; }
};
template <bool Add>
struct LayerNorm {
  using State = Welford;
  static constexpr bool kGamma = true, kBeta = true, kAdd = Add;
  __device__ static float2 coef(State s, float cols) {
    return {s.mean, rsqrtf(s.m2 / cols + static_cast<float>(kLayerNormEps))};
  }
  __device__ static float apply(float v, float2 c, float g, float b) { return (v - c.x) * c.y * g + b; }
};
template <bool Add>
struct RmsNorm {
  using State = SumSquares;
  static constexpr bool kGamma = true, kBeta = false, kAdd = Add;
  __device__ static float2 coef(State s, float cols) { return {0.0f, rsqrtf(s.v / cols + static_cast<float>(kRmsNormEps))}; }
  __device__ static float apply(float v, float2 c, float g, float) { return v * c.y * g; }
};
template <>
struct Norm<ReduceOp::layernorm> : LayerNorm<false> {};
template <>
struct Norm<ReduceOp::add_layernorm> : LayerNorm<true> {};
template <>
struct Norm<ReduceOp::rmsnorm> : RmsNorm<false> {};
template <>
struct Norm<ReduceOp::add_rmsnorm> : RmsNorm<true> {};

// The tensors of a launch, typed. sum: add_*'s second output (x + residual), right after the normalised rows.
template <class T>
struct Rows {
  const T* __restrict__ x;
  const T* __restrict__ residual;
  const T* __restrict__ gamma;
  const T* __restrict__ beta;
  T* __restrict__ out;
  T* __restrict__ sum;
  std::int64_t rows, cols;
};

// N consecutive elements: one (Scalar-like) or a 16-byte vector; aligned to its size so it loads in one access.
template <class T, int N>
struct alignas(sizeof(T) * N) Piece {
  static constexpr int kCount = N;
  T v[N];
};

// Pieces move through memory as one word of their size. Copied as structs, pieces of __half were split member by
// member: eight 2-byte shared-memory loads and global stores where one 16-byte access was meant (the PTX of the
// shared-memory kernel had no vector access but its cp.async; a softmax over 50257 fp16 columns ran at 1.7x PyTorch's
// time, stalled on the load-store queue, H100 ncu, 2026-11-24).
template <int kBytes>
struct WordOf;
template <>
struct WordOf<16> {
  using type = uint4;
};
template <>
struct WordOf<8> {
  using type = uint2;
};
template <>
struct WordOf<4> {
  using type = unsigned;
};
template <>
struct WordOf<2> {
  using type = unsigned short;
};

template <class P, class T>
__device__ __forceinline__ P load_whole(const T* from) {
  using W = typename WordOf<sizeof(P)>::type;
  const W w = *reinterpret_cast<const W*>(from);
  P p;
  memcpy(&p, &w, sizeof p);
  return p;
}
template <class P, class T>
__device__ __forceinline__ void store_whole(T* to, const P& p) {
  using W = typename WordOf<sizeof(P)>::type;
  W w;
  memcpy(&w, &p, sizeof w);
  *reinterpret_cast<W*>(to) = w;
}
// A piece of a tensor the kernel only reads. 16-byte pieces through the read-only path by request (__ldg:
// ld.global.nc), which the compiler had chosen itself until the stores below became requests it cannot see through.
// Single elements stay plain loads: through __ldg each computed its own address, and softmax over 97 and 197 fp16
// columns (a warp per row, element loads) ran 15-20% slower (H100, 2026-11-24).
template <class P, class T>
__device__ __forceinline__ P load_global(const T* from) {
  if constexpr (sizeof(P) == 16) {
    const uint4 w = __ldg(reinterpret_cast<const uint4*>(from));
    P p;
    memcpy(&p, &w, sizeof p);
    return p;
  } else {
    return load_whole<P>(from);
  }
}
// The same into global memory, where a 16-byte store is one instruction by request (__stwb: st.global.wb, the
// default caching): a uint4 assigned was still split into four 4-byte stores where its halves had been computed.
template <class P, class T>
__device__ __forceinline__ void store_global(T* to, const P& p) {
  if constexpr (sizeof(P) == 16) {
    uint4 w;
    memcpy(&w, &p, sizeof w);
    __stwb(reinterpret_cast<uint4*>(to), w);
  } else {
    store_whole(to, p);
  }
}

// Pairs of 16-bit values handled as 32-bit words. bf16 element by element (__bfloat162float, __float2bfloat16_rn):
// ptxas kept every bf16 in a register of its own, 160 registers where fp16 took 99 in the block-per-row kernels,
// half the blocks per multiprocessor, and bf16 norms at 0.6x PyTorch's speed where fp16 matched it. fp16 element by
// element: a narrowed vector was stored as four pairs (st.global.v2.u16), not one 16-byte store, wherever the store
// was not next to its load (H100, 2026-11-24).
template <class T, int N>
constexpr bool kWordPairs = (std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>) && N % 2 == 0;

template <class T>
__device__ __forceinline__ float2 pair_to_float2(unsigned w) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return {__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u)};
  } else {
    __half2 h;
    memcpy(&h, &w, sizeof w);
    return __half22float2(h);
  }
}
template <class T>
__device__ __forceinline__ unsigned float2_to_pair(float lo, float hi) {
  unsigned w;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 p = __floats2bfloat162_rn(lo, hi);  // .x, the low half, is lo
    memcpy(&w, &p, sizeof w);
  } else {
    const __half2 p = __floats2half2_rn(lo, hi);
    memcpy(&w, &p, sizeof w);
  }
  return w;
}

template <class T, int N>
__device__ __forceinline__ void widen(const Piece<T, N>& p, float (&v)[N]) {
  if constexpr (kWordPairs<T, N>) {
    unsigned w[N / 2];
    memcpy(w, p.v, sizeof w);
#pragma unroll
    for (int k = 0; k < N / 2; ++k) {
      const float2 f = pair_to_float2<T>(w[k]);
      v[2 * k] = f.x;
      v[2 * k + 1] = f.y;
    }
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) v[k] = to_float(p.v[k]);
  }
}

// The piece of T holding v[0..N), rounded to nearest.
template <class T, int N>
__device__ __forceinline__ Piece<T, N> narrow(const float (&v)[N]) {
  Piece<T, N> p;
  if constexpr (kWordPairs<T, N>) {
    unsigned w[N / 2];
#pragma unroll
    for (int k = 0; k < N / 2; ++k) w[k] = float2_to_pair<T>(v[2 * k], v[2 * k + 1]);
    memcpy(p.v, w, sizeof w);
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) p.v[k] = from_float<T>(v[k]);
  }
  return p;
}

// The input's piece at element e: x, or with kAdd x + residual rounded to the storage type (the sum an engine
// stores, and the one it normalises).
template <class T, int N, bool kAdd>
__device__ __forceinline__ Piece<T, N> load_piece(const T* __restrict__ x, const T* __restrict__ res, std::int64_t e) {
  using P = Piece<T, N>;
  P a = load_global<P>(x + e);
  if constexpr (kAdd) {
    const P b = load_global<P>(res + e);
    float va[N], vb[N];
    widen(a, va);
    widen(b, vb);
#pragma unroll
    for (int k = 0; k < N; ++k) va[k] += vb[k];
    a = narrow<T>(va);
  }
  return a;
}

// Where the first 16-byte boundary of a run of elements at p lies: the elements before it (fewer than a vector).
template <class T>
__device__ __forceinline__ std::int64_t head_elements(const T* p, std::int64_t count) {
  constexpr std::int64_t kC = Vec<T>::kCount;
  const std::int64_t misalign = static_cast<std::int64_t>((reinterpret_cast<std::uintptr_t>(p) / sizeof(T)) % kC);
  return misalign == 0 ? 0 : std::min<std::int64_t>(count, kC - misalign);
}

// A run of `count` elements at p as 16-byte pieces: `head` single elements up to its first 16-byte boundary,
// `vectors` whole 16-byte vectors from there, then single elements from `tail_at` to the end (fewer than a vector).
struct Pieces {
  std::int64_t head, vectors, tail_at;
};
template <class T>
__device__ __forceinline__ Pieces pieces_of(const T* p, std::int64_t count) {
  constexpr std::int64_t kC = Vec<T>::kCount;
  const std::int64_t head = head_elements(p, count);
  const std::int64_t vectors = (count - head) / kC;
  return {head, vectors, head + vectors * kC};
}

// read_pieces' 16-byte vectors: `vectors` of them from element `head` on, kInFlight at a time.
template <class T, bool kAdd, class F>
__device__ __forceinline__ void read_vectors(const T* __restrict__ x, const T* __restrict__ res, std::int64_t head,
                                             std::int64_t vectors, std::int64_t tid, std::int64_t step, F&& f) {
  constexpr int kC = Vec<T>::kCount;
  for (std::int64_t i = tid; i < vectors; i += kInFlight * step) {
    Piece<T, kC> a[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (i + u * step < vectors) a[u] = load_piece<T, kC, kAdd>(x, res, head + (i + u * step) * kC);
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (i + u * step < vectors) f(head + (i + u * step) * kC, a[u]);
  }
}

// Hands f(e, piece) the input pieces of elements [0, count) from x (and residual) that thread `tid` of `step` owns:
// single elements up to the first 16-byte boundary, then 16-byte vectors kInFlight at a time (all loads issued
// before the first use), then single elements. Rows of odd length start anywhere: x and the residual (and every
// output) share the row's offset, so one boundary serves all of them.
template <class T, bool kAdd, class F>
__device__ __forceinline__ void read_pieces(const T* __restrict__ x, const T* __restrict__ res, std::int64_t count,
                                            std::int64_t tid, std::int64_t step, F&& f) {
  constexpr int kC = Vec<T>::kCount;
  const auto [head, vectors, tail_at] = pieces_of(x, count);
  if (step >= kC) {
    // At most one head and one tail element a thread: their loads go out with the first vectors', and are used
    // after them. Loaded in three rounds (head, vectors, tail), rows of a few vectors paid three trips to memory:
    // sums over 7 to 4095 columns ran up to 2.3x slower than with element loads (H100, 2026-11-24).
    const bool has_head = tid < head, has_tail = tail_at + tid < count;
    Piece<T, 1> first, last;
    if (has_head) first = load_piece<T, 1, kAdd>(x, res, tid);
    if (has_tail) last = load_piece<T, 1, kAdd>(x, res, tail_at + tid);
    read_vectors<T, kAdd>(x, res, head, vectors, tid, step, f);
    if (has_head) f(tid, first);
    if (has_tail) f(tail_at + tid, last);
    return;
  }
  for (std::int64_t e = tid; e < head; e += step) f(e, load_piece<T, 1, kAdd>(x, res, e));
  read_vectors<T, kAdd>(x, res, head, vectors, tid, step, f);
  for (std::int64_t e = tail_at + tid; e < count; e += step) f(e, load_piece<T, 1, kAdd>(x, res, e));
}

// gamma or beta (kUsed) at a piece's column, widened; `fallback` where the op has none. Their alignment is the
// column's, not the row's: a piece of a row read past its unaligned start is not at an aligned column, so they are
// loaded as one 16-byte vector only where they lie on a 16-byte boundary (every piece of a vectorised row), else
// element by element. Element by element everywhere, an fp16 layer norm took 16 loads of gamma and beta for each
// 16-byte load of its input; as vectors, both builds alternating twice in one call on an H100 (2026-11-24), fp16
// layer norm 8-14% faster over 512 to 32000 columns (512: 51.5 -> 47.4 us, 12288: 56.1 -> 49.5, 32000: 70.0 ->
// 60.5), add + layer norm up to 7% (32000: 127.4 -> 119.1), RMSNorm 1-3%, fp32 layer norm over 12288 108.4 -> 98.3.
// They stay in L1.
template <bool kUsed, bool kVectors, class T, int N>
__device__ __forceinline__ void load_parameters(const T* __restrict__ p, float fallback, float (&f)[N]) {
  if constexpr (!kUsed) {
#pragma unroll
    for (int k = 0; k < N; ++k) f[k] = fallback;
  } else {
    if constexpr (kVectors && sizeof(Piece<T, N>) == 16) {
      if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
        widen(load_global<Piece<T, N>>(p), f);
        return;
      }
    }
#pragma unroll
    for (int k = 0; k < N; ++k) f[k] = to_float(p[k]);
  }
}

// The normalised values of v[0..N) (the input, widened) stored at out; gamma and beta start at the values' column
// (kVectorParameters: as 16-byte vectors where they can be).
template <ReduceOp Op, class T, int N, bool kVectorParameters = true>
__device__ __forceinline__ void write_values(const float (&v)[N], float2 c, const T* __restrict__ gamma,
                                             const T* __restrict__ beta, T* __restrict__ out) {
  using M = Norm<Op>;
  float g[N], b[N], o[N];
  load_parameters<M::kGamma, kVectorParameters>(gamma, 1.0f, g);
  load_parameters<M::kBeta, kVectorParameters>(beta, 0.0f, b);
#pragma unroll
  for (int k = 0; k < N; ++k) o[k] = M::apply(v[k], c, g[k], b[k]);
  store_global(out, narrow<T>(o));
}
// Writes a normalised piece (and with kAdd the sum beside it) at element e of a row.
// kWriteSum: false where the sum was written as it was read (the shared-memory paths); kVectorParameters: as
// write_values'.
template <ReduceOp Op, class T, int N, bool kWriteSum = Norm<Op>::kAdd, bool kVectorParameters = true>
__device__ __forceinline__ void write_piece(const Piece<T, N>& in, float2 c, const T* __restrict__ gamma,
                                            const T* __restrict__ beta, T* __restrict__ out, T* __restrict__ sum,
                                            std::int64_t e) {
  float v[N];
  widen(in, v);
  write_values<Op, T, N, kVectorParameters>(v, c, gamma, beta, out + e);
  if constexpr (kWriteSum) store_global(sum + e, in);
}

// Calls f(e, piece) for every piece of [0, count) of a span of T at p that thread `tid` of `step` owns: single
// elements up to p's first 16-byte boundary, 16-byte vectors, then single elements (no loads batched: for walks
// whose pieces come from shared memory).
template <class T, class F>
__device__ __forceinline__ void each_piece(const T* p, std::int64_t count, std::int64_t tid, std::int64_t step,
                                           F&& f) {
  constexpr int kC = Vec<T>::kCount;
  const auto [head, vectors, tail_at] = pieces_of(p, count);
  for (std::int64_t e = tid; e < head; e += step) f(e, std::integral_constant<int, 1>{});
  for (std::int64_t i = tid; i < vectors; i += step) f(head + i * kC, std::integral_constant<int, kC>{});
  for (std::int64_t e = tail_at + tid; e < count; e += step) f(e, std::integral_constant<int, 1>{});
}

// Combines the states of a group of kGroup threads (1, a power of two up to 32 within a warp, or the whole block of
// kGroup threads); every thread of the warp or block must call it (the loops over rows below are uniform across them).
template <int kGroup, class S>
__device__ __forceinline__ S group_reduce(S s) {
  if constexpr (kGroup == 1) return s;
  else if constexpr (kGroup <= 32) {
    for (int offset = kGroup / 2; offset > 0; offset /= 2) s = S::combine(s, s.shuffled(offset));
    return s;
  } else {
    return block_reduce_of<kGroup>(s);
  }
}

template <int N>
__device__ __forceinline__ void add_exp(float& e, const float (&v)[N], float scaled_max) {
#pragma unroll
  for (int k = 0; k < N; ++k) e += exp_less(v[k], scaled_max);
}
template <int N>
__device__ __forceinline__ float sum_of_squared_deviations(const float (&v)[N], float mean) {
  float d2 = 0.0f;
#pragma unroll
  for (int k = 0; k < N; ++k) d2 += (v[k] - mean) * (v[k] - mean);
  return d2;
}

// The coefficients of a row whose values are at hand (in registers or shared memory), in two exact steps over them:
// softmax's max, then its sum of exponentials (one exponential per element, none to rescale a running sum, where
// the online update takes two); layer norm's mean, then its sum of squared deviations (no division per element, as
// Welford's update takes); RMSNorm's sum of squares. each(f) calls f(float (&v)[N]) for every chunk of this thread's
// share of the row (none for a thread without a row); it may also hand f padding that leaves a max, a sum and a sum
// of exponentials or squares as they are (Norm's pad_value). each_real(f) hands f the row's own values only, for
// layer norm's deviations, which padding would change. reduce(state) combines a state over the threads sharing the
// row (all of them call this); exact_coef below takes a group's.
template <ReduceOp Op, class Reduce, class Each, class EachReal>
__device__ __forceinline__ float2 exact_coef_by(Reduce&& reduce, Each&& each, EachReal&& each_real, float cols) {
  using M = Norm<Op>;
  using State = typename M::State;
  if constexpr (std::is_same_v<State, SoftmaxState>) {
    Max m;
    each([&](const auto& v) { m.add_chunk(v); });
    m = reduce(m);
    Sum e;
    const float scaled_max = m.v * kLog2e;
    each([&](const auto& v) { add_exp(e.v, v, scaled_max); });
    return M::coef(SoftmaxState{m.v, reduce(e).v}, cols);
  } else if constexpr (std::is_same_v<State, Welford>) {
    Sum sum;
    each([&](const auto& v) { sum.add_chunk(v); });
    const float mean = reduce(sum).v / cols;
    Sum deviations;
    each_real([&](const auto& v) { deviations.v += sum_of_squared_deviations(v, mean); });
    return M::coef(Welford{cols, mean, reduce(deviations).v}, cols);
  } else {
    SumSquares q;
    each([&](const auto& v) { q.add_chunk(v); });
    return M::coef(reduce(q), cols);
  }
}
template <ReduceOp Op, int kGroup, class Each, class EachReal>
__device__ __forceinline__ float2 exact_coef(Each&& each, EachReal&& each_real, float cols) {
  return exact_coef_by<Op>([](auto s) { return group_reduce<kGroup>(s); }, each, each_real, cols);
}
template <ReduceOp Op, int kGroup, class Each>
__device__ __forceinline__ float2 exact_coef(Each&& each, float cols) {
  return exact_coef<Op, kGroup>(each, each, cols);
}

// exact_coef over a row share held in registers, v[0..real) this thread's values and the rest padding (pad_value):
// the whole array for the passes padding leaves alone, the real values for layer norm's deviations.
template <ReduceOp Op, int kGroup, int N>
__device__ __forceinline__ float2 padded_coef(const float (&v)[N], int real, float cols) {
  return exact_coef<Op, kGroup>(
      [&](auto&& f) { f(v); },
      [&](auto&& f) {
#pragma unroll
        for (int k = 0; k < N; ++k)
          if (k < real) {
            const float one[1] = {v[k]};
            f(one);
          }
      },
      cols);
}

// What a missing element of the register cache holds: a value each pass over the whole cache may take in without
// changing its result (exp(-inf) = 0 in a sum of exponentials; 0 in a sum).
template <ReduceOp Op>
__device__ __forceinline__ float pad_value() {
  return std::is_same_v<typename Norm<Op>::State, SoftmaxState> ? -INFINITY : 0.0f;
}

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
// padded (pad_value), so that the passes over them run unmasked (layer norm's deviations excepted). Masked in every
// pass, with 64-bit bounds and offsets per unit, log_softmax over 197 fp16 columns executed 50.7 M warp instructions
// to PyTorch's 40.2 M and ran 1.06x its time; after, 37.6 M (H100 ncu, 2026-11-24). 16-byte vectors stay masked
// and packed: padded, and with their masks kept in an array through the kernel, they took 254-255 registers a
// thread and softmax over 4096 and 32000 fp16 columns ran 1.1x and 1.4x slower.
template <ReduceOp Op, class T, int kUnit, int kGroup, int kCache>
__global__ void __launch_bounds__(kThreads) registers_kernel(Rows<T> a) {
  using M = Norm<Op>;
  using U = Piece<T, kUnit>;
  using C = typename CachedUnit<T, kUnit>::type;
  constexpr bool kPadded = kUnit == 1;
  constexpr int kPerBlock = kThreads / kGroup;
  constexpr int kRows = core::registers_rows_in_flight(kGroup, kCache, sizeof(U));
  constexpr std::int64_t kStride = std::int64_t{kGroup} * kUnit;  // elements from one of a lane's units to the next
  // gamma and beta element by element for fp32 add + layer norm with 16 vectors a thread: as vectors, that kernel
  // took 155 registers (120 element by element), one block a multiprocessor, and ran over 12288 columns in 146.8 us
  // against 117.8 (H100, both builds in one call, 2026-11-24); layer norm there gained 60.4 -> 53.7.
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

// ---- cluster: a row over a cluster of blocks, in registers ----

// A state combined over a cluster of `blocks` blocks (kThreads threads each), returned to every thread: each block's
// own (block_reduce), then all of theirs through distributed shared memory, lane r of every warp taking block r's.
// Every block combines the same states in the same order, and the states combined here (sums and maxima: the
// exact_coef steps) are symmetric, so every lane of the butterfly ends with the same bits: the blocks of a row agree.
// `slot`: the block's shared slot for this step of a row, a fresh one each step, so that no block overwrites a slot
// another may still be reading (the caller keeps blocks from starting the next row before all have read).
template <class S>
__device__ __forceinline__ S cluster_reduce(S s, S* slot, unsigned blocks) {
  s = block_reduce_of<kThreads>(s);
  if (blocks == 1) return s;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  if (threadIdx.x == 0) *slot = s;
  cluster.sync();  // every block's slot written
  const unsigned lane = threadIdx.x % 32;
  return warp_reduce(lane < blocks ? *cluster.map_shared_rank(slot, lane) : S{});
}

// The same by pushing, for the ops that combine twice a row (softmax, log_softmax and the layer norms): warp 0's
// lane r of each block stores the block's state into block r's inbox with st.async, which completes its bytes on
// block r's mbarrier (the block's own state: a plain store before its arrival); every thread then waits on its own
// block's mbarrier and combines the inbox in rank order, the same order in every block, so they agree to the bit.
// No cluster barrier a step: cluster.sync() is a release fence (MEMBAR, ERRBAR), the barrier and an L1 invalidation
// each time. Steps alternate between two inboxes and mbarriers (`pushes`, the block's steps so far): a block can be
// at most one step ahead of another, since a step needs every block's state of the step before, which each sends only
// after reading its inbox of the step before that. A block leaves only after every state sent to it has arrived, so
// no barrier guards the exit. In one call on an H100 against cluster_reduce (2026-11-25, 64 MiB): fp16 layer norm
// over 50257 columns 88.8 -> 78.4 us, 262144 83.9 -> 71.4; softmax over 131072 fp16 columns 68.8 -> 56.2, fp32 65.9
// -> 51.9; log_softmax over 262144 fp16 68.8 -> 55.0; fp32 layer norm over 50257 71.1 -> 63.5, add + layer norm 131.3
// -> 110.4 (not confirmed: in a later call fp32 add + layer norm lost, and keeps cluster_reduce). For the one-step
// norms it lost (fp16 add + RMSNorm over 50257 109.1 -> 119.0: 8 more registers, a block fewer; fp32 add + RMSNorm
// over 32000 97.5 -> 102.3), and they keep cluster_reduce.
struct ClusterInbox {
  float states[2][core::kMostClusterBlocks];  // one 32-bit state a block, for each of the two alternating steps
  std::uint64_t arrivals[2];                  // their mbarriers: one arrival (the block's own) and the others' bytes
};

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// The block's arrival at the cluster barrier without a release (no fence): for what the caller has ordered itself.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// Initialises the block's mbarriers and arrives (relaxed) at the cluster barrier that cluster_inbox_join waits for:
// no block pushes before every block's mbarriers are initialised. Called before the row's loads, so that the wait
// costs little.
__device__ __forceinline__ void cluster_inbox_open(ClusterInbox& inbox) {
  if (threadIdx.x == 0) {
    for (std::uint64_t& arrival : inbox.arrivals)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&arrival)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_arrive_relaxed();
}
__device__ __forceinline__ void cluster_inbox_join() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

template <class S>
__device__ __forceinline__ S cluster_push_reduce(S s, ClusterInbox& inbox, int& pushes, unsigned blocks,
                                                 unsigned rank) {
  static_assert(sizeof(S) == sizeof(float), "one 32-bit word a state");
  // The next step's writes of the warps' states come after this step's wait, which follows warp 0's reads of them.
  const S block_state = block_state_in_warp0<kThreads>(s);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int step = pushes & 1;
  const std::uint32_t parity = (pushes >> 1) & 1;
  ++pushes;
  S* states = reinterpret_cast<S*>(inbox.states[step]);
  const std::uint32_t arrival = shared_address(&inbox.arrivals[step]);
  if (warp == 0) {
    if (lane == rank) {
      states[rank] = block_state;
      asm volatile("{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1; }" ::"r"(arrival),
                   "r"(static_cast<std::uint32_t>((blocks - 1) * sizeof(S)))
                   : "memory");
    } else if (lane < blocks) {
      std::uint32_t word, their_state, their_arrival;
      memcpy(&word, &block_state, sizeof word);
      asm("mapa.shared::cluster.u32 %0, %1, %2;"
          : "=r"(their_state)
          : "r"(shared_address(&states[rank])), "r"(lane));
      asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(their_arrival) : "r"(arrival), "r"(lane));
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(their_state),
                   "r"(word), "r"(their_arrival)
                   : "memory");
    }
  }
  std::uint32_t arrived = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(arrived)
        : "r"(arrival), "r"(parity)
        : "memory");
  } while (!arrived);
  return warp_reduce(lane < blocks ? states[lane] : S{});
}

// cluster: a row over a cluster of blocks (sm_90 thread block clusters, 1 to 16 blocks: the launch's cluster
// dimension), each thread keeping kCache 16-byte vectors of it in registers from the row's first 16-byte boundary
// on, and the cluster's first threads one element each of the unaligned head and tail. The blocks combine their
// statistics through each other's shared memory (cluster_reduce, cluster_push_reduce), so a row too long for one
// block's registers is still read once, with every load of it issued before the first use; and rows that are not
// whole 16-byte vectors are read in 16-byte pieces, not element by element. The grid is a cluster a row, or fewer
// clusters looping over rows.
//
// Layer norm and add + layer norm over 2-byte elements are held to 4 blocks a multiprocessor with 4 vectors a thread
// and 3 with 8 (at most 64 and 80 registers; ptxas chose 76 for fp16 add + layer norm with 4, 90 and 94 for layer
// norm and add + layer norm with 8: a block fewer). In one call on an H100 against no minimum (2026-11-25): fp16
// layer norm over 131072 columns 89.3 -> 73.7 us, add + layer norm over 50257 155.6 -> 138.2 and 131072 155.5 ->
// 137.1 (bf16, which ptxas had fitted, level). A minimum for every kernel lost where it let ptxas take more registers
// than it had (fp32 add + layer norm over 50257 133.1 -> 141.2, 48 -> 63 registers: 5 blocks -> 4; fp16 RMSNorm over
// 4095 49.4 -> 51.7). 0 is no minimum, as if none were given (ptxas' registers as without it); 1 is not: with it
// ptxas took more (fp16 RMSNorm with 4 a thread 48 -> 71).
template <ReduceOp Op, class T, int kCache>
constexpr int cluster_min_blocks() {
  if (sizeof(T) == 2 && Norm<Op>::kBeta) return kCache == 4 ? 4 : kCache == 8 ? 3 : 0;
  return 0;
}
template <ReduceOp Op, class T, int kCache>
__global__ void __launch_bounds__(kThreads, (cluster_min_blocks<Op, T, kCache>())) cluster_row_kernel(Rows<T> a) {
  using M = Norm<Op>;
  constexpr int kC = Vec<T>::kCount;
  using V = Piece<T, kC>;
  using E = Piece<T, 1>;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned blocks = cluster.num_blocks();
  const std::int64_t t = std::int64_t{cluster.block_rank()} * kThreads + threadIdx.x;  // this thread in the row
  const std::int64_t step = std::int64_t{blocks} * kThreads;
  // The ops that combine twice a row push their states (cluster_push_reduce); RMSNorm's one step, and fp32 add +
  // layer norm with 4 vectors a thread, go through cluster_reduce's slots. fp32 add + layer norm pushing lost with 4,
  // 128 MiB (the sweep's) in one call on an H100 (2026-11-25): 12288 columns 195.9 -> 203.2 us, 32000 202.4 ->
  // 215.8, 50257 243.6 -> 258.1 (48 -> 68 registers); held to 5 blocks a multiprocessor it spilled and still lost at
  // 12288 and 32000 (201.2, 207.9). With 8 (131072 columns, 16 blocks) the sweep's cell read 70% of copy pushing
  // (0422614) and 66% on the barrier (990f41d), in two calls.
  constexpr bool kPushes = !std::is_same_v<typename M::State, SumSquares> &&
                           !(sizeof(T) == 4 && Op == ReduceOp::add_layernorm && kCache < 8);
  struct ClusterSlots {
    alignas(16) float slots[2][4];  // the block's state at each step of a row, for the other blocks
  };
  // Only what the kernel's way of combining uses.
  __shared__ std::conditional_t<kPushes, ClusterInbox, ClusterSlots> combining;
  int pushes = 0;
  bool joined = !kPushes || blocks == 1;
  if constexpr (kPushes)
    if (!joined) cluster_inbox_open(combining);
  for (std::int64_t row = blockIdx.x / blocks; row < a.rows; row += gridDim.x / blocks) {
    const std::int64_t at = row * a.cols;
    const T* x = a.x + at;
    const T* res = a.residual + at;
    const auto [head, vectors, tail_at] = pieces_of(x, a.cols);
    const bool has_head = t < head, has_tail = tail_at + t < a.cols;
    const int held =  // vectors t, t + step, ... below the row's
        t < vectors ? static_cast<int>(std::min<std::int64_t>(kCache, (vectors - t + step - 1) / step)) : 0;
    V cache[kCache];
    E first, last;
    if (has_head) first = load_piece<T, 1, M::kAdd>(x, res, t);
#pragma unroll
    for (int u = 0; u < kCache; ++u)
      if (u < held) cache[u] = load_piece<T, kC, M::kAdd>(x, res, head + (t + u * step) * kC);
    if (has_tail) last = load_piece<T, 1, M::kAdd>(x, res, tail_at + t);
    const auto each = [&](auto&& f) {
#pragma unroll
      for (int u = 0; u < kCache; ++u)
        if (u < held) {
          float v[kC];
          widen(cache[u], v);
          f(v);
        }
      if (has_head) {
        const float v[1] = {to_float(first.v[0])};
        f(v);
      }
      if (has_tail) {
        const float v[1] = {to_float(last.v[0])};
        f(v);
      }
    };
    // The cache stays in the stored type and is widened each pass: widened to float once as it loads (twice the
    // registers for 2-byte types), fp16 layer norm over 32000 columns (4 blocks, 4 vectors a thread) ran 73.5 ->
    // 108.2 us, RMSNorm over 50257 61.7 -> 78.8, softmax over 32000 68.5 -> 95.3 (H100, both builds alternating
    // twice in one call, 2026-11-25).
    // exact_coef's steps (two for softmax and layer norm), each combined over the cluster. One combined state a row
    // instead (each thread's exact mean and squared deviations, or max and sum of exponentials, merged as Welford
    // and online softmax merge) was slower, both against the production plans in two calls on an H100 (2026-11-25):
    // fp32 layer norm over 32000 columns (4 blocks, 8 vectors a thread) 63.6 -> 91.6 us, fp16 over 4095 70.2 -> 80.1.
    if (!joined) {
      cluster_inbox_join();
      joined = true;
    }
    int reduction = 0;
    const auto reduce = [&](auto s) {
      if constexpr (kPushes) {
        if (blocks == 1) return block_reduce_of<kThreads>(s);
        return cluster_push_reduce(s, combining, pushes, blocks, cluster.block_rank());
      } else {
        return cluster_reduce(s, reinterpret_cast<decltype(s)*>(combining.slots[reduction++]), blocks);
      }
    };
    const float2 c = exact_coef_by<Op>(reduce, each, each, static_cast<float>(a.cols));
    // cluster_reduce's ops: past its last read of the other blocks' slots, a block may go on writing; none leaves (or
    // writes a slot for the next row) before every block has read its slots. The arrival is relaxed: what it must order
    // are those reads, and their values were used (warp_reduce) before it, so they are done; cooperative_groups'
    // arrival releases (a fence: MEMBAR and ERRBAR in the SASS, 7% of layer norm's warp stall samples under ncu).
    // Relaxed, on an H100 against the release, alternating in one call (2026-11-25): fp16 layer norm over 50257 columns
    // 94.7 -> 88.9 us, RMSNorm over 50257 61.5 -> 57.5, fp32 RMSNorm over 131072 66.6 -> 62.7, fp32 layer norm over
    // 50257 74.6 -> 70.7, fp16 add + RMSNorm over 50257 112.6 -> 108.6; every cluster of more than one block 2-7%
    // faster.
    if (!kPushes && blocks > 1) cluster_arrive_relaxed();
#pragma unroll
    for (int u = 0; u < kCache; ++u)
      if (u < held) {
        const std::int64_t e = head + (t + u * step) * kC;
        write_piece<Op>(cache[u], c, a.gamma + e, a.beta + e, a.out, a.sum, at + e);
      }
    if (has_head) write_piece<Op>(first, c, a.gamma + t, a.beta + t, a.out, a.sum, at + t);
    if (has_tail)
      write_piece<Op>(last, c, a.gamma + tail_at + t, a.beta + tail_at + t, a.out, a.sum, at + tail_at + t);
    if (!kPushes && blocks > 1) cluster.barrier_wait();
  }
}

// ---- rows in shared memory (shared_memory, tile) ----

// The row sits in shared memory shifted so that a 16-byte vector of the row lands on a 16-byte boundary there too.
template <class T>
__device__ __forceinline__ std::int64_t shared_shift(const T* row, std::int64_t cols) {
  const std::int64_t head = head_elements(row, cols);
  return head == 0 ? 0 : Vec<T>::kCount - head;
}

// The single elements before a span's first 16-byte boundary and after its last (fewer than a vector each), which
// cp.async cannot copy: loaded into registers as the copies are issued, stored to shared memory once they are waited
// for (the loads' latency hidden behind the tile in hand).
template <class T>
struct SpanEdges {
  T head, tail;
  int head_at = -1, tail_at = -1;  // where they go in the span, or -1 (no element for this thread)

  __device__ void store(T* to) const {
    if (head_at >= 0) to[head_at] = head;
    if (tail_at >= 0) to[tail_at] = tail;
  }
};

// Issues the copy of [0, count) of src to `to` (16-byte vectors where src's are on 16-byte boundaries; `to` is
// shifted so theirs are too, shared_shift) and returns this thread's edges.
template <class T>
__device__ __forceinline__ SpanEdges<T> issue_span(const T* __restrict__ src, T* to, std::int64_t count) {
  constexpr int kC = Vec<T>::kCount;
  const auto [head, vectors, tail_at] = pieces_of(src, count);
  for (std::int64_t i = threadIdx.x; i < vectors; i += kThreads)
    __pipeline_memcpy_async(to + head + i * kC, src + head + i * kC, 16);
  SpanEdges<T> edges;
  if (threadIdx.x < head) {
    edges.head_at = static_cast<int>(threadIdx.x);
    edges.head = src[threadIdx.x];
  }
  const std::int64_t tail = tail_at + threadIdx.x;
  if (tail < count) {
    edges.tail_at = static_cast<int>(tail);
    edges.tail = src[tail];
  }
  return edges;
}

// Copies the span [start, start + count) of x (with kAdd: x + residual rounded to T, which is also the second
// output and is written here) into shared memory at saved + shift, and returns the shift. Nothing is computed
// while loading; the block waits for the whole span. kAsync (a whole row of the shared_memory path, without kAdd):
// the 16-byte vectors are asynchronous copies (cp.async), all of a thread's in flight at once and none through
// registers. On an H100 (2026-11-24) that took a softmax over 50257 fp16 columns from 174 to 149 us and layer norm
// over 32000 fp32 columns from 207 to 193, but made the tiles of sums over one column 16% slower (85 -> 98 us), so
// tiles stage kInFlight vectors at a time through registers.
template <class T, bool kAdd, bool kAsync = false>
__device__ __forceinline__ std::int64_t load_span(const Rows<T>& a, T* saved, std::int64_t start, std::int64_t count) {
  const std::int64_t shift = shared_shift(a.x + start, count);
  if constexpr (kAsync && !kAdd) {
    const SpanEdges<T> edges = issue_span(a.x + start, saved + shift, count);
    __pipeline_commit();
    edges.store(saved + shift);
    __pipeline_wait_prior(0);
  } else {
    read_pieces<T, kAdd>(a.x + start, a.residual + start, count, threadIdx.x, kThreads,
                         [&](std::int64_t e, const auto& p) {
                           using P = std::decay_t<decltype(p)>;
                           store_whole(saved + shift + e, p);
                           if constexpr (kAdd) store_global(a.sum + start + e, p);
                         });
  }
  __syncthreads();
  return shift;
}

// The coefficients of a row of `cols` elements in shared memory (exact_coef), computed by the kGroup threads sharing
// it (lane: this thread's place among them): a block walks the row in 16-byte pieces (element by element, an fp16
// row took eight times the shared-memory loads), a group within a warp element by element (a tile's short rows).
// Every thread of the warp (kGroup <= 32) or block must call it; cols 0 for a thread without a row.
template <ReduceOp Op, int kGroup, class T>
__device__ __forceinline__ float2 shared_row_coef(const T* row, std::int64_t cols, int lane) {
  return exact_coef<Op, kGroup>(
      [&](auto&& f) {
        if constexpr (kGroup > 32) {
          each_piece(row, cols, lane, kGroup, [&](std::int64_t e, auto n) {
            using P = Piece<T, decltype(n)::value>;
            float v[P::kCount];
            widen(load_whole<P>(row + e), v);
            f(v);
          });
        } else {
          for (std::int64_t c = lane; c < cols; c += kGroup) {
            const float v[1] = {to_float(row[c])};
            f(v);
          }
        }
      },
      static_cast<float>(cols));
}

// shared_memory: a block per row; the row (x, or x + residual) is copied into shared memory, its statistics come
// from there, and it is written normalised from there. Registers bounded for 4 blocks a multiprocessor (64 a thread):
// the build measured on the H100 (2026-11-24).
template <ReduceOp Op, class T>
__global__ void __launch_bounds__(kThreads, 4) shared_row_kernel(Rows<T> a) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* saved = reinterpret_cast<T*>(shared_bytes);
  for (std::int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const std::int64_t start = r * a.cols;
    const T* row = saved + load_span<T, Norm<Op>::kAdd, true>(a, saved, start, a.cols);
    const float2 c = shared_row_coef<Op, kThreads>(row, a.cols, threadIdx.x);
    each_piece(a.out + start, a.cols, threadIdx.x, kThreads, [&](std::int64_t e, auto n) {
      using P = Piece<T, decltype(n)::value>;
      write_piece<Op, T, P::kCount, false>(load_whole<P>(row + e), c, a.gamma + e, a.beta + e, a.out,
                                           nullptr, start + e);
    });
    __syncthreads();  // the next row overwrites `saved`
  }
}

// sum, mean, max: the factor a row's state is multiplied by (`scale` of the kernels below): 1, or for mean the
// reciprocal of the column count, computed once on the host. A division per row cost mean over 7 bf16 columns
// 130.3 us against sum's 116.9 (H100, 2026-11-24: one lane of each row's group divides while the rest of the warp
// waits). Divided once per thread instead, sums (the same kernel as means) over 50257 fp32 columns went from 48.2 to
// 58.2 us and max's stayed at 48.1. The product differs from the quotient by at most about an ulp.
inline float value_scale(bool mean, std::int64_t cols) { return mean ? 1.0f / static_cast<float>(cols) : 1.0f; }

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
// registers padded as the register path pads them (pad_value), its passes unrolled over kMax. Walked element by
// element with the row's length known only at run time, a tile's softmax over 7 fp16 columns executed 12.4 warp
// instructions a row (57 a thread and element; H100 ncu, 2026-11-24); this way, 35.1 M instructions where it took
// 59.5 M, and 71.8 -> 51.4 us. gamma and beta come from L1 as the row is written: kept in registers for all rows
// (kMax each), they took layer norm to 80 registers a thread, 3 blocks a multiprocessor, and 68.6 us over 7 fp16
// columns, 59.2 from L1 (two calls).
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

// Tiles whose rows are a thread's own (normalise_own_row). The compiler's own register count: at most 4 or 3
// blocks a multiprocessor asked for (__launch_bounds__) cost 64 registers' spills or fewer rows in flight. Builds of
// each alternating in one call on an H100 (2026-11-24, 7 columns unless named; none, 3, 4): fp16 softmax 51.3, 58.6,
// 63.2 us; layer norm 59.2, 66.7, 70.1; fp32 layer norm 49.1, 52.5, 58.6; but fp16 softmax over 3 columns 62.0,
// 62.7, 55.9.
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

// ---- staged tiles: rows of tens to hundreds of elements that are not whole 16-byte vectors ----

// Read in place by their groups (the registers path), such rows load one element a lane a time: a warp over 31
// 2-byte columns has 256 bytes in flight, and the multiprocessor too few to cover memory's latency (softmax there
// stalled on loads 70% of its cycles, DRAM at 66%; H100 ncu, 2026-11-24). Staged, a block copies a tile of whole
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
// Add + layer norm with 8 lanes a row is held to 3 blocks a multiprocessor: since fccca27 ptxas took 88 registers
// for it (80 before), and at 2 blocks add + layer norm over 31 fp16 columns ran 142 us where fccca27 ran 111 (an
// H100, both builds alternating in one call, 2026-11-25). Held to 3 (80 registers, no spills), against no minimum
// in one call: fp16 142.0 -> 130.7 us, bf16 144.4 -> 132.2, fp32 232.3 -> 209.8; the rest of the gap to fccca27 is
// not the registers. The other kernels give 0 (no minimum: see cluster_min_blocks for why not 1).
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
  // gamma and beta element by element for 2-byte add + layer norm: as vectors, both builds alternating in one call
  // on an H100 (2026-11-24), fp16 over 262144 columns 215.3 us against 172.8, over 131072 196.9 against 180.4, bf16
  // over 262144 192.8 against 172.2; fp32 166.0 against 168.0, layer norm and add + RMSNorm level.
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

// rereads (the norms): a block of kBlock threads per row (grid-strided) reads it for its statistics (online, as it
// streams in), then reads it again and writes it normalised. The grid holds few rows at once (ReducePlan::blocks), so
// the second read finds them in L2; no shared memory, so the loads of one block overlap another's arithmetic.
// core/reduce_path.h has the measurements against the shared-memory path.
template <ReduceOp Op, class T, int kBlock>
__global__ void __launch_bounds__(kBlock, 1024 / kBlock) reread_row_kernel(Rows<T> a) {
  using M = Norm<Op>;
  for (std::int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const std::int64_t at = r * a.cols;
    typename M::State s;
    read_pieces<T, M::kAdd>(a.x + at, a.residual + at, a.cols, threadIdx.x, kBlock, [&](std::int64_t, const auto& p) {
      float v[std::decay_t<decltype(p)>::kCount];
      widen(p, v);
      s.add_chunk(v);
    });
    const float2 c = M::coef(group_reduce<kBlock>(s), static_cast<float>(a.cols));
    read_pieces<T, M::kAdd>(a.x + at, a.residual + at, a.cols, threadIdx.x, kBlock, [&](std::int64_t e, const auto& p) {
      write_piece<Op>(p, c, a.gamma + e, a.beta + e, a.out, a.sum, at + e);
    });
  }
}

// ---- sum, mean, max ----

// streaming: kGroup threads per row reduce as they read: whole 16-byte vectors (kVec: aligned rows), elements, or
// (kPieces) 16-byte vectors from each row's first 16-byte boundary on. The last pays some index arithmetic a row,
// which only long rows repay: on an H100 it took sums over 50257 columns from 32.3 to 28.4 us but sums over 7 columns
// from 118 to 182 us (2026-11-24); core::kStreamingPiecesMinCols says where it starts.
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
constexpr unsigned kSumAllBlocks = 1024;

template <class T, bool kVec>
__global__ void sum_all_partials_kernel(const T* __restrict__ x, float* __restrict__ partials, std::int64_t count) {
  Sum s;
  for_each_chunk<T, kVec>(x, count, blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x,
                          std::int64_t(gridDim.x) * blockDim.x, [&](const auto& v) { s.add_chunk(v); });
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

// ---- launchers ----

// Blocks for `work` items of `per_block` each: enough to fill an H100 many times over, the kernels loop past it.
inline unsigned grid_for(std::int64_t work, std::int64_t per_block) {
  const std::int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, core::kMaxGridBlocks)));
}

template <ReduceOp Op, class T, int kUnit>
void launch_registers(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  const std::int64_t per_block = kThreads / plan.group * plan.rows_in_flight;
  const unsigned blocks = plan.one_shot ? static_cast<unsigned>((a.rows + per_block - 1) / per_block)
                                        : grid_for(a.rows, per_block);
  const auto go = [&](auto kernel) { kernel<<<blocks, kThreads, 0, stream>>>(a); };
  if (plan.group == 1 && plan.cache == 1) go(registers_kernel<Op, T, kUnit, 1, 1>);
  else if (plan.group == 1) go(registers_kernel<Op, T, kUnit, 1, 4>);
  else if (plan.group == 8) go(registers_kernel<Op, T, kUnit, 8, 4>);
  else if (plan.group == 16 && plan.cache <= 4) go(registers_kernel<Op, T, kUnit, 16, 4>);
  else if (plan.group == 16) go(registers_kernel<Op, T, kUnit, 16, 8>);
  else if (plan.group == 32 && plan.cache <= 4) go(registers_kernel<Op, T, kUnit, 32, 4>);
  else if (plan.group == 32 && plan.cache <= 8) go(registers_kernel<Op, T, kUnit, 32, 8>);
  else if (plan.group == 32) go(registers_kernel<Op, T, kUnit, 32, 16>);
  else if (plan.cache <= 4) go(registers_kernel<Op, T, kUnit, kThreads, 4>);
  else if (plan.cache <= 8) go(registers_kernel<Op, T, kUnit, kThreads, 8>);
  else go(registers_kernel<Op, T, kUnit, kThreads, 16>);
}

// Raises a kernel's attribute to at least `value`, once per kernel, attribute and value (the first launch is the
// harness's verification, outside any capture, where setting it is allowed).
inline void raise_attribute(const void* kernel, cudaFuncAttribute attribute, int value) {
  struct Raised {
    const void* kernel;
    cudaFuncAttribute attribute;
    int value;
  };
  static std::vector<Raised> raised;
  for (const Raised& r : raised)
    if (r.kernel == kernel && r.attribute == attribute && r.value >= value) return;
  OPMARK_CHECK_CUDA(cudaFuncSetAttribute(kernel, attribute, value));
  raised.push_back({kernel, attribute, value});
}

// Lets `kernel` take `bytes` of dynamic shared memory (above 48 KiB a kernel must ask).
inline void allow_shared_bytes(const void* kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    raise_attribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

// A cluster of plan.cluster blocks a row (more than 8 is a non-portable cluster size, which the kernel must allow),
// at most grid_for's blocks, a whole number of clusters. Fewer clusters, each walking rows (a grid the GPU holds at
// once, so that each block keeps its columns of gamma and beta in L1), were slower, against a cluster a row in one
// process on an H100 (2026-11-25): fp32 layer norm over 50257 columns (7 blocks) 74.5 us, 86.1 with 37 clusters and
// 102.9 with 56; over 32000 (4 blocks) 63.4, 72.4 with 66 clusters; RMSNorm over 50257 57.7, 60.9 with 56; fp16 softmax
// over 131072 (8 blocks) 69.8, 78.2 with 33; fp32 add + layer norm over 50257 (13 blocks) 139.0, 135.4 with 40.
template <ReduceOp Op, class T>
void launch_cluster(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(plan.cluster);
  // 16 vectors a thread (one block a multiprocessor) lost everywhere (core/reduce_path.cpp): not compiled.
  const int cache = plan.cache <= 2 ? 2 : plan.cache <= 4 ? 4 : 8;
  if (plan.cache > 8) throw Error("reduce: the cluster path holds at most 8 vectors a thread, not " +
                                  std::to_string(plan.cache));
  if (plan.cluster < 1 || plan.cluster > core::kMostClusterBlocks ||
      std::int64_t{blocks} * kThreads * cache * Vec<T>::kCount < a.cols)
    throw Error("reduce: a cluster of " + std::to_string(plan.cluster) + " blocks with " + std::to_string(cache) +
                " vectors a thread does not hold a row of " + std::to_string(a.cols) + " columns");
  const auto go = [&](auto kernel) {
    if (blocks > 8)
      raise_attribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchConfig_t config{};
    const std::int64_t clusters =
        std::min<std::int64_t>(a.rows, std::max<std::int64_t>(1, grid_for(a.rows * blocks, 1) / blocks));
    config.gridDim = dim3(static_cast<unsigned>(clusters * blocks));
    config.blockDim = dim3(kThreads);
    config.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = blocks;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    OPMARK_CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, a));
  };
  if (cache == 2) go(cluster_row_kernel<Op, T, 2>);
  else if (cache == 4) go(cluster_row_kernel<Op, T, 4>);
  else go(cluster_row_kernel<Op, T, 8>);
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

// Staged tiles' shared memory: `regions` (x, and the residual's for the residual ops) of tile_rows rows for each
// buffer, two buffers where blocks walk more than one tile (the next one's copies in flight), else one (a grid of a
// block a tile: every 64 MiB tensor of the sweep on an H100), which leaves room for more blocks a multiprocessor.
// Both ways in one call on an H100 (2026-11-24, one buffer -> two): bf16 add + layer norm over 97 columns 102.4 ->
// 109.7 us; fp16 softmax, layer norm, RMSNorm and the residual ops over 31 to 197 columns within 0.6%; sums over 97
// and 197 fp16 columns 26.4 -> 25.9 (more blocks a multiprocessor, 2% slower there).
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

// The packed path's launch: a thread for each kInFlight vectors (at least one block: block 0 takes the tail rows);
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

template <ReduceOp Op, class T>
void launch_normalise(const ReducePlan& plan, const Rows<T>& a, void* workspace, cudaStream_t stream) {
  using State = typename Norm<Op>::State;
  switch (plan.path) {
    case ReducePath::registers:
      if (plan.vectorised) launch_registers<Op, T, Vec<T>::kCount>(plan, a, stream);
      else launch_registers<Op, T, 1>(plan, a, stream);
      return;
    case ReducePath::shared_memory: {
      // The row plus a vector's room for the alignment shift.
      const std::size_t bytes = static_cast<std::size_t>(a.cols + Vec<T>::kCount) * sizeof(T);
      allow_shared_bytes(reinterpret_cast<const void*>(shared_row_kernel<Op, T>), bytes);
      shared_row_kernel<Op, T><<<grid_for(a.rows, 1), kThreads, bytes, stream>>>(a);
      return;
    }
    case ReducePath::rereads:
      reread_row_kernel<Op, T, core::kRereadThreads>
          <<<static_cast<unsigned>(plan.blocks), core::kRereadThreads, 0, stream>>>(a);
      return;
    case ReducePath::tile: return launch_tile_normalise<Op, T>(plan, a, stream);
    case ReducePath::cluster: return launch_cluster<Op, T>(plan, a, stream);
    case ReducePath::packed:
      return with_packed_cols<T>(a.cols, [&](auto cols) {
        packed_normalise_kernel<Op, T, decltype(cols)::value><<<packed_blocks(a), kThreads, 0, stream>>>(a);
      });
    case ReducePath::two_pass: {
      auto* partials = static_cast<State*>(workspace);
      const unsigned blocks = grid_for(a.rows * plan.splits, 1);
      slice_state_kernel<State, T, Norm<Op>::kAdd><<<blocks, kThreads, 0, stream>>>(a, plan.splits, partials);
      OPMARK_CHECK_LAUNCH();
      slice_normalise_kernel<Op, T><<<blocks, kThreads, 0, stream>>>(a, plan.splits, partials);
      return;
    }
    default: throw Error("reduce: a normalising op has no plan '" + plan.label + "'");
  }
}

template <class S, class T, bool kVec, bool kPieces>
void launch_streaming(const ReducePlan& plan, const Rows<T>& a, float scale, cudaStream_t stream) {
  const unsigned blocks = grid_for(a.rows, kThreads / plan.group);
  if (plan.group == 1) streaming_kernel<S, T, 1, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else if (plan.group == 8) streaming_kernel<S, T, 8, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else if (plan.group == 32) streaming_kernel<S, T, 32, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
  else streaming_kernel<S, T, kThreads, kVec, kPieces><<<blocks, kThreads, 0, stream>>>(a, scale);
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

template <class S, class T>
void launch_row_reduce(const ReducePlan& plan, const Rows<T>& a, bool mean, void* workspace, cudaStream_t stream) {
  const float scale = value_scale(mean, a.cols);
  if (plan.path == ReducePath::split_rows) {
    auto* partials = static_cast<S*>(workspace);
    slice_state_kernel<S, T, false><<<grid_for(a.rows * plan.splits, 1), kThreads, 0, stream>>>(a, plan.splits,
                                                                                                 partials);
    OPMARK_CHECK_LAUNCH();
    combine_slices_kernel<S, T><<<grid_for(a.rows, kThreads), kThreads, 0, stream>>>(a, plan.splits, partials, scale);
    return;
  }
  if (plan.path == ReducePath::tile) return launch_tile_reduce<S, T>(plan, a, scale, stream);
  if (plan.path == ReducePath::packed)
    return with_packed_cols<T>(a.cols, [&](auto cols) {
      packed_reduce_kernel<S, T, decltype(cols)::value><<<packed_blocks(a), kThreads, 0, stream>>>(a, scale);
    });
  if (plan.vectorised) launch_streaming<S, T, true, false>(plan, a, scale, stream);
  else if (core::streaming_reads_pieces(plan, a.cols)) launch_streaming<S, T, false, true>(plan, a, scale, stream);
  else launch_streaming<S, T, false, false>(plan, a, scale, stream);
}

}  // namespace reduce_detail

template <class T>
void launch_reduce_typed(ReduceOp op, const core::ReducePlan& plan, const ReduceTensors& t, std::int64_t rows,
                         std::int64_t cols, cudaStream_t stream) {
  using namespace reduce_detail;
  const std::int64_t n = rows * cols;
  T* out = static_cast<T*>(t.out);
  const bool adds = op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm;
  const Rows<T> a{static_cast<const T*>(t.x),     static_cast<const T*>(t.residual),
                  static_cast<const T*>(t.gamma), static_cast<const T*>(t.beta),
                  out,                            adds ? out + reduce_sum_offset(rows, cols) : nullptr,
                  rows,                           cols};
  switch (op) {
    case ReduceOp::sum: launch_row_reduce<Sum>(plan, a, false, t.workspace, stream); break;
    case ReduceOp::mean: launch_row_reduce<Sum>(plan, a, true, t.workspace, stream); break;
    case ReduceOp::max: launch_row_reduce<Max>(plan, a, false, t.workspace, stream); break;
    case ReduceOp::sum_all: {
      auto* partials = static_cast<float*>(t.workspace);
      if (plan.vectorised) sum_all_partials_kernel<T, true><<<kSumAllBlocks, kThreads, 0, stream>>>(a.x, partials, n);
      else sum_all_partials_kernel<T, false><<<kSumAllBlocks, kThreads, 0, stream>>>(a.x, partials, n);
      OPMARK_CHECK_LAUNCH();
      sum_all_final_kernel<T><<<1, kThreads, 0, stream>>>(partials, kSumAllBlocks, out);
      break;
    }
    case ReduceOp::softmax: launch_normalise<ReduceOp::softmax>(plan, a, t.workspace, stream); break;
    case ReduceOp::log_softmax: launch_normalise<ReduceOp::log_softmax>(plan, a, t.workspace, stream); break;
    case ReduceOp::layernorm: launch_normalise<ReduceOp::layernorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::rmsnorm: launch_normalise<ReduceOp::rmsnorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::add_layernorm: launch_normalise<ReduceOp::add_layernorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::add_rmsnorm: launch_normalise<ReduceOp::add_rmsnorm>(plan, a, t.workspace, stream); break;
  }
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
