#pragma once
// opmark's 2D pooling kernel (the pool family), NCHW only, and its float64 host reference, NCHW or NHWC as the
// problem says. Average pooling counts the padding (PyTorch's default, count_include_pad).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "core/families.h"

namespace opmark::kernels {

void pool_forward(const core::PoolProblem& p, core::DType type, const void* x, void* y, cudaStream_t stream);

std::vector<double> pool_reference(const core::PoolProblem& p, const std::vector<double>& x);

}  // namespace opmark::kernels
