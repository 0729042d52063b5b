#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/reference_conv.h"

namespace opmark::kernels {
namespace {

constexpr unsigned kThreads = 256;

__device__ __forceinline__ std::int64_t at(const std::array<std::int64_t, 5>& s, std::int64_t a, std::int64_t b,
                                           std::int64_t c, std::int64_t d, std::int64_t e) {
  return a * s[0] + b * s[1] + c * s[2] + d * s[3] + e * s[4];
}

template <class TX, class TF>
__global__ void fwd_kernel(ConvRefShape g, const TX* x, const TF* f, double* y) {
  const std::int64_t total = g.n * g.k * g.o * g.p * g.q;
  const std::int64_t cg = g.c / g.groups, kg = g.k / g.groups;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t rest = i;
    const std::int64_t q = rest % g.q; rest /= g.q;
    const std::int64_t p = rest % g.p; rest /= g.p;
    const std::int64_t o = rest % g.o; rest /= g.o;
    const std::int64_t k = rest % g.k;
    const std::int64_t n = rest / g.k;
    const std::int64_t group = k / kg;
    double sum = 0;
    for (std::int64_t cc = 0; cc < cg; ++cc)
      for (std::int64_t tt = 0; tt < g.t; ++tt) {
        const std::int64_t id = o * g.stride_d - g.pad_d + tt;
        if (id < 0 || id >= g.d) continue;
        for (std::int64_t rr = 0; rr < g.r; ++rr) {
          const std::int64_t ih = p * g.stride_h - g.pad_h + rr * g.dil_h;
          if (ih < 0 || ih >= g.h) continue;
          for (std::int64_t ss = 0; ss < g.s; ++ss) {
            const std::int64_t iw = q * g.stride_w - g.pad_w + ss * g.dil_w;
            if (iw < 0 || iw >= g.w) continue;
            sum += load_as_double(x, at(g.x_stride, n, group * cg + cc, id, ih, iw)) *
                   load_as_double(f, at(g.f_stride, k, cc, tt, rr, ss));
          }
        }
      }
    y[at(g.y_stride, n, k, o, p, q)] = sum;
  }
}

template <class TY, class TF>
__global__ void bwd_data_kernel(ConvRefShape g, const TY* dy, const TF* f, double* dx) {
  const std::int64_t total = g.n * g.c * g.d * g.h * g.w;
  const std::int64_t cg = g.c / g.groups, kg = g.k / g.groups;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t rest = i;
    const std::int64_t iw = rest % g.w; rest /= g.w;
    const std::int64_t ih = rest % g.h; rest /= g.h;
    const std::int64_t id = rest % g.d; rest /= g.d;
    const std::int64_t c = rest % g.c;
    const std::int64_t n = rest / g.c;
    const std::int64_t group = c / cg, cc = c % cg;
    double sum = 0;
    for (std::int64_t kk = group * kg; kk < (group + 1) * kg; ++kk)
      for (std::int64_t tt = 0; tt < g.t; ++tt) {
        const std::int64_t on = id + g.pad_d - tt;
        if (on < 0 || on % g.stride_d) continue;
        const std::int64_t o = on / g.stride_d;
        if (o >= g.o) continue;
        for (std::int64_t rr = 0; rr < g.r; ++rr) {
          const std::int64_t pn = ih + g.pad_h - rr * g.dil_h;
          if (pn < 0 || pn % g.stride_h) continue;
          const std::int64_t p = pn / g.stride_h;
          if (p >= g.p) continue;
          for (std::int64_t ss = 0; ss < g.s; ++ss) {
            const std::int64_t qn = iw + g.pad_w - ss * g.dil_w;
            if (qn < 0 || qn % g.stride_w) continue;
            const std::int64_t q = qn / g.stride_w;
            if (q >= g.q) continue;
            sum += load_as_double(dy, at(g.y_stride, n, kk, o, p, q)) *
                   load_as_double(f, at(g.f_stride, kk, cc, tt, rr, ss));
          }
        }
      }
    dx[at(g.x_stride, n, c, id, ih, iw)] = sum;
  }
}

// The filter gradient sums over n, o, p and q: one thread per (filter element, n, o) adds its partial sum over p
// and q into dw (zeroed first), so a large batch or image does not serialise into one thread per filter element.
template <class TX, class TY>
__global__ void bwd_filter_kernel(ConvRefShape g, const TX* x, const TY* dy, double* dw) {
  const std::int64_t cg = g.c / g.groups, kg = g.k / g.groups;
  const std::int64_t filter = g.k * cg * g.t * g.r * g.s;
  const std::int64_t total = filter * g.n * g.o;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t rest = i % filter;
    const std::int64_t slice = i / filter;
    const std::int64_t o = slice % g.o;
    const std::int64_t n = slice / g.o;
    const std::int64_t ss = rest % g.s; rest /= g.s;
    const std::int64_t rr = rest % g.r; rest /= g.r;
    const std::int64_t tt = rest % g.t; rest /= g.t;
    const std::int64_t cc = rest % cg;
    const std::int64_t k = rest / cg;
    const std::int64_t c = (k / kg) * cg + cc;
    const std::int64_t id = o * g.stride_d - g.pad_d + tt;
    if (id < 0 || id >= g.d) continue;
    double sum = 0;
    for (std::int64_t p = 0; p < g.p; ++p) {
      const std::int64_t ih = p * g.stride_h - g.pad_h + rr * g.dil_h;
      if (ih < 0 || ih >= g.h) continue;
      for (std::int64_t q = 0; q < g.q; ++q) {
        const std::int64_t iw = q * g.stride_w - g.pad_w + ss * g.dil_w;
        if (iw < 0 || iw >= g.w) continue;
        sum += load_as_double(x, at(g.x_stride, n, c, id, ih, iw)) * load_as_double(dy, at(g.y_stride, n, k, o, p, q));
      }
    }
    if (sum != 0) atomicAdd(&dw[at(g.f_stride, k, cc, tt, rr, ss)], sum);
  }
}

}  // namespace

std::array<std::int64_t, 5> dense_strides(std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h,
                                          std::int64_t w, bool channels_last) {
  (void)n;
  if (channels_last) return {d * h * w * c, 1, h * w * c, w * c, c};
  return {c * d * h * w, d * h * w, h * w, w, 1};
}

// Instantiates `f(TypeTag<A>, TypeTag<B>)` for the two operands' runtime element types.
template <class F>
void dispatch_pair(core::DType a, core::DType b, F&& f) {
  dispatch_dtype(a, [&](auto ta) { dispatch_dtype(b, [&](auto tb) { f(ta, tb); }); });
}

void reference_conv(ConvDirection direction, const ConvRefShape& shape, const void* x, core::DType x_type,
                    const void* f, core::DType f_type, const void* y, core::DType y_type, double* out,
                    cudaStream_t stream) {
  const std::size_t x_count = static_cast<std::size_t>(shape.n * shape.c * shape.d * shape.h * shape.w);
  const std::size_t f_count = static_cast<std::size_t>(shape.k * (shape.c / shape.groups) * shape.t * shape.r * shape.s);
  const std::size_t y_count = static_cast<std::size_t>(shape.n * shape.k * shape.o * shape.p * shape.q);
  switch (direction) {
    case ConvDirection::fwd:
      dispatch_pair(x_type, f_type, [&](auto xt, auto ft) {
        using TX = typename decltype(xt)::type;
        using TF = typename decltype(ft)::type;
        fwd_kernel<TX, TF><<<blocks_for(y_count, kThreads), kThreads, 0, stream>>>(
            shape, static_cast<const TX*>(x), static_cast<const TF*>(f), out);
      });
      break;
    case ConvDirection::bwd_data:
      dispatch_pair(y_type, f_type, [&](auto yt, auto ft) {
        using TY = typename decltype(yt)::type;
        using TF = typename decltype(ft)::type;
        bwd_data_kernel<TY, TF><<<blocks_for(x_count, kThreads), kThreads, 0, stream>>>(
            shape, static_cast<const TY*>(y), static_cast<const TF*>(f), out);
      });
      break;
    case ConvDirection::bwd_filter:
      OPMARK_CHECK_CUDA(cudaMemsetAsync(out, 0, f_count * sizeof(double), stream));
      dispatch_pair(x_type, y_type, [&](auto xt, auto yt) {
        using TX = typename decltype(xt)::type;
        using TY = typename decltype(yt)::type;
        bwd_filter_kernel<TX, TY><<<blocks_for(f_count * shape.n * shape.o, kThreads), kThreads, 0, stream>>>(
            shape, static_cast<const TX*>(x), static_cast<const TY*>(y), out);
      });
      break;
  }
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
