#include "kernels/gather.h"

#include <algorithm>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/span_copy.cuh"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kGatherThreads = 256;

struct alignas(16) Bytes16 {
  unsigned int v[4];
};

// A warp per looked-up row (rows are hidden sizes: hundreds to thousands of elements). U: 16 bytes, kInFlight units
// per lane loaded before any is stored; or the element, for rows that are no whole number of vectors (or tensors not
// aligned to one), each row in destination-aligned vectors all the same (warp_copy_span).
template <class U>
__global__ void __launch_bounds__(kGatherThreads, sizeof(U) == 16 ? 1 : kSpanBlocksPerSm)
    gather_kernel(const U* __restrict__ table, const std::int64_t* __restrict__ indices, U* __restrict__ out,
                  std::int64_t rows, std::int64_t units) {
  constexpr std::int64_t kWarpsPerBlock = kGatherThreads / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (std::int64_t r = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32; r < rows; r += gridDim.x * kWarpsPerBlock) {
    if constexpr (sizeof(U) == 16) warp_copy(table + indices[r] * units, out + r * units, units, lane);
    else warp_copy_span(table + indices[r] * units, out + r * units, units, lane);
  }
}

// A thread per output unit, kInFlight of them a thread (loads first); 32-bit indices where the output allows.
template <class U, class I>
__global__ void gather_units_kernel(const U* __restrict__ table, const std::int64_t* __restrict__ indices,
                                    U* __restrict__ out, I units, I total) {
  const I step = static_cast<I>(gridDim.x) * kGatherThreads * kInFlight;
  for (I base = static_cast<I>(blockIdx.x) * kGatherThreads * kInFlight + threadIdx.x; base < total; base += step) {
    U a[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const I o = base + u * kGatherThreads;
      if (o < total) a[u] = table[static_cast<std::int64_t>(indices[o / units]) * units + o % units];
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const I o = base + u * kGatherThreads;
      if (o < total) out[o] = a[u];
    }
  }
}

template <class U>
void launch_units(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t units,
                  GatherPath path, cudaStream_t stream) {
  const auto* t = static_cast<const U*>(table);
  auto* o = static_cast<U*>(out);
  if (path == GatherPath::thread_per_unit) {
    const std::int64_t total = rows * units, per_block = std::int64_t{kGatherThreads} * kInFlight;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((total + per_block - 1) / per_block,
                                                                     core::kMaxGridBlocks));
    if (total < (std::int64_t{1} << 31))
      gather_units_kernel<U, unsigned><<<blocks, kGatherThreads, 0, stream>>>(
          t, indices, o, static_cast<unsigned>(units), static_cast<unsigned>(total));
    else
      gather_units_kernel<U, std::int64_t><<<blocks, kGatherThreads, 0, stream>>>(t, indices, o, units, total);
    return;
  }
  constexpr std::int64_t kWarpsPerBlock = kGatherThreads / 32;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, core::kMaxGridBlocks));
  gather_kernel<U><<<blocks, kGatherThreads, 0, stream>>>(t, indices, o, rows, units);
}

}  // namespace

std::vector<GatherPath> gather_paths() { return {GatherPath::warp_per_row, GatherPath::thread_per_unit}; }

std::string gather_path_name(GatherPath path) {
  return path == GatherPath::warp_per_row ? "path: a warp per looked-up row" : "path: a thread per output unit";
}

void launch_gather(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t cols,
                   std::size_t elem_bytes, cudaStream_t stream, GatherPath path) {
  if (rows == 0) return;
  const std::int64_t per_vector = 16 / static_cast<std::int64_t>(elem_bytes);
  if (cols % per_vector == 0 && aligned16(table) && aligned16(out))
    launch_units<Bytes16>(table, indices, out, rows, cols / per_vector, path, stream);
  else if (elem_bytes == 4) launch_units<unsigned int>(table, indices, out, rows, cols, path, stream);
  else if (elem_bytes == 2) launch_units<unsigned short>(table, indices, out, rows, cols, path, stream);
  else throw Error("gather moves 2- or 4-byte elements, not " + std::to_string(elem_bytes));
  OPMARK_CHECK_LAUNCH();
}

std::vector<double> gather_reference(const std::vector<double>& table, const std::vector<std::int64_t>& indices,
                                     std::int64_t cols) {
  const std::size_t c = static_cast<std::size_t>(cols);
  std::vector<double> out(indices.size() * c);
  for (std::size_t i = 0; i < indices.size(); ++i)
    std::copy_n(table.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(indices[i]) * c), c,
                out.begin() + static_cast<std::ptrdiff_t>(i * c));
  return out;
}

}  // namespace opmark::kernels
