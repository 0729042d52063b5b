#pragma once
// 16-byte vector loads and stores for the bandwidth-bound kernels (pointwise, reduce, batch norm). Full bandwidth on
// Hopper needs wide accesses and several of them in flight per thread, so the walkers below issue kInFlight loads
// before using any of them.
#include <cstdint>

#include "kernels/convert.cuh"

namespace opmark::kernels {

// One 16-byte vector of T.
template <class T>
struct alignas(16) Vec {
  static constexpr int kCount = 16 / sizeof(T);
  T v[kCount];
};

// One T, for walks whose shape or alignment rules vectors out.
template <class T>
struct Scalar {
  static constexpr int kCount = 1;
  T v[1];
};

constexpr int kInFlight = 4;

inline bool aligned16(const void* p) { return p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Whether a row-major rows x cols tensor at p can be walked row by row in whole vectors of T.
template <class T>
bool rows_vectorisable(const void* p, std::int64_t cols) {
  return aligned16(p) && cols % Vec<T>::kCount == 0;
}

// Hands f the values of in[0, count) that this thread owns (indices lane, lane + step, ... in units of vectors when
// kVectorised, of elements otherwise), widened to float, as arrays (f takes `const auto&` to a float[N]).
template <class T, bool kVectorised, class F>
__device__ __forceinline__ void for_each_chunk(const T* __restrict__ in, std::int64_t count, std::int64_t lane,
                                               std::int64_t step, F&& f) {
  if constexpr (kVectorised) {
    using V = Vec<T>;
    const V* iv = reinterpret_cast<const V*>(in);
    const std::int64_t n = count / V::kCount;
    std::int64_t i = lane;
    for (; i + (kInFlight - 1) * step < n; i += kInFlight * step) {
      V a[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) a[u] = iv[i + u * step];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        float v[V::kCount];
#pragma unroll
        for (int k = 0; k < V::kCount; ++k) v[k] = to_float(a[u].v[k]);
        f(v);
      }
    }
    for (; i < n; i += step) {
      const V a = iv[i];
      float v[V::kCount];
#pragma unroll
      for (int k = 0; k < V::kCount; ++k) v[k] = to_float(a.v[k]);
      f(v);
    }
  } else {
    std::int64_t i = lane;
    for (; i + (kInFlight - 1) * step < count; i += kInFlight * step) {
      float v[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) v[u] = to_float(in[i + u * step]);
      f(v);
    }
    for (; i < count; i += step) {
      const float v[1] = {to_float(in[i])};
      f(v);
    }
  }
}

// A warp copies `units` units from src to dst (this is lane `lane` of it), kInFlight units a lane loaded before any
// is stored.
template <class U>
__device__ __forceinline__ void warp_copy(const U* __restrict__ src, U* __restrict__ dst, std::int64_t units,
                                          int lane) {
  for (std::int64_t u0 = lane; u0 < units; u0 += 32 * kInFlight) {
    U v[kInFlight];
#pragma unroll
    for (int q = 0; q < kInFlight; ++q)
      if (u0 + q * 32 < units) v[q] = src[u0 + q * 32];
#pragma unroll
    for (int q = 0; q < kInFlight; ++q)
      if (u0 + q * 32 < units) dst[u0 + q * 32] = v[q];
  }
}

// out[i] = f(in[i], a[i], b[i]) over the elements of [0, count) this thread owns, as in for_each_chunk; a and b are
// optional per-element operands (nullptr: f gets 0).
template <class T, bool kVectorised, class F>
__device__ __forceinline__ void map_elements(const T* __restrict__ in, const T* __restrict__ a, const T* __restrict__ b,
                                             T* __restrict__ out, std::int64_t count, std::int64_t lane,
                                             std::int64_t step, F&& f) {
  if constexpr (kVectorised) {
    using V = Vec<T>;
    const std::int64_t n = count / V::kCount;
    const V* iv = reinterpret_cast<const V*>(in);
    const V* av = reinterpret_cast<const V*>(a);
    const V* bv = reinterpret_cast<const V*>(b);
    V* ov = reinterpret_cast<V*>(out);
    for (std::int64_t i = lane; i < n; i += kInFlight * step) {
      V x[kInFlight], y[kInFlight], z[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const std::int64_t j = i + u * step;
        if (j < n) {
          x[u] = iv[j];
          if (a) y[u] = av[j];
          if (b) z[u] = bv[j];
        }
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const std::int64_t j = i + u * step;
        if (j >= n) break;
        V r;
#pragma unroll
        for (int k = 0; k < V::kCount; ++k)
          r.v[k] = from_float<T>(f(to_float(x[u].v[k]), a ? to_float(y[u].v[k]) : 0.0f,
                                   b ? to_float(z[u].v[k]) : 0.0f));
        ov[j] = r;
      }
    }
  } else {
    for (std::int64_t i = lane; i < count; i += step)
      out[i] = from_float<T>(f(to_float(in[i]), a ? to_float(a[i]) : 0.0f, b ? to_float(b[i]) : 0.0f));
  }
}

}  // namespace opmark::kernels
