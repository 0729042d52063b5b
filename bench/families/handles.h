#pragma once
// Library handles, created once per process on first use (outside any timed region) and shared by the families.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cusparse.h>

#ifdef OPMARK_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace opmark::bench {

// The one lazy handle: `create(&h)` makes and checks it on the first call, and it lives for the process. Each getter
// passes its own lambda, a type of its own, so each gets its own static.
template <class Handle, class Create>
Handle lazy_handle(Create create) {
  static const Handle handle = [&] {
    Handle h{};
    create(&h);
    return h;
  }();
  return handle;
}

// Owns a library object in a unique_ptr, destroyed by its library's call: std::unique_ptr<cudnnTensorStruct,
// DestroyWith<cudnnDestroyTensorDescriptor>>. The status of a destroy call is ignored, as in any destructor.
template <auto Destroy>
struct DestroyWith {
  template <class T>
  void operator()(T* object) const {
    Destroy(object);
  }
};

cublasLtHandle_t cublaslt_handle();
cublasHandle_t cublas_handle();  // for float64 references
cusparseHandle_t cusparse_handle();
#ifdef OPMARK_HAVE_CUDNN
cudnnHandle_t cudnn_handle();
#endif

}  // namespace opmark::bench
