#pragma once
// cuDNN plumbing shared by the cuDNN families: checked calls, the process-wide handle, types, owned descriptors.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "bench/families/handles.h"        // cudnn_handle
#include "bench/families/library_check.h"  // OPMARK_CHECK_CUDNN
#include "bench/families/library_types.h"  // cudnn_data_type
#include "core/dtype.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

// Descriptors owned as unique_ptrs, so a constructor that throws half-way leaks none.
using TensorDesc = std::unique_ptr<cudnnTensorStruct, DestroyWith<cudnnDestroyTensorDescriptor>>;
using FilterDesc = std::unique_ptr<cudnnFilterStruct, DestroyWith<cudnnDestroyFilterDescriptor>>;
using ConvDesc = std::unique_ptr<cudnnConvolutionStruct, DestroyWith<cudnnDestroyConvolutionDescriptor>>;
using PoolingDesc = std::unique_ptr<cudnnPoolingStruct, DestroyWith<cudnnDestroyPoolingDescriptor>>;
using ActivationDesc = std::unique_ptr<cudnnActivationStruct, DestroyWith<cudnnDestroyActivationDescriptor>>;
using OpTensorDesc = std::unique_ptr<cudnnOpTensorStruct, DestroyWith<cudnnDestroyOpTensorDescriptor>>;
using ReduceTensorDesc = std::unique_ptr<cudnnReduceTensorStruct, DestroyWith<cudnnDestroyReduceTensorDescriptor>>;

// A packed tensor of n x c x h x w elements of `type`, stored NCHW or (CUDNN_TENSOR_NHWC) channels last.
inline TensorDesc tensor_4d(core::DType type, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                            cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW) {
  if (n * c * h * w > INT32_MAX) throw UnsupportedError("cuDNN tensor descriptors take at most 2^31 - 1 elements");
  cudnnTensorDescriptor_t t = nullptr;
  OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&t));
  TensorDesc owner(t);
  OPMARK_CHECK_CUDNN(
      cudnnSetTensor4dDescriptor(t, format, cudnn_data_type(type), int(n), int(c), int(h), int(w)));
  return owner;
}

// The workspace a cuDNN candidate may take: --opmark_workspace_mib where given, else half of what the GPU has free
// now. PyTorch's cudnn.benchmark takes any plan it can allocate for (cuDNN's FFT engines can need gigabytes); the
// other half keeps room for the verification's buffers.
inline std::size_t cudnn_workspace_limit(const std::optional<std::size_t>& option) {
  if (option) return *option;
  std::size_t free_bytes = 0, total_bytes = 0;
  OPMARK_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes / 2;
}

// The process-wide handle, on the stream the next call is timed on.
inline cudnnHandle_t cudnn_on(cudaStream_t stream) {
  cudnnHandle_t h = cudnn_handle();
  OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
  return h;
}

}  // namespace opmark::bench
