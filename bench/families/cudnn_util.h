#pragma once
// cuDNN plumbing shared by the convolution and RNN families: checked calls, the process-wide handle, types.
#include <cudnn.h>

#include "bench/families/library_types.h"  // cudnn_data_type, for every cuDNN family
#include "core/dtype.h"
#include "core/error.h"

namespace opmark::bench {

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* call, const char* file, int line);

// Created on first use, outside any timed region.
cudnnHandle_t cudnn_handle();

}  // namespace opmark::bench

// NOT_SUPPORTED statuses become UnsupportedError (the case is skipped with cuDNN's words), ALLOC_FAILED
// OutOfMemoryError, the rest opmark::Error naming the call and the status.
#define OPMARK_CHECK_CUDNN(call)                                                          \
  do {                                                                                    \
    const cudnnStatus_t opmark_status_ = (call);                                          \
    if (opmark_status_ != CUDNN_STATUS_SUCCESS)                                           \
      ::opmark::bench::throw_cudnn_error(opmark_status_, #call, __FILE__, __LINE__);       \
  } while (0)
