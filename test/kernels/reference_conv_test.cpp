// The GPU reference convolution against a host one written from the definition, on small odd shapes: every
// direction, groups, stride, dilation, padding, 3D, both layouts.
#include <gtest/gtest.h>

#include <vector>

#include "../gpu_test_util.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/reference_conv.h"

using namespace opmark;
using kernels::ConvDirection;
using kernels::ConvRefShape;

namespace {

std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::vector<double> v(n);
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<double>(s >> 8) / double(1u << 24) * 2 - 1;
  }
  return v;
}

std::int64_t idx(const std::array<std::int64_t, 5>& st, std::int64_t a, std::int64_t b, std::int64_t c,
                 std::int64_t d, std::int64_t e) {
  return a * st[0] + b * st[1] + c * st[2] + d * st[3] + e * st[4];
}

// y[n,k,o,p,q] = sum x[n, g*cg+cc, o*sd-pd+t, p*sh-ph+r*dh, q*sw-pw+s*dw] f[k,cc,t,r,s]; the backward directions are
// the same sum accumulated into dx or dw.
void host_conv(const ConvRefShape& g, const std::vector<double>& x, const std::vector<double>& f,
               const std::vector<double>& y, std::vector<double>& y_out, std::vector<double>& dx,
               std::vector<double>& dw) {
  const std::int64_t cg = g.c / g.groups, kg = g.k / g.groups;
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t k = 0; k < g.k; ++k)
      for (std::int64_t o = 0; o < g.o; ++o)
        for (std::int64_t p = 0; p < g.p; ++p)
          for (std::int64_t q = 0; q < g.q; ++q)
            for (std::int64_t cc = 0; cc < cg; ++cc)
              for (std::int64_t t = 0; t < g.t; ++t)
                for (std::int64_t r = 0; r < g.r; ++r)
                  for (std::int64_t s = 0; s < g.s; ++s) {
                    const std::int64_t id = o * g.stride_d - g.pad_d + t, ih = p * g.stride_h - g.pad_h + r * g.dil_h,
                                       iw = q * g.stride_w - g.pad_w + s * g.dil_w;
                    if (id < 0 || id >= g.d || ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                    const std::int64_t c = (k / kg) * cg + cc;
                    const std::int64_t xi = idx(g.x_stride, n, c, id, ih, iw), fi = idx(g.f_stride, k, cc, t, r, s),
                                       yi = idx(g.y_stride, n, k, o, p, q);
                    y_out[yi] += x[xi] * f[fi];
                    dx[xi] += y[yi] * f[fi];
                    dw[fi] += x[xi] * y[yi];
                  }
}

std::vector<double> run_gpu(ConvDirection dir, const ConvRefShape& g, const std::vector<double>& x,
                            const std::vector<double>& f, const std::vector<double>& y, std::size_t out_count) {
  auto up = [](const std::vector<double>& v) {
    kernels::DeviceBuffer b(core::DType::f64, v.size());
    OPMARK_CHECK_CUDA(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
    return b;
  };
  auto dx = up(x), df = up(f), dy = up(y);
  kernels::DeviceBuffer out(core::DType::f64, out_count);
  kernels::reference_conv(dir, g, dx.get(), core::DType::f64, df.get(), core::DType::f64, dy.get(), core::DType::f64,
                          out.as<double>(), nullptr);
  std::vector<double> host(out_count);
  OPMARK_CHECK_CUDA(cudaMemcpy(host.data(), out.get(), out_count * sizeof(double), cudaMemcpyDeviceToHost));
  return host;
}

ConvRefShape shape(std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h, std::int64_t w, std::int64_t k,
                   std::int64_t t, std::int64_t r, std::int64_t s, std::int64_t pad, std::int64_t stride,
                   std::int64_t dil, std::int64_t groups, bool nhwc) {
  ConvRefShape g{};
  g.n = n, g.c = c, g.d = d, g.h = h, g.w = w, g.k = k, g.t = t, g.r = r, g.s = s;
  g.pad_d = t > 1 ? 1 : 0, g.pad_h = pad, g.pad_w = pad;
  g.stride_d = 1, g.stride_h = stride, g.stride_w = stride, g.dil_h = dil, g.dil_w = dil, g.groups = groups;
  g.o = d + 2 * g.pad_d - (t - 1);
  g.p = (h + 2 * pad - dil * (r - 1) - 1) / stride + 1;
  g.q = (w + 2 * pad - dil * (s - 1) - 1) / stride + 1;
  g.x_stride = kernels::dense_strides(n, c, d, h, w, nhwc);
  g.f_stride = kernels::dense_strides(k, c / groups, t, r, s, nhwc);
  g.y_stride = kernels::dense_strides(n, k, g.o, g.p, g.q, nhwc);
  return g;
}

}  // namespace

TEST(ReferenceConv, MatchesTheDefinitionInEveryDirection) {
  OPMARK_REQUIRE_GPU();
  const ConvRefShape shapes[] = {
      shape(2, 3, 1, 7, 9, 4, 1, 3, 3, 1, 1, 1, 1, false),   // plain 3x3, odd sizes
      shape(2, 6, 1, 11, 10, 4, 1, 3, 2, 2, 2, 2, 2, true),  // groups, stride, dilation, NHWC
      shape(1, 4, 1, 8, 8, 4, 1, 3, 3, 1, 1, 1, 4, false),   // depthwise
      shape(1, 2, 5, 6, 6, 3, 3, 3, 3, 1, 1, 1, 1, false),   // 3D
  };
  for (const auto& g : shapes) {
    const std::size_t nx = g.n * g.c * g.d * g.h * g.w, nf = g.k * (g.c / g.groups) * g.t * g.r * g.s,
                      ny = g.n * g.k * g.o * g.p * g.q;
    auto x = random_values(nx, 1), f = random_values(nf, 2), y = random_values(ny, 3);
    std::vector<double> y_ref(ny, 0), dx_ref(nx, 0), dw_ref(nf, 0);
    host_conv(g, x, f, y, y_ref, dx_ref, dw_ref);
    auto y_gpu = run_gpu(ConvDirection::fwd, g, x, f, y, ny);
    auto dx_gpu = run_gpu(ConvDirection::bwd_data, g, x, f, y, nx);
    auto dw_gpu = run_gpu(ConvDirection::bwd_filter, g, x, f, y, nf);
    for (std::size_t i = 0; i < ny; ++i) ASSERT_NEAR(y_gpu[i], y_ref[i], 1e-12) << "fwd " << i;
    for (std::size_t i = 0; i < nx; ++i) ASSERT_NEAR(dx_gpu[i], dx_ref[i], 1e-12) << "bwd_data " << i;
    for (std::size_t i = 0; i < nf; ++i) ASSERT_NEAR(dw_gpu[i], dw_ref[i], 1e-12) << "bwd_filter " << i;
  }
}
