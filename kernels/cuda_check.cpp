#include "kernels/cuda_check.h"

#include <cstdio>

namespace opmark::kernels {

static std::string where(const char* call, const char* file, int line) {
  return std::string(file) + ":" + std::to_string(line) + ": " + call;
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  cudaGetLastError();  // clear the sticky error so later cases are not blamed for this one
  std::string msg = where(call, file, line) + " returned " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError("out of device memory: " + msg);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    throw UnsupportedError("no usable CUDA device: " + msg);
  throw Error(msg);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  std::string msg = where(call, file, line) + " returned " + cublasGetStatusName(status) + ": " +
                    cublasGetStatusString(status);
  if (status == CUBLAS_STATUS_ALLOC_FAILED) throw OutOfMemoryError("out of device memory: " + msg);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH)
    throw UnsupportedError("cuBLAS does not support this case: " + msg);
  throw Error(msg);
}

void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "opmark: %s returned %s (ignored in cleanup)\n", where(call, file, line).c_str(),
               cudaGetErrorName(err));
  cudaGetLastError();
}

}  // namespace opmark::kernels
