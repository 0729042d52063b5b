#include "kernels/permute.h"

#include <algorithm>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kCopyThreads = 256;
constexpr int kTile = 32, kTileRows = 8;  // a 32 x 32 tile, moved by 32 x 8 threads

struct alignas(16) Bytes16 {
  unsigned int v[4];
};

// inner > 1: thread per output unit (kInFlight of them, loads first), the source found by dividing the output index.
template <class U>
__global__ void move_rows_kernel(const U* __restrict__ in, U* __restrict__ out, std::int64_t a, std::int64_t b,
                                 std::int64_t inner_units, std::int64_t total) {
  const std::int64_t step = std::int64_t(gridDim.x) * kCopyThreads * kInFlight;
  for (std::int64_t base = std::int64_t(blockIdx.x) * kCopyThreads * kInFlight + threadIdx.x; base < total;
       base += step) {
    U v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const std::int64_t o = base + u * kCopyThreads;
      if (o >= total) break;
      // o = ((n b + j) a + i) inner_units + k  ->  source ((n a + i) b + j) inner_units + k
      const std::int64_t k = o % inner_units, t = o / inner_units;
      const std::int64_t i = t % a, t2 = t / a;
      const std::int64_t j = t2 % b, n = t2 / b;
      v[u] = in[((n * a + i) * b + j) * inner_units + k];
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const std::int64_t o = base + u * kCopyThreads;
      if (o >= total) break;
      out[o] = v[u];
    }
  }
}

// inner == 1: a batch of a x b matrices transposed, one 32 x 32 tile per block at a time; the tile's padding column
// keeps the column reads of shared memory free of bank conflicts.
template <class E>
__global__ void transpose_tiles_kernel(const E* __restrict__ in, E* __restrict__ out, std::int64_t batch,
                                       std::int64_t a, std::int64_t b) {
  __shared__ E tile[kTile][kTile + 1];
  const std::int64_t tiles_a = (a + kTile - 1) / kTile;
  for (std::int64_t n = blockIdx.z; n < batch; n += gridDim.z)
    for (std::int64_t ta = blockIdx.y; ta < tiles_a; ta += gridDim.y) {
      const std::int64_t i0 = ta * kTile, j0 = std::int64_t(blockIdx.x) * kTile;
      const E* src = in + n * a * b;
      E* dst = out + n * a * b;
      for (int r = threadIdx.y; r < kTile; r += kTileRows) {
        const std::int64_t i = i0 + r, j = j0 + threadIdx.x;
        if (i < a && j < b) tile[r][threadIdx.x] = src[i * b + j];
      }
      __syncthreads();
      for (int r = threadIdx.y; r < kTile; r += kTileRows) {
        const std::int64_t j = j0 + r, i = i0 + threadIdx.x;
        if (i < a && j < b) dst[j * a + i] = tile[threadIdx.x][r];
      }
      __syncthreads();  // the tile is refilled next
    }
}

template <class U>
void launch_rows(const core::PermuteView& v, const void* in, void* out, std::int64_t inner_units,
                 cudaStream_t stream) {
  const std::int64_t total = v.batch * v.a * v.b * inner_units;
  const std::int64_t per_block = std::int64_t(kCopyThreads) * kInFlight;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((total + per_block - 1) / per_block, core::kMaxGridBlocks));
  move_rows_kernel<U><<<blocks, kCopyThreads, 0, stream>>>(static_cast<const U*>(in), static_cast<U*>(out), v.a, v.b,
                                                           inner_units, total);
}

template <class E>
void launch_tiles(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const std::int64_t tiles_a = (v.a + kTile - 1) / kTile, tiles_b = (v.b + kTile - 1) / kTile;
  if (tiles_b > 0x7fffffff) throw Error("permute: too many tiles along the moved dimension");
  const dim3 grid(static_cast<unsigned>(tiles_b), static_cast<unsigned>(std::min<std::int64_t>(tiles_a, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(v.batch, 65535)));
  transpose_tiles_kernel<E><<<grid, dim3(kTile, kTileRows), 0, stream>>>(static_cast<const E*>(in),
                                                                         static_cast<E*>(out), v.batch, v.a, v.b);
}

}  // namespace

void launch_permute(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                    cudaStream_t stream) {
  if (v.batch * v.a * v.b * v.inner == 0) return;
  if (elem_bytes != 2 && elem_bytes != 4)
    throw Error("permute moves 2- or 4-byte elements, not " + std::to_string(elem_bytes));
  const std::int64_t per_vector = 16 / static_cast<std::int64_t>(elem_bytes);
  if (!v.moves_innermost()) {
    if (v.inner % per_vector == 0 && aligned16(in) && aligned16(out))
      launch_rows<Bytes16>(v, in, out, v.inner / per_vector, stream);
    else if (elem_bytes == 4) launch_rows<unsigned int>(v, in, out, v.inner, stream);
    else launch_rows<unsigned short>(v, in, out, v.inner, stream);
  } else if (elem_bytes == 4) {
    launch_tiles<unsigned int>(v, in, out, stream);
  } else {
    launch_tiles<unsigned short>(v, in, out, stream);
  }
  OPMARK_CHECK_LAUNCH();
}

std::vector<double> permute_reference(const core::PermuteView& v, const std::vector<double>& in) {
  std::vector<double> out(in.size());
  const auto sz = [](std::int64_t x) { return static_cast<std::size_t>(x); };
  for (std::size_t n = 0; n < sz(v.batch); ++n)
    for (std::size_t i = 0; i < sz(v.a); ++i)
      for (std::size_t j = 0; j < sz(v.b); ++j)
        for (std::size_t k = 0; k < sz(v.inner); ++k)
          out[((n * sz(v.b) + j) * sz(v.a) + i) * sz(v.inner) + k] = in[((n * sz(v.a) + i) * sz(v.b) + j) * sz(v.inner) + k];
  return out;
}

}  // namespace opmark::kernels
