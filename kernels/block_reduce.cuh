#pragma once
// Block-wide reductions (blocks of 256 threads unless a kernel names its own size): partial states (a sum, a max,
// softmax's running max and sum of exponentials, Welford's mean and variance), how two combine, and the block's
// combined state. Shared by the reduce and batch-norm kernels.
#include <cfloat>

namespace opmark::kernels {

constexpr unsigned kThreads = 256;  // core::kReduceBlockThreads: the reduce plan counts on it

// Partial states and how two combine: a sum, a max, softmax's (max, sum of exp(x - max)) and Welford's
// (count, mean, sum of squared deviations). add_chunk folds in a small array at once (a loaded vector), so the
// costly steps (softmax's rescale, Welford's division) happen once per chunk instead of once per element.
struct Sum {
  float v = 0.0f;
  __device__ void add(float x) { v += x; }
  template <int N>
  __device__ void add_chunk(const float (&x)[N]) {
#pragma unroll
    for (int k = 0; k < N; ++k) v += x[k];
  }
  __device__ static Sum combine(Sum a, Sum b) { return {a.v + b.v}; }
  __device__ Sum shuffled(int offset) const { return {__shfl_xor_sync(0xffffffffu, v, offset)}; }
};
struct Max {
  float v = -FLT_MAX;
  __device__ void add(float x) { v = fmaxf(v, x); }
  template <int N>
  __device__ void add_chunk(const float (&x)[N]) {
#pragma unroll
    for (int k = 0; k < N; ++k) v = fmaxf(v, x[k]);
  }
  __device__ static Max combine(Max a, Max b) { return {fmaxf(a.v, b.v)}; }
  __device__ Max shuffled(int offset) const { return {__shfl_xor_sync(0xffffffffu, v, offset)}; }
};
struct SoftmaxState {
  float m = -FLT_MAX, s = 0.0f;
  __device__ void add(float x) {
    const float nm = fmaxf(m, x);
    s = s * __expf(m - nm) + __expf(x - nm);
    m = nm;
  }
  template <int N>
  __device__ void add_chunk(const float (&x)[N]) {
    float cm = x[0];
#pragma unroll
    for (int k = 1; k < N; ++k) cm = fmaxf(cm, x[k]);
    const float nm = fmaxf(m, cm);
    float cs = 0.0f;
#pragma unroll
    for (int k = 0; k < N; ++k) cs += __expf(x[k] - nm);
    s = s * __expf(m - nm) + cs;  // m = -FLT_MAX at first: the old sum (0) is scaled by exp(-huge) = 0
    m = nm;
  }
  __device__ static SoftmaxState combine(SoftmaxState a, SoftmaxState b) {
    const float nm = fmaxf(a.m, b.m);
    if (nm == -FLT_MAX) return a;
    return {nm, a.s * __expf(a.m - nm) + b.s * __expf(b.m - nm)};
  }
  __device__ SoftmaxState shuffled(int offset) const {
    return {__shfl_xor_sync(0xffffffffu, m, offset), __shfl_xor_sync(0xffffffffu, s, offset)};
  }
};
struct Welford {
  float n = 0.0f, mean = 0.0f, m2 = 0.0f;
  __device__ void add(float x) {
    n += 1.0f;
    const float d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  template <int N>
  __device__ void add_chunk(const float (&x)[N]) {
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < N; ++k) sum += x[k];
    const float cm = sum * (1.0f / N);
    float cm2 = 0.0f;
#pragma unroll
    for (int k = 0; k < N; ++k) cm2 += (x[k] - cm) * (x[k] - cm);
    *this = combine(*this, Welford{static_cast<float>(N), cm, cm2});
  }
  __device__ static Welford combine(Welford a, Welford b) {
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float d = b.mean - a.mean;
    return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
  }
  __device__ Welford shuffled(int offset) const {
    return {__shfl_xor_sync(0xffffffffu, n, offset), __shfl_xor_sync(0xffffffffu, mean, offset),
            __shfl_xor_sync(0xffffffffu, m2, offset)};
  }
};

// RMSNorm's statistic: the sum of squares.
struct SumSquares {
  float v = 0.0f;
  __device__ void add(float x) { v += x * x; }
  template <int N>
  __device__ void add_chunk(const float (&x)[N]) {
#pragma unroll
    for (int k = 0; k < N; ++k) v += x[k] * x[k];
  }
  __device__ static SumSquares combine(SumSquares a, SumSquares b) { return {a.v + b.v}; }
  __device__ SumSquares shuffled(int offset) const { return {__shfl_xor_sync(0xffffffffu, v, offset)}; }
};

// Combines the 32 states of a warp, returned to every lane.
template <class S>
__device__ S warp_reduce(S s) {
  for (int offset = 16; offset > 0; offset /= 2) s = S::combine(s, s.shuffled(offset));
  return s;
}

// The block's state from one state per thread (blockDim.x == kBlock, a multiple of 32 up to 1024), in warp 0 only
// (the other warps get their own warp's): each warp combines its 32, then warp 0 combines the warps'. The caller
// broadcasts it (block_reduce_of) or sends it to other blocks (cluster_push_reduce). The next call writes the warps'
// states again: every thread must be past warp 0's reads of them by then (a __syncthreads, or a wait that follows
// warp 0's use of its result).
template <unsigned kBlock, class S>
__device__ S block_state_in_warp0(S s) {
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "whole warps, at most 32 of them");
  constexpr unsigned kBlockWarps = kBlock / 32;
  // Raw storage: shared memory is never constructed, and the states have default member initializers.
  __shared__ alignas(S) unsigned char warp_storage[sizeof(S) * kBlockWarps];
  S* warp_states = reinterpret_cast<S*>(warp_storage);
  s = warp_reduce(s);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_states[warp] = s;
  __syncthreads();
  if (warp == 0) s = warp_reduce(lane < kBlockWarps ? warp_states[lane] : S{});
  return s;
}

// Combines one state per thread (blockDim.x == kBlock) into the block's state, returned to every thread.
template <unsigned kBlock, class S>
__device__ S block_reduce_of(S s) {
  __shared__ alignas(S) unsigned char result_storage[sizeof(S)];
  S& result = *reinterpret_cast<S*>(result_storage);
  s = block_state_in_warp0<kBlock>(s);
  if (threadIdx.x == 0) result = s;
  __syncthreads();
  const S out = result;
  __syncthreads();  // `result` (and the warps' states) are reused by the next row
  return out;
}

// The same for blocks of kThreads.
template <class S>
__device__ S block_reduce(S s) {
  return block_reduce_of<kThreads>(s);
}

}  // namespace opmark::kernels
