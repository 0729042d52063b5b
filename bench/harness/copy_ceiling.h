#pragma once
// The memory-bandwidth ceiling measured on this GPU in this run: a device-to-device copy, counting bytes read plus
// bytes written. Memory-bound cases (no FLOPs) report their GB/s as a percentage of it (pct_copy_bw), which says
// more than the datasheet figure (no kernel reaches that).
#include <cuda_runtime.h>

namespace opmark::bench {

// Median GB/s of `repeats` timed copies of `bytes` (each copy moves 2 x bytes), after one untimed copy.
// Throws OutOfMemoryError when the two buffers do not fit.
double measure_copy_gb_per_s(cudaStream_t stream, std::size_t bytes = std::size_t{1} << 30, int repeats = 10);

}  // namespace opmark::bench
