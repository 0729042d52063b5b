#pragma once
// What every path of the reduce kernels shares: the typed tensors of a launch, 16-byte pieces and how they move
// through memory, walks over a row in pieces, and the launchers' grid and attribute helpers.
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

namespace opmark::kernels::reduce_detail {

using core::ReducePath;
using core::ReducePlan;

static_assert(kThreads == core::kReduceBlockThreads, "the plan's block size is the kernels'");

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

// Pieces move through memory as one word of their size: copied as structs, pieces of __half were split member by
// member, eight 2-byte accesses where one 16-byte access was meant.
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
// Single elements stay plain loads: through __ldg each computed its own address.
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

// Pairs of 16-bit values handled as 32-bit words: bf16 element by element, ptxas kept every bf16 in a register of its
// own (half the blocks a multiprocessor); fp16 element by element, a narrowed vector was stored as four pairs, not one
// 16-byte store, wherever the store was not next to its load.
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
    // after them (loaded in three rounds, rows of a few vectors paid three trips to memory).
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

// Blocks for `work` items of `per_block` each, at most core::kMaxGridBlocks: the kernels loop past the grid.
inline unsigned grid_for(std::int64_t work, std::int64_t per_block) {
  const std::int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, core::kMaxGridBlocks)));
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

}  // namespace opmark::kernels::reduce_detail
