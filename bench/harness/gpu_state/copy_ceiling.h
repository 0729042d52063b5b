#pragma once
// The memory-bandwidth ceiling measured on this GPU in this run: the faster of two device-to-device copies,
// cudaMemcpyAsync and opmark's copy kernel, counting bytes read plus bytes written (cudaMemcpyAsync alone fell well
// short of what kernels moved on some H200s: docs/measurement.md). Memory-bound cases (no FLOPs) report their GB/s as
// a percentage of it (pct_copy_bw), which says more than the datasheet figure (no kernel reaches that).
#include <cuda_runtime.h>

#include <cstddef>

#include "bench/harness/timing/measure_case.h"

namespace opmark::bench {

// The higher median GB/s of the two copies of `bytes` (each moves 2 x bytes), measured as a case is (`measurer`: the
// run's L2 mode, regime and stopping rule). Throws OutOfMemoryError when the two buffers do not fit.
double measure_copy_gb_per_s(Measurer& measurer, cudaStream_t stream, std::size_t bytes = std::size_t{1} << 30);

}  // namespace opmark::bench
