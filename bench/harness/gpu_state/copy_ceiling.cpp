#include "bench/harness/gpu_state/copy_ceiling.h"

#include "core/rates.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"

namespace opmark::bench {
namespace {

// One device-to-device copy a launch. Not a case: it is never verified, only timed.
class CopyWorkload final : public Workload {
 public:
  CopyWorkload(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), src_(bytes), dst_(bytes) {
    OPMARK_CHECK_CUDA(cudaMemsetAsync(src_.get(), 0x5a, bytes, stream));  // a copy's speed does not depend on values
  }
  void launch(cudaStream_t stream) override {
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(dst_.get(), src_.get(), bytes_, cudaMemcpyDeviceToDevice, stream));
  }
  kernels::CompareResult verify(cudaStream_t) override { return {}; }

 private:
  std::size_t bytes_;
  kernels::DeviceBuffer src_, dst_;
};

}  // namespace

double measure_copy_gb_per_s(Measurer& measurer, cudaStream_t stream, std::size_t bytes) {
  CopyWorkload copy(bytes, stream);
  const Measurement m = measurer.measure_alone(copy, stream);
  return core::gb_per_s(2.0 * static_cast<double>(bytes), m.median_s);
}

}  // namespace opmark::bench
