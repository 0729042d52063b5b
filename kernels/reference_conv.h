#pragma once
// A direct convolution in float64 on the GPU: the reference every convolution case is verified against.
// One thread per output element, no tiling: slow, simple, and independent of any library.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "core/dtype.h"

namespace opmark::kernels {

enum class ConvDirection { fwd, bwd_data, bwd_filter };

// Sizes and element strides of the three tensors, whatever their layout:
//   x  (input)   n, c, d, h, w          strides x_stride[5] in that order
//   f  (filters) k, c/groups, t, r, s   strides f_stride[5] in that order
//   y  (output)  n, k, o, p, q          strides y_stride[5] in that order
struct ConvRefShape {
  std::int64_t n, c, d, h, w, k, t, r, s, o, p, q;
  std::int64_t pad_d, pad_h, pad_w, stride_d, stride_h, stride_w, dil_h, dil_w, groups;
  std::array<std::int64_t, 5> x_stride, f_stride, y_stride;
};

// Computes, in float64, what the direction produces:
//   fwd:        out = y  from x and f
//   bwd_data:   out = dx from dy (passed as `y`) and f
//   bwd_filter: out = dw from x and dy (passed as `y`)
// The two operands are read in their element types; `out` is laid out with the produced tensor's strides and has
// room for its largest strided index + 1.
void reference_conv(ConvDirection direction, const ConvRefShape& shape, const void* x, core::DType x_type,
                    const void* f, core::DType f_type, const void* y, core::DType y_type, double* out,
                    cudaStream_t stream);

// Element strides of a dense n, c, d, h, w tensor in NCDHW (channels_nhwc = false) or NDHWC order.
std::array<std::int64_t, 5> dense_strides(std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h,
                                          std::int64_t w, bool channels_last);

}  // namespace opmark::kernels
