#include "kernels/gather.h"

#include <algorithm>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kGatherThreads = 256;

// A warp per looked-up row (rows are hidden sizes: hundreds to thousands of elements), kInFlight units per lane
// loaded before any is stored. U: 16 bytes, or one element's bytes.
template <class U>
__global__ void gather_kernel(const U* __restrict__ table, const std::int64_t* __restrict__ indices, U* __restrict__ out,
                              std::int64_t rows, std::int64_t units) {
  constexpr std::int64_t kWarpsPerBlock = kGatherThreads / 32;
  const std::int64_t lane = threadIdx.x % 32;
  for (std::int64_t r = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32; r < rows; r += gridDim.x * kWarpsPerBlock) {
    const U* in = table + indices[r] * units;
    U* o = out + r * units;
    for (std::int64_t j = lane; j < units; j += 32 * kInFlight) {
      U a[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (j + u * 32 < units) a[u] = in[j + u * 32];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (j + u * 32 < units) o[j + u * 32] = a[u];
    }
  }
}

template <class U>
void launch_units(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t units,
                  cudaStream_t stream) {
  constexpr std::int64_t kWarpsPerBlock = kGatherThreads / 32;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock, core::kMaxGridBlocks));
  gather_kernel<U><<<blocks, kGatherThreads, 0, stream>>>(static_cast<const U*>(table), indices, static_cast<U*>(out),
                                                          rows, units);
}

struct alignas(16) Bytes16 {
  unsigned int v[4];
};

}  // namespace

void launch_gather(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t cols,
                   std::size_t elem_bytes, cudaStream_t stream) {
  if (rows == 0) return;
  const std::int64_t per_vector = 16 / static_cast<std::int64_t>(elem_bytes);
  if (cols % per_vector == 0 && aligned16(table) && aligned16(out))
    launch_units<Bytes16>(table, indices, out, rows, cols / per_vector, stream);
  else if (elem_bytes == 4) launch_units<unsigned int>(table, indices, out, rows, cols, stream);
  else if (elem_bytes == 2) launch_units<unsigned short>(table, indices, out, rows, cols, stream);
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
