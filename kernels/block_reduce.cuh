#pragma once
// Block-wide reductions for kernels of 256 threads: partial states (a sum, a max, softmax's running max and sum of
// exponentials, Welford's mean and variance), how two combine, and the block's combined state. Shared by the
// reduce and batch-norm kernels.
#include <cfloat>

namespace opmark::kernels {

constexpr unsigned kThreads = 256;
constexpr unsigned kWarps = kThreads / 32;

// Partial states and how two combine: a sum, a max, softmax's (max, sum of exp(x - max)) and Welford's
// (count, mean, sum of squared deviations).
struct Sum {
  float v = 0.0f;
  __device__ void add(float x) { v += x; }
  __device__ static Sum combine(Sum a, Sum b) { return {a.v + b.v}; }
  __device__ Sum shuffled(int offset) const { return {__shfl_xor_sync(0xffffffffu, v, offset)}; }
};
struct Max {
  float v = -FLT_MAX;
  __device__ void add(float x) { v = fmaxf(v, x); }
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

// Combines one state per thread (blockDim.x == kThreads) into the block's state, returned to every thread.
template <class S>
__device__ S block_reduce(S s) {
  // Raw storage: shared memory is never constructed, and the states have default member initializers.
  __shared__ alignas(S) unsigned char warp_storage[sizeof(S) * kWarps];
  __shared__ alignas(S) unsigned char result_storage[sizeof(S)];
  S* warp_states = reinterpret_cast<S*>(warp_storage);
  S& result = *reinterpret_cast<S*>(result_storage);
  for (int offset = 16; offset > 0; offset /= 2) s = S::combine(s, s.shuffled(offset));
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_states[warp] = s;
  __syncthreads();
  if (warp == 0) {
    S w = lane < kWarps ? warp_states[lane] : S{};
    for (int offset = 16; offset > 0; offset /= 2) w = S::combine(w, w.shuffled(offset));
    if (lane == 0) result = w;
  }
  __syncthreads();
  const S out = result;
  __syncthreads();  // `result` is reused by the next row
  return out;
}

}  // namespace opmark::kernels
