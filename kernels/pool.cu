#include "kernels/pool.h"

#include <algorithm>
#include <cfloat>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kPoolThreads = 256;

struct PoolShape {
  std::int64_t nc, h, w, r, s, pad_h, pad_w, stride_h, stride_w, p, q;
  bool max;
};

// One thread per output element (grid-stride): the window's max or mean over the padded input.
template <class T>
__global__ void pool_kernel(PoolShape g, const T* __restrict__ x, T* __restrict__ y) {
  const std::int64_t total = g.nc * g.p * g.q;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t oq = i % g.q, op = (i / g.q) % g.p, plane = i / (g.p * g.q);
    const T* in = x + plane * g.h * g.w;
    float acc = g.max ? -FLT_MAX : 0.0f;
    for (std::int64_t rr = 0; rr < g.r; ++rr) {
      const std::int64_t ih = op * g.stride_h - g.pad_h + rr;
      if (ih < 0 || ih >= g.h) continue;
      for (std::int64_t ss = 0; ss < g.s; ++ss) {
        const std::int64_t iw = oq * g.stride_w - g.pad_w + ss;
        if (iw < 0 || iw >= g.w) continue;
        const float v = to_float(in[ih * g.w + iw]);
        acc = g.max ? fmaxf(acc, v) : acc + v;
      }
    }
    y[i] = from_float<T>(g.max ? acc : acc / static_cast<float>(g.r * g.s));
  }
}

PoolShape shape_of(const core::PoolProblem& p) {
  return {p.n * p.c, p.h, p.w, p.r, p.s, p.pad_h, p.pad_w, p.stride_h, p.stride_w, p.p, p.q, p.max};
}

}  // namespace

void pool_forward(const core::PoolProblem& p, core::DType type, const void* x, void* y, cudaStream_t stream) {
  if (p.nhwc) throw Error("opmark's pooling kernel reads NCHW; NHWC pooling is cuDNN's (impl=cudnn)");
  const PoolShape g = shape_of(p);
  const std::size_t total = static_cast<std::size_t>(g.nc * g.p * g.q);
  dispatch_float_dtype(type, "pooling runs", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const unsigned most_blocks = static_cast<unsigned>(core::kDefaultSms) * 16u;  // 16 a multiprocessor
    pool_kernel<T><<<blocks_for(total, kPoolThreads, most_blocks), kPoolThreads, 0, stream>>>(
        g, static_cast<const T*>(x), static_cast<T*>(y));
  });
  OPMARK_CHECK_LAUNCH();
}

std::vector<double> pool_reference(const core::PoolProblem& p, const std::vector<double>& x) {
  // Element (b, ch, row, col) of an n x c x rows x cols tensor in the case's layout.
  const auto at = [&p](std::int64_t b, std::int64_t ch, std::int64_t row, std::int64_t col, std::int64_t rows,
                       std::int64_t cols) {
    return static_cast<std::size_t>(p.nhwc ? ((b * rows + row) * cols + col) * p.c + ch
                                           : ((b * p.c + ch) * rows + row) * cols + col);
  };
  std::vector<double> y(static_cast<std::size_t>(p.n * p.c * p.p * p.q));
  for (std::int64_t b = 0; b < p.n; ++b)
    for (std::int64_t ch = 0; ch < p.c; ++ch)
      for (std::int64_t op = 0; op < p.p; ++op)
        for (std::int64_t oq = 0; oq < p.q; ++oq) {
          double acc = p.max ? -1e300 : 0.0;
          for (std::int64_t rr = 0; rr < p.r; ++rr)
            for (std::int64_t ss = 0; ss < p.s; ++ss) {
              const std::int64_t ih = op * p.stride_h - p.pad_h + rr, iw = oq * p.stride_w - p.pad_w + ss;
              // Padding adds a zero to the average (counted in its divisor) and never wins the max.
              if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
              const double v = x[at(b, ch, ih, iw, p.h, p.w)];
              acc = p.max ? std::max(acc, v) : acc + v;
            }
          y[at(b, ch, op, oq, p.p, p.q)] = p.max ? acc : acc / double(p.r * p.s);
        }
  return y;
}

}  // namespace opmark::kernels
