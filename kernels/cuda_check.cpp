#include "kernels/cuda_check.h"

#include <cstdio>

namespace opmark::kernels {

static std::string where(const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call;
}

void throw_failed_call(CallFailure kind, const std::string& why, const char* call, const char* file, int line,
                       const std::string& status) {
  const std::string msg = (why.empty() ? "" : why + ": ") + where(call, file, line) + " returned " + status;
  switch (kind) {
    case CallFailure::out_of_memory: throw OutOfMemoryError(msg);
    case CallFailure::unsupported: throw UnsupportedError(msg);
    case CallFailure::error: break;
  }
  throw Error(msg);
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear the sticky error so later cases are not blamed for this one
  const std::string status = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
  if (err == cudaErrorMemoryAllocation)
    throw_failed_call(CallFailure::out_of_memory, "out of device memory", call, file, line, status);
  const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver;
  throw_failed_call(no_device ? CallFailure::unsupported : CallFailure::error, no_device ? "no usable CUDA device" : "",
                    call, file, line, status);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  const std::string text = std::string(cublasGetStatusName(status)) + ": " + cublasGetStatusString(status);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH)
    throw_failed_call(CallFailure::unsupported, "cuBLAS does not support this case", call, file, line, text);
  const bool oom = status == CUBLAS_STATUS_ALLOC_FAILED;
  throw_failed_call(oom ? CallFailure::out_of_memory : CallFailure::error, oom ? "out of device memory" : "", call,
                    file, line, text);
}

void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "opmark: %s returned %s (ignored in cleanup)\n", where(call, file, line).c_str(),
               cudaGetErrorName(err));
  cudaGetLastError();
}

}  // namespace opmark::kernels
