#pragma once
// opmark's gather (the gather family: an embedding lookup) and its float64 host reference:
// out[i, :] = table[idx[i], :], row-major, int64 indices. A copy, so the result is exact.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opmark::kernels {

// How the kernel walks the output: a warp per looked-up row (rows of hundreds to thousands of elements), or a thread
// per output unit, its row's index read again by each (short rows: a warp a row of a few elements idles).
enum class GatherPath { warp_per_row, thread_per_unit };
// The paths, the default (a warp a row) first: the tuner's candidates. Either runs rows of any length.
std::vector<GatherPath> gather_paths();
std::string gather_path_name(GatherPath path);

// elem_bytes: 2 or 4 (the kernel moves bytes, whatever they mean). 16-byte vectors: a warp a row at any width and
// alignment, a thread a unit where cols and the pointers allow.
void launch_gather(const void* table, const std::int64_t* indices, void* out, std::int64_t rows, std::int64_t cols,
                   std::size_t elem_bytes, cudaStream_t stream, GatherPath path = GatherPath::warp_per_row);

std::vector<double> gather_reference(const std::vector<double>& table, const std::vector<std::int64_t>& indices,
                                     std::int64_t cols);

}  // namespace opmark::kernels
