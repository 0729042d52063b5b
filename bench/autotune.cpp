#include "bench/autotune.h"

#include <limits>

#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

AutotuneResult time_candidates(int count, const std::function<void(int, cudaStream_t)>& launch, cudaStream_t stream,
                               int reps) {
  AutotuneResult r;
  r.seconds.assign(count, std::numeric_limits<double>::infinity());
  r.errors.assign(count, "");
  cudaEvent_t start, stop;
  OPMARK_CHECK_CUDA(cudaEventCreate(&start));
  OPMARK_CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < count; ++i) {
    try {
      launch(i, stream);
      OPMARK_CHECK_CUDA(cudaEventRecord(start, stream));
      for (int j = 0; j < reps; ++j) launch(i, stream);
      OPMARK_CHECK_CUDA(cudaEventRecord(stop, stream));
      OPMARK_CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      r.seconds[i] = ms * 1e-3 / reps;
      if (r.best < 0 || r.seconds[i] < r.seconds[r.best]) r.best = i;
    } catch (const OutOfMemoryError&) {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      throw;
    } catch (const std::exception& e) {
      r.errors[i] = e.what();
      OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    }
  }
  OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(start));
  OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(stop));
  return r;
}

}  // namespace opmark::bench
