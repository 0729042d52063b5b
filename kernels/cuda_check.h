#pragma once
// Checked CUDA and CUDA-library calls. A failure throws (see core/error.h):
//   out of memory          -> opmark::OutOfMemoryError (the case is skipped, the run goes on)
//   not supported          -> opmark::UnsupportedError (likewise)
//   anything else          -> opmark::Error naming file:line, the call, the status name and its text.
// Each library's thrower only sorts its statuses into those three; throw_failed_call writes the one message for
// all of them. cuSPARSE, cuDNN and NCCL, which the kernels do not link, have theirs in bench/families/library_check.h.
// The sticky CUDA error is cleared so the next case starts clean.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

namespace opmark::kernels {

// What a failed library call means for the case: skipped (out of memory, unsupported) or failed (error).
enum class CallFailure { error, out_of_memory, unsupported };

// Throws the error type `kind` names, with the message "[why: ]file:line: call returned status".
[[noreturn]] void throw_failed_call(CallFailure kind, const std::string& why, const char* call, const char* file,
                                    int line, const std::string& status);

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);
// For destructors: logs to stderr instead of throwing.
void log_cuda_error(cudaError_t err, const char* call, const char* file, int line) noexcept;

}  // namespace opmark::kernels

// The one shape of a checked call: a status other than `ok` goes to `thrower` with the call's text and place.
// The OPMARK_CHECK_* macros stringify the call themselves, so the message quotes it as written (macros unexpanded).
#define OPMARK_CHECK_STATUS(status, text, ok, thrower)                             \
  do {                                                                             \
    const auto opmark_status_ = (status);                                          \
    if (opmark_status_ != (ok)) thrower(opmark_status_, text, __FILE__, __LINE__); \
  } while (0)

#define OPMARK_CHECK_CUDA(call) OPMARK_CHECK_STATUS((call), #call, cudaSuccess, ::opmark::kernels::throw_cuda_error)

// After a kernel launch: launch-configuration errors appear here, execution errors at the next sync.
#define OPMARK_CHECK_LAUNCH() OPMARK_CHECK_CUDA(cudaGetLastError())

#define OPMARK_CHECK_CUDA_NOEXCEPT(call) \
  OPMARK_CHECK_STATUS((call), #call, cudaSuccess, ::opmark::kernels::log_cuda_error)

#define OPMARK_CHECK_CUBLAS(call) \
  OPMARK_CHECK_STATUS((call), #call, CUBLAS_STATUS_SUCCESS, ::opmark::kernels::throw_cublas_error)
