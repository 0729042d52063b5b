#pragma once
// Checked CUDA and CUDA-library calls. A failure throws (see core/error.h):
//   out of memory          -> opmark::OutOfMemoryError (the case is skipped, the run goes on)
//   not supported          -> opmark::UnsupportedError (likewise)
//   anything else          -> opmark::Error naming file:line, the call, the status name and its text.
// The sticky CUDA error is cleared so the next case starts clean.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

namespace opmark::kernels {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
// For destructors: logs to stderr instead of throwing.
void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept;

}  // namespace opmark::kernels

#define OPMARK_CHECK_CUDA(call)                                                   \
  do {                                                                            \
    const cudaError_t opmark_err_ = (call);                                       \
    if (opmark_err_ != cudaSuccess)                                               \
      ::opmark::kernels::throw_cuda_error(opmark_err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors appear here, execution errors at the next sync.
#define OPMARK_CHECK_LAUNCH() OPMARK_CHECK_CUDA(cudaGetLastError())

#define OPMARK_CHECK_CUDA_NOEXCEPT(call)                                              \
  do {                                                                                \
    const cudaError_t opmark_err_ = (call);                                           \
    if (opmark_err_ != cudaSuccess)                                                   \
      ::opmark::kernels::log_cuda_error(opmark_err_, #call, __FILE__, __LINE__);      \
  } while (0)

#define OPMARK_CHECK_CUBLAS(call)                                                         \
  do {                                                                                    \
    const cublasStatus_t opmark_status_ = (call);                                         \
    if (opmark_status_ != CUBLAS_STATUS_SUCCESS)                                          \
      ::opmark::kernels::throw_cublas_error(opmark_status_, #call, __FILE__, __LINE__);    \
  } while (0)
