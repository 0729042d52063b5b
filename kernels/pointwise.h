#pragma once
// opmark's element-wise kernels (the pointwise family) and their float64 host reference.
// Tensors are rows x cols, row-major; a bias is a cols vector broadcast over the rows. Math is fp32 inside
// whatever the storage type.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace opmark::kernels {

enum class PointwiseOp {
  copy, relu, gelu, silu, sigmoid, tanh, add, mul, bias_add, bias_relu, bias_gelu, scale, masked_fill
};

// scale multiplies by this (attention's 1/sqrt(128), not a power of two, so it rounds); masked_fill writes this
// where the mask is set (finite, as Hugging Face's masks: -inf would fail verification's finite check).
constexpr double kPointwiseScale = 0.08838834764831845;
constexpr double kMaskedFillValue = -10000.0;

// Throws opmark::Error for a name that is not an op.
PointwiseOp pointwise_op(const std::string& name);

// How the kernel walks the tensor: `units` 16-byte vectors (or elements) a thread in flight, and a grid of a block a
// tile (max_blocks 0), or of at most max_blocks blocks that walk the tiles in turn (pointwise_paths sizes it to one
// wave of the device, once, so a launch asks the device nothing).
struct PointwisePath {
  int units = 4;
  std::int64_t max_blocks = 0;
  bool memcpy = false;  // copy only: one cudaMemcpyAsync, what PyTorch's copy_ of a contiguous tensor calls
};
// The paths that can run `op` over a rows x cols tensor of elem_bytes elements, the default first: the tuner's
// candidates. Other unit counts and the one-wave grid are built for whole 16-byte vectors of tensors under 2^31
// elements; copy lists cudaMemcpyAsync last.
std::vector<PointwisePath> pointwise_paths(PointwiseOp op, std::int64_t rows, std::int64_t cols,
                                           std::size_t elem_bytes);
// "path: 4 units in flight a thread", with ", a grid of 1 wave".
std::string pointwise_path_name(const PointwisePath& path);

// out = op(x[, y, bias or mask]). `y` is the second tensor of add and mul, `bias` the cols vector of the bias ops,
// `mask` masked_fill's rows x cols bytes (non-zero: fill); unused pointers may be null. Loads and stores are 16 bytes
// wide where the row length allows.
void launch_pointwise(PointwiseOp op, core::DType type, const void* x, const void* y, const void* bias,
                      const void* mask, void* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream,
                      const PointwisePath& path = {});

// The same op in float64 on the host, from the inputs widened to double: the verification reference (`mask` as
// 0 or 1 per element, masked_fill only).
std::vector<double> pointwise_reference(PointwiseOp op, const std::vector<double>& x, const std::vector<double>& y,
                                        const std::vector<double>& bias, const std::vector<double>& mask,
                                        std::int64_t rows, std::int64_t cols);
// The same reference computed on the GPU (the same float64 code per element), from device arrays of doubles (y,
// bias and mask may be null where the op has none): what verification uses, with no copy through the host.
void pointwise_reference_on_device(PointwiseOp op, const double* x, const double* y, const double* bias,
                                   const double* mask, std::int64_t rows, std::int64_t cols, double* out,
                                   cudaStream_t stream);

}  // namespace opmark::kernels
