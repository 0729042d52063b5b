#include "bench/harness/gpu_state/copy_ceiling.h"

#include <algorithm>

#include "core/rates.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/pointwise.h"

namespace opmark::bench {
namespace {

// One device-to-device copy a launch: cudaMemcpyAsync, or opmark's own copy kernel (16-byte vectors, 4 in flight a
// thread). Not a case: it is never verified, only timed.
class CopyWorkload final : public Workload {
 public:
  CopyWorkload(std::size_t bytes, bool kernel, cudaStream_t stream)
      : bytes_(bytes), kernel_(kernel), src_(bytes), dst_(bytes) {
    OPMARK_CHECK_CUDA(cudaMemsetAsync(src_.get(), 0x5a, bytes, stream));  // a copy's speed does not depend on values
  }
  void launch(cudaStream_t stream) override {
    if (kernel_)
      kernels::launch_pointwise(kernels::PointwiseOp::copy, core::DType::f32, src_.get(), nullptr, nullptr, nullptr,
                                dst_.get(), 1, static_cast<std::int64_t>(bytes_ / 4), stream);
    else
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(dst_.get(), src_.get(), bytes_, cudaMemcpyDeviceToDevice, stream));
  }
  kernels::CompareResult verify(cudaStream_t) override { return {}; }

 private:
  std::size_t bytes_;
  bool kernel_;
  kernels::DeviceBuffer src_, dst_;
};

}  // namespace

double measure_copy_gb_per_s(Measurer& measurer, cudaStream_t stream, std::size_t bytes) {
  bytes = bytes / 16 * 16;
  double best = 0;
  for (const bool kernel : {false, true}) {
    CopyWorkload copy(bytes, kernel, stream);
    const Measurement m = measurer.measure_alone(copy, stream);
    best = std::max(best, core::gb_per_s(2.0 * static_cast<double>(bytes), m.median_s));
  }
  return best;
}

}  // namespace opmark::bench
