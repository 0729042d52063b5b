#pragma once
// opmark's reduction kernels (the reduce family) and their float64 host reference. Tensors are rows x cols,
// row-major; sum, mean and max reduce each row, sum_all reduces everything, softmax and layer norm (eps 1e-5, with
// gamma and beta of length cols) normalise each row. fp32 math inside whatever the storage type.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace opmark::kernels {

enum class ReduceOp { sum, mean, max, sum_all, softmax, layernorm };

constexpr double kLayerNormEps = 1e-5;

// Throws opmark::Error for a name that is not an op.
ReduceOp reduce_op(const std::string& name);

// Scratch the op needs (sum_all: one partial sum per block), in bytes; 0 for the others.
std::size_t reduce_workspace_bytes(ReduceOp op);

// out: rows values (sum, mean, max), 1 (sum_all) or rows x cols (softmax, layernorm). gamma and beta are used by
// layernorm only; workspace holds reduce_workspace_bytes(op).
void launch_reduce(ReduceOp op, core::DType type, const void* x, const void* gamma, const void* beta, void* out,
                   void* workspace, std::int64_t rows, std::int64_t cols, cudaStream_t stream);

// The same op in float64 on the host, from the inputs widened to double: the verification reference.
std::vector<double> reduce_reference(ReduceOp op, const std::vector<double>& x, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, std::int64_t rows, std::int64_t cols);

}  // namespace opmark::kernels
