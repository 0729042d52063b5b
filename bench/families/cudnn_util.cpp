#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include "bench/families/cudnn_util.h"

#include <string>

namespace opmark::bench {

void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof detail);
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + " returned " +
                    cudnnGetErrorString(status) + (detail[0] ? std::string(" (") + detail + ")" : "");
  // cuDNN 9 groups its statuses by thousands: 3xxx are the "not supported" family.
  if (status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    throw OutOfMemoryError(msg);
  if (status >= CUDNN_STATUS_NOT_SUPPORTED && status < CUDNN_STATUS_INTERNAL_ERROR) throw UnsupportedError(msg);
  throw Error(msg);
}

cudnnHandle_t cudnn_handle() {
  static cudnnHandle_t handle = [] {
    cudnnHandle_t h = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreate(&h));
    return h;
  }();
  return handle;
}

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
