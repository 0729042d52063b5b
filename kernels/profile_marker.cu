#include "kernels/cuda_check.h"
#include "kernels/profile_marker.h"

namespace opmark::kernels {

__global__ void opmark_profile_marker() {}

void launch_profile_marker(cudaStream_t stream) {
  opmark_profile_marker<<<1, 1, 0, stream>>>();
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
