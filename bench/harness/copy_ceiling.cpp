#include "bench/harness/copy_ceiling.h"

#include <algorithm>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"

namespace opmark::bench {

double measure_copy_gb_per_s(cudaStream_t stream, std::size_t bytes, int repeats) {
  kernels::DeviceBuffer src(bytes), dst(bytes);
  OPMARK_CHECK_CUDA(cudaMemsetAsync(src.get(), 0x5a, bytes, stream));  // a copy's speed does not depend on values
  cudaEvent_t start, stop;
  OPMARK_CHECK_CUDA(cudaEventCreate(&start));
  OPMARK_CHECK_CUDA(cudaEventCreate(&stop));
  std::vector<double> gb_per_s;
  for (int i = 0; i <= repeats; ++i) {
    OPMARK_CHECK_CUDA(cudaEventRecord(start, stream));
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    OPMARK_CHECK_CUDA(cudaEventRecord(stop, stream));
    OPMARK_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    if (i > 0 && ms > 0) gb_per_s.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);  // 0: warm-up
  }
  OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(start));
  OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(stop));
  if (gb_per_s.empty()) return 0;
  std::nth_element(gb_per_s.begin(), gb_per_s.begin() + gb_per_s.size() / 2, gb_per_s.end());
  return gb_per_s[gb_per_s.size() / 2];
}

}  // namespace opmark::bench
