#pragma once
// A warp's copy of a span of 2- or 4-byte elements at any alignment in 16-byte vectors: the gather's rows and the
// permute's runs whose length or start is no whole number of vectors. Element-wide units there leave a lane 8 or 16
// bytes in flight, short of the copy bandwidth.
#include <cstdint>

#include "kernels/vec.cuh"

namespace opmark::kernels {

// Blocks of 256 threads a multiprocessor that a kernel calling warp_copy_span asks for (__launch_bounds__): 80
// registers a thread, no spills. Two blocks (the 90 registers it takes unbounded) keep too few bytes in flight.
constexpr int kSpanBlocksPerSm = 3;

// Bytes [offset, offset + 16) of the 32 bytes lo:hi (offset even): the words shifted by offset / 4 in two selects
// (by 2, by 1), then joined in pairs by a funnel shift. One code path for every offset keeps the registers low.
__device__ __forceinline__ uint4 join_vectors(const uint4& lo, const uint4& hi, int offset) {
  unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const bool by2 = offset & 8, by1 = offset & 4;
#pragma unroll
  for (int i = 0; i < 6; ++i) w[i] = by2 ? w[i + 2] : w[i];
#pragma unroll
  for (int i = 0; i < 5; ++i) w[i] = by1 ? w[i + 1] : w[i];
  const unsigned bits = static_cast<unsigned>(offset % 4) * 8;
  return make_uint4(__funnelshift_r(w[0], w[1], bits), __funnelshift_r(w[1], w[2], bits),
                    __funnelshift_r(w[2], w[3], bits), __funnelshift_r(w[3], w[4], bits));
}

// v from the lane after this one (lane 31: from lane 0).
__device__ __forceinline__ uint4 from_next_lane(const uint4& v, int lane) {
  const int next = (lane + 1) % 32;
  return make_uint4(__shfl_sync(0xffffffffu, v.x, next), __shfl_sync(0xffffffffu, v.y, next),
                    __shfl_sync(0xffffffffu, v.z, next), __shfl_sync(0xffffffffu, v.w, next));
}

// The warp copies count elements E (2 or 4 bytes) from src to dst (this is lane `lane`; every lane calls it). The
// first elements alone up to dst's 16-byte boundary; then whole destination vectors, each joined from the two aligned
// source vectors it straddles (the second from the next lane), kInFlight a lane loaded before any is stored; the last
// few elements alone. An aligned source vector holding a span element is read whole, bytes past the span included.
template <class E>
__device__ __forceinline__ void warp_copy_span(const E* __restrict__ src, E* __restrict__ dst, std::int64_t count,
                                               int lane) {
  static_assert(sizeof(E) == 2 || sizeof(E) == 4, "2- or 4-byte elements");
  constexpr std::int64_t kPerVector = 16 / sizeof(E);
  const std::int64_t to_boundary = (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16 / sizeof(E);
  const std::int64_t head = count < to_boundary ? count : to_boundary;
  if (lane < head) dst[lane] = src[lane];
  src += head;
  dst += head;
  count -= head;
  const std::int64_t vectors = count / kPerVector;
  const int offset = static_cast<int>(reinterpret_cast<std::uintptr_t>(src) % 16);
  const auto* from = reinterpret_cast<const uint4*>(reinterpret_cast<const unsigned char*>(src) - offset);
  auto* to = reinterpret_cast<uint4*>(dst);
  if (offset == 0) {
    warp_copy<uint4>(from, to, vectors, lane);
  } else {
    // Destination vector i joins source vectors i and i + 1 (vector `vectors` holds the span's last bytes). Lane x
    // holds vectors base + x + 32 q; lane 31's second is lane 0's of the next q, and lane 0 loads one past the last q.
    for (std::int64_t base = 0; base < vectors; base += 32 * kInFlight) {
      const uint4* f = from + base + lane;
      uint4* t = to + base + lane;
      const std::int64_t ahead = vectors - base - lane;  // f[32 q] is a destination vector's while 32 q < ahead
      uint4 v[kInFlight + 1];
#pragma unroll
      for (int q = 0; q <= kInFlight; ++q)
        v[q] = (q < kInFlight || lane == 0) && 32 * q <= ahead ? f[32 * q] : make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int q = 0; q < kInFlight; ++q) {
        const uint4 hi = from_next_lane(lane == 0 ? v[q + 1] : v[q], lane);
        if (32 * q < ahead) t[32 * q] = join_vectors(v[q], hi, offset);
      }
    }
  }
  for (std::int64_t e = vectors * kPerVector + lane; e < count; e += 32) dst[e] = src[e];
}

}  // namespace opmark::kernels
