#pragma once
// Cold-L2 timing: writing a buffer twice the L2's size evicts the operands of the previous launch.
#include <cuda_runtime.h>

#include "kernels/device_buffer.h"

namespace opmark::kernels {

class L2Flush {
 public:
  L2Flush();  // sizes the buffer from the current device's L2
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  int value_ = 0;
};

}  // namespace opmark::kernels
