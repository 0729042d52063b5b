#include "bench/families/handles.h"

#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

cublasLtHandle_t cublaslt_handle() {
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    OPMARK_CHECK_CUBLAS(cublasLtCreate(&h));
    return h;
  }();
  return handle;
}

cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    OPMARK_CHECK_CUBLAS(cublasCreate(&h));
    return h;
  }();
  return handle;
}

cusparseHandle_t cusparse_handle() {
  static cusparseHandle_t handle = [] {
    cusparseHandle_t h = nullptr;
    if (cusparseCreate(&h) != CUSPARSE_STATUS_SUCCESS) throw Error("cusparseCreate failed");
    return h;
  }();
  return handle;
}

}  // namespace opmark::bench
