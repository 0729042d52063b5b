#include "kernels/batchnorm.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "kernels/block_reduce.cuh"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"

namespace opmark::kernels {
namespace {

template <class T>
__global__ void normalize_kernel(const T* __restrict__ x, T* __restrict__ y, const float* __restrict__ scale,
                                 const float* __restrict__ bias, const float* __restrict__ mean,
                                 const float* __restrict__ var, const float* __restrict__ invstd, std::int64_t count,
                                 std::int64_t c, std::int64_t hw) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t ch = (i / hw) % c;
    const float rstd = invstd ? invstd[ch] : rsqrtf(var[ch] + static_cast<float>(kBatchNormEps));
    y[i] = from_float<T>((to_float(x[i]) - mean[ch]) * rstd * scale[ch] + bias[ch]);
  }
}

// One block per channel: Welford over the channel's N x H x W values.
template <class T>
__global__ void channel_stats_kernel(const T* __restrict__ x, float* __restrict__ mean, float* __restrict__ invstd,
                                     std::int64_t n, std::int64_t c, std::int64_t hw) {
  for (std::int64_t ch = blockIdx.x; ch < c; ch += gridDim.x) {
    Welford s;
    for (std::int64_t b = 0; b < n; ++b) {
      const T* plane = x + (b * c + ch) * hw;
      for (std::int64_t i = threadIdx.x; i < hw; i += blockDim.x) s.add(to_float(plane[i]));
    }
    s = block_reduce(s);
    if (threadIdx.x == 0) {
      mean[ch] = s.mean;
      invstd[ch] = rsqrtf(s.m2 / s.n + static_cast<float>(kBatchNormEps));
    }
  }
}

template <class F>
void dispatch_float(core::DType type, F&& f) {
  switch (type) {
    case core::DType::f32: return f(TypeTag<float>{});
    case core::DType::f16: return f(TypeTag<__half>{});
    case core::DType::bf16: return f(TypeTag<__nv_bfloat16>{});
    default: throw Error(std::string("batch norm runs fp32, fp16 and bf16, not ") + core::name_of(type));
  }
}

}  // namespace

void batchnorm_inference(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                         const float* mean, const float* var, std::int64_t n, std::int64_t c, std::int64_t hw,
                         cudaStream_t stream) {
  const std::int64_t count = n * c * hw;
  dispatch_float(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    normalize_kernel<T><<<blocks_for(static_cast<std::size_t>(count), kThreads, 132u * 16u), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), scale, bias, mean, var, nullptr, count, c, hw);
  });
  OPMARK_CHECK_LAUNCH();
}

void batchnorm_train(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                     float* save_mean, float* save_invstd, std::int64_t n, std::int64_t c, std::int64_t hw,
                     cudaStream_t stream) {
  const std::int64_t count = n * c * hw;
  dispatch_float(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    channel_stats_kernel<T><<<static_cast<unsigned>(std::min<std::int64_t>(c, 65535)), kThreads, 0, stream>>>(
        static_cast<const T*>(x), save_mean, save_invstd, n, c, hw);
    OPMARK_CHECK_LAUNCH();
    normalize_kernel<T><<<blocks_for(static_cast<std::size_t>(count), kThreads, 132u * 16u), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), scale, bias, save_mean, nullptr, save_invstd, count, c, hw);
  });
  OPMARK_CHECK_LAUNCH();
}

std::vector<double> batchnorm_reference(bool train, const std::vector<double>& x, const std::vector<double>& scale,
                                        const std::vector<double>& bias, const std::vector<double>& mean,
                                        const std::vector<double>& var, std::int64_t n, std::int64_t c,
                                        std::int64_t hw) {
  std::vector<double> m(mean), v(var);
  if (train) {
    m.assign(static_cast<std::size_t>(c), 0.0);
    v.assign(static_cast<std::size_t>(c), 0.0);
    for (std::int64_t ch = 0; ch < c; ++ch) {
      double sum = 0, sq = 0;
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t i = 0; i < hw; ++i) sum += x[static_cast<std::size_t>((b * c + ch) * hw + i)];
      const double mu = sum / double(n * hw);
      for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t i = 0; i < hw; ++i) {
          const double d = x[static_cast<std::size_t>((b * c + ch) * hw + i)] - mu;
          sq += d * d;
        }
      m[static_cast<std::size_t>(ch)] = mu;
      v[static_cast<std::size_t>(ch)] = sq / double(n * hw);
    }
  }
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t ch = static_cast<std::size_t>((static_cast<std::int64_t>(i) / hw) % c);
    y[i] = (x[i] - m[ch]) / std::sqrt(v[ch] + kBatchNormEps) * scale[ch] + bias[ch];
  }
  return y;
}

}  // namespace opmark::kernels
