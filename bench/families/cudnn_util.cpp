#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include "bench/families/cudnn_util.h"

namespace opmark::bench {

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
