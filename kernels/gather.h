#pragma once
// opmark's gather (the gather family: an embedding lookup) and its float64 host reference:
// out[i, :] = table[idx[i], :], row-major, int64 indices. A copy, so the result is exact.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace opmark::kernels {

// elem_bytes: 2 or 4 (the kernel moves bytes, whatever they mean). 16-byte loads where cols and the pointers allow.
void launch_gather(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t cols,
                   std::size_t elem_bytes, cudaStream_t stream);

std::vector<double> gather_reference(const std::vector<double>& table, const std::vector<std::int64_t>& indices,
                                     std::int64_t cols);

}  // namespace opmark::kernels
