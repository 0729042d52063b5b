#include "bench/families/handles.h"

#include "bench/families/library_check.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

cublasLtHandle_t cublaslt_handle() {
  return lazy_handle<cublasLtHandle_t>([](cublasLtHandle_t* h) { OPMARK_CHECK_CUBLAS(cublasLtCreate(h)); });
}

cublasHandle_t cublas_handle() {
  return lazy_handle<cublasHandle_t>([](cublasHandle_t* h) { OPMARK_CHECK_CUBLAS(cublasCreate(h)); });
}

cusparseHandle_t cusparse_handle() {
  return lazy_handle<cusparseHandle_t>([](cusparseHandle_t* h) { OPMARK_CHECK_CUSPARSE(cusparseCreate(h)); });
}

#ifdef OPMARK_HAVE_CUDNN
cudnnHandle_t cudnn_handle() {
  return lazy_handle<cudnnHandle_t>([](cudnnHandle_t* h) { OPMARK_CHECK_CUDNN(cudnnCreate(h)); });
}
#endif

}  // namespace opmark::bench
