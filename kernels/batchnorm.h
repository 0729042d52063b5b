#pragma once
// opmark's batch-normalisation kernels (the batchnorm family) and their float64 host reference. x and y are
// N x C x H x W (NCHW); scale, bias, mean and variance are fp32 per channel; eps 1e-5. An NHWC tensor is the same
// with n = N*H*W and hw = 1 (core::BatchnormProblem::planes): the references and the inference normalisation take
// it so; the training kernels would read it a strided element at a time, so NHWC training is left to cuDNN.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/dtype.h"

namespace opmark::kernels {

constexpr double kBatchNormEps = 1e-5;

// Inference: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c], with the given (running) statistics.
void batchnorm_inference(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                         const float* mean, const float* var, std::int64_t n, std::int64_t c, std::int64_t hw,
                         cudaStream_t stream);

// Training forward: the batch's per-channel mean and (biased) variance over N x H x W, saved as mean and
// 1 / sqrt(var + eps) (what backward needs), and y normalised with them.
// workspace holds batchnorm_train_workspace_bytes(n, c, hw) (partial statistics of each channel's splits).
void batchnorm_train(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                     float* save_mean, float* save_invstd, void* workspace, std::int64_t n, std::int64_t c,
                     std::int64_t hw, cudaStream_t stream);
std::size_t batchnorm_train_workspace_bytes(std::int64_t n, std::int64_t c, std::int64_t hw);

// y in float64 on the host; `train` uses the batch statistics, otherwise `mean` and `var`.
std::vector<double> batchnorm_reference(bool train, const std::vector<double>& x, const std::vector<double>& scale,
                                        const std::vector<double>& bias, const std::vector<double>& mean,
                                        const std::vector<double>& var, std::int64_t n, std::int64_t c,
                                        std::int64_t hw);
// The same reference computed on the GPU from device arrays of doubles (mean and var unused when `train`): what
// verification uses, with no copy through the host.
void batchnorm_reference_on_device(bool train, const double* x, const double* scale, const double* bias,
                                   const double* mean, const double* var, std::int64_t n, std::int64_t c,
                                   std::int64_t hw, double* y, cudaStream_t stream);

}  // namespace opmark::kernels
