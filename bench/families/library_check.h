#pragma once
// Checked cuSPARSE, cuDNN and NCCL calls: the libraries the kernels do not link. Each thrower sorts its library's
// statuses into out of memory, unsupported or error; kernels::throw_failed_call (kernels/cuda_check.h) writes the
// message and throws, as for CUDA and cuBLAS. Inline, so only the families that call a library link it.
#include <cusparse.h>

#include <string>

#include "kernels/cuda_check.h"

#ifdef OPMARK_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef OPMARK_HAVE_NCCL
#include <nccl.h>
#endif

namespace opmark::bench {

[[noreturn]] inline void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  using kernels::CallFailure;
  const CallFailure kind =
      status == CUSPARSE_STATUS_NOT_SUPPORTED ? CallFailure::unsupported
      : status == CUSPARSE_STATUS_ALLOC_FAILED || status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
          ? CallFailure::out_of_memory
          : CallFailure::error;
  kernels::throw_failed_call(kind, "", call, file, line, cusparseGetErrorString(status));
}

#ifdef OPMARK_HAVE_CUDNN
// NOT_SUPPORTED statuses become UnsupportedError (the case is skipped with cuDNN's words, and its last error's
// detail), the allocation failures OutOfMemoryError.
[[noreturn]] inline void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line) {
  using kernels::CallFailure;
  char detail[512] = {0};
  cudnnGetLastErrorString(detail, sizeof detail);
  const std::string text = cudnnGetErrorString(status) + (detail[0] ? std::string(" (") + detail + ")" : "");
  // cuDNN 9 groups its statuses by thousands: 3xxx are the "not supported" family.
  const CallFailure kind = status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED ||
                                   status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED
                               ? CallFailure::out_of_memory
                           : status >= CUDNN_STATUS_NOT_SUPPORTED && status < CUDNN_STATUS_INTERNAL_ERROR
                               ? CallFailure::unsupported
                               : CallFailure::error;
  kernels::throw_failed_call(kind, "", call, file, line, text);
}
#endif

#ifdef OPMARK_HAVE_NCCL
// An invalid usage or argument is a size or layout this NCCL refuses: the case is skipped, not failed.
[[noreturn]] inline void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line) {
  using kernels::CallFailure;
  const CallFailure kind = result == ncclInvalidUsage || result == ncclInvalidArgument ? CallFailure::unsupported
                                                                                        : CallFailure::error;
  kernels::throw_failed_call(kind, "", call, file, line, ncclGetErrorString(result));
}
#endif

}  // namespace opmark::bench

#define OPMARK_CHECK_CUSPARSE(call) \
  OPMARK_CHECK_STATUS((call), #call, CUSPARSE_STATUS_SUCCESS, ::opmark::bench::throw_cusparse_error)
#define OPMARK_CHECK_CUDNN(call) \
  OPMARK_CHECK_STATUS((call), #call, CUDNN_STATUS_SUCCESS, ::opmark::bench::throw_cudnn_error)
#define OPMARK_CHECK_NCCL(call) OPMARK_CHECK_STATUS((call), #call, ncclSuccess, ::opmark::bench::throw_nccl_error)
