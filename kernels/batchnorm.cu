#include "kernels/batchnorm.h"

#include <algorithm>
#include <cmath>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/block_reduce.cuh"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace {

// The tensor as N x C planes of H x W, each cut into chunks a block covers with kInFlight units per thread. Units are
// 16-byte vectors where every plane starts on a vector boundary, single elements otherwise. Walking planes keeps the
// channel fixed per block (no division per element to find it).
struct PlaneTiling {
  std::int64_t planes = 0, plane_units = 0, chunks = 0;
  unsigned threads = 0;
  std::int64_t chunk_units() const { return std::int64_t(threads) * kInFlight; }
  std::int64_t blocks() const { return planes * chunks; }
};

template <class T>
bool planes_vectorisable(const void* x, const void* y, std::int64_t hw) {
  return aligned16(x) && aligned16(y) && hw % Vec<T>::kCount == 0;
}

PlaneTiling tile_planes(std::int64_t planes, std::int64_t plane_units) {
  PlaneTiling t;
  t.planes = planes;
  t.plane_units = plane_units;
  // Small planes (7x7, 14x14) get a narrow block rather than a mostly idle wide one.
  const std::int64_t want = (plane_units + kInFlight - 1) / kInFlight;
  t.threads = static_cast<unsigned>(std::min<std::int64_t>(kThreads, std::max<std::int64_t>(32, (want + 31) / 32 * 32)));
  t.chunks = (plane_units + t.chunk_units() - 1) / t.chunk_units();
  return t;
}

// y = x * a[c] + b[c] with a = scale * rstd, b = bias - mean * a: one block per plane chunk.
template <class T, class U>
__global__ void normalize_kernel(const T* __restrict__ x, T* __restrict__ y, const float* __restrict__ scale,
                                 const float* __restrict__ bias, const float* __restrict__ mean,
                                 const float* __restrict__ var, const float* __restrict__ invstd, std::int64_t c,
                                 std::int64_t plane_units, std::int64_t chunks) {
  const std::int64_t plane = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const std::int64_t ch = plane % c;
  const float rstd = invstd ? invstd[ch] : rsqrtf(var[ch] + static_cast<float>(kBatchNormEps));
  const float a = scale[ch] * rstd, b = bias[ch] - mean[ch] * a;
  const U* xu = reinterpret_cast<const U*>(x) + plane * plane_units;
  U* yu = reinterpret_cast<U*>(y) + plane * plane_units;
  const std::int64_t first = chunk * std::int64_t(blockDim.x) * kInFlight + threadIdx.x;
  U v[kInFlight];
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    const std::int64_t i = first + u * std::int64_t(blockDim.x);
    if (i < plane_units) v[u] = xu[i];
  }
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    const std::int64_t i = first + u * std::int64_t(blockDim.x);
    if (i >= plane_units) break;
    U r;
#pragma unroll
    for (int k = 0; k < U::kCount; ++k) r.v[k] = from_float<T>(fmaf(to_float(v[u].v[k]), a, b));
    yu[i] = r;
  }
}

// Partial Welford statistics. Block (channel, split) takes every `splits`-th unit (16-byte vector, or element where
// planes are not vector-aligned) of the channel's N planes, the planes flattened so that a block's threads spread
// over all N planes at once: small planes (7x7) and few channels (64) both keep the GPU busy. Unit e of a channel
// is plane e / plane_units, offset e % plane_units (I: 32-bit where the channel allows).
template <class T, class U, class I>
__global__ void channel_partials_kernel(const T* __restrict__ x, float* __restrict__ partials, std::int64_t n,
                                        std::int64_t c, std::int64_t plane_units, unsigned splits) {
  const std::int64_t ch = blockIdx.x / splits;
  const unsigned split = blockIdx.x % splits;
  const U* xu = reinterpret_cast<const U*>(x);
  const auto total = static_cast<I>(n * plane_units), plane = static_cast<I>(plane_units);
  const I step = static_cast<I>(splits) * blockDim.x;
  const auto load = [&](I e) {
    const I b = e / plane;
    return xu[(std::int64_t(b) * c + ch) * plane_units + std::int64_t(e - b * plane)];
  };
  const auto fold = [](Welford& s, const U& u) {
    float v[U::kCount];
#pragma unroll
    for (int k = 0; k < U::kCount; ++k) v[k] = to_float(u.v[k]);
    s.add_chunk(v);
  };
  Welford s;
  I e = static_cast<I>(split) * blockDim.x + threadIdx.x;
  for (; e + (kInFlight - 1) * step < total; e += kInFlight * step) {
    U u[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) u[k] = load(e + k * step);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) fold(s, u[k]);
  }
  for (; e < total; e += step) fold(s, load(e));
  s = block_reduce(s);
  if (threadIdx.x == 0) {
    float* out = partials + 3 * blockIdx.x;
    out[0] = s.n;
    out[1] = s.mean;
    out[2] = s.m2;
  }
}

// Normalisation for small planes: element-wise over the whole tensor (channel = (i / hw) % c, 32-bit), since a
// block per 7x7 plane would be mostly idle.
template <class T>
__global__ void normalize_small_kernel(const T* __restrict__ x, T* __restrict__ y, const float* __restrict__ scale,
                                       const float* __restrict__ bias, const float* __restrict__ mean,
                                       const float* __restrict__ var, const float* __restrict__ invstd,
                                       std::uint32_t count, std::uint32_t c, std::uint32_t hw) {
  const std::uint32_t first = blockIdx.x * (kThreads * kInFlight) + threadIdx.x;
  float v[kInFlight];
#pragma unroll
  for (int u = 0; u < kInFlight; ++u)
    if (first + u * kThreads < count) v[u] = to_float(x[first + u * kThreads]);
#pragma unroll
  for (int u = 0; u < kInFlight; ++u) {
    const std::uint32_t i = first + u * kThreads;
    if (i >= count) break;
    const std::uint32_t ch = (i / hw) % c;
    const float rstd = invstd ? invstd[ch] : rsqrtf(var[ch] + static_cast<float>(kBatchNormEps));
    const float a = scale[ch] * rstd;
    y[i] = from_float<T>(fmaf(v[u] - mean[ch], a, bias[ch]));
  }
}

// One thread per channel folds its splits' partial statistics, in a fixed order.
__global__ void channel_stats_kernel(const float* __restrict__ partials, unsigned splits, std::int64_t c,
                                     float* __restrict__ mean, float* __restrict__ invstd) {
  const std::int64_t ch = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (ch >= c) return;
  Welford s;
  for (unsigned i = 0; i < splits; ++i) {
    const float* p = partials + 3 * (ch * splits + i);
    s = Welford::combine(s, Welford{p[0], p[1], p[2]});
  }
  mean[ch] = s.mean;
  invstd[ch] = rsqrtf(s.m2 / s.n + static_cast<float>(kBatchNormEps));
}

// Splits per channel: enough blocks to fill every SM twice over, each with a full tile of units at least.
unsigned stats_splits(std::int64_t c, std::int64_t channel_units) {
  const std::int64_t want = (core::kDefaultSms * 16 + c - 1) / c;
  const std::int64_t most = std::max<std::int64_t>(1, channel_units / (std::int64_t(kThreads) * kInFlight));
  return static_cast<unsigned>(std::max<std::int64_t>(1, std::min({want, most, std::int64_t(256)})));
}

// Planes smaller than this take the flattened kernels (a plane per block, or per thread group, would idle).
constexpr std::int64_t kSmallPlane = 64;

// 32-bit indices with headroom: index + (kInFlight - 1) * step must not wrap.
bool fits_32_bits(std::int64_t count) { return count < (std::int64_t(1) << 31); }

template <class T>
void launch_normalize(const void* x, void* y, const float* scale, const float* bias, const float* mean,
                      const float* var, const float* invstd, std::int64_t n, std::int64_t c, std::int64_t hw,
                      cudaStream_t stream) {
  const std::int64_t count = n * c * hw;
  if (hw < kSmallPlane && fits_32_bits(count)) {
    const std::int64_t per_block = std::int64_t(kThreads) * kInFlight;
    normalize_small_kernel<T><<<static_cast<unsigned>((count + per_block - 1) / per_block), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), scale, bias, mean, var, invstd,
        static_cast<std::uint32_t>(count), static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(hw));
  } else if (planes_vectorisable<T>(x, y, hw)) {
    const PlaneTiling t = tile_planes(n * c, hw / Vec<T>::kCount);
    normalize_kernel<T, Vec<T>><<<static_cast<unsigned>(t.blocks()), t.threads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), scale, bias, mean, var, invstd, c, t.plane_units, t.chunks);
  } else {
    const PlaneTiling t = tile_planes(n * c, hw);
    normalize_kernel<T, Scalar<T>><<<static_cast<unsigned>(t.blocks()), t.threads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), scale, bias, mean, var, invstd, c, t.plane_units, t.chunks);
  }
  OPMARK_CHECK_LAUNCH();
}

}  // namespace

std::size_t batchnorm_train_workspace_bytes(std::int64_t n, std::int64_t c, std::int64_t hw) {
  // Sized for element units: vector units are fewer, so they never need more splits.
  return static_cast<std::size_t>(c) * stats_splits(c, n * hw) * 3 * sizeof(float);
}

void batchnorm_inference(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                         const float* mean, const float* var, std::int64_t n, std::int64_t c, std::int64_t hw,
                         cudaStream_t stream) {
  if (n * c * hw == 0) return;
  dispatch_float_dtype(type, "batch norm runs", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_normalize<T>(x, y, scale, bias, mean, var, nullptr, n, c, hw, stream);
  });
}

void batchnorm_train(core::DType type, const void* x, void* y, const float* scale, const float* bias,
                     float* save_mean, float* save_invstd, void* workspace, std::int64_t n, std::int64_t c,
                     std::int64_t hw, cudaStream_t stream) {
  if (n * c * hw == 0) return;
  auto* partials = static_cast<float*>(workspace);
  dispatch_float_dtype(type, "batch norm runs", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool vec = planes_vectorisable<T>(x, x, hw);
    const std::int64_t plane_units = vec ? hw / Vec<T>::kCount : hw;
    const unsigned splits = stats_splits(c, n * plane_units);
    const unsigned blocks = static_cast<unsigned>(c * splits);
    const T* xt = static_cast<const T*>(x);
    if (vec && fits_32_bits(n * plane_units))
      channel_partials_kernel<T, Vec<T>, std::uint32_t><<<blocks, kThreads, 0, stream>>>(xt, partials, n, c,
                                                                                         plane_units, splits);
    else if (vec)
      channel_partials_kernel<T, Vec<T>, std::int64_t><<<blocks, kThreads, 0, stream>>>(xt, partials, n, c,
                                                                                        plane_units, splits);
    else if (fits_32_bits(n * plane_units))
      channel_partials_kernel<T, Scalar<T>, std::uint32_t><<<blocks, kThreads, 0, stream>>>(xt, partials, n, c,
                                                                                            plane_units, splits);
    else
      channel_partials_kernel<T, Scalar<T>, std::int64_t><<<blocks, kThreads, 0, stream>>>(xt, partials, n, c,
                                                                                           plane_units, splits);
    OPMARK_CHECK_LAUNCH();
    channel_stats_kernel<<<static_cast<unsigned>((c + 127) / 128), 128, 0, stream>>>(partials, splits, c, save_mean,
                                                                                     save_invstd);
    OPMARK_CHECK_LAUNCH();
    launch_normalize<T>(x, y, scale, bias, save_mean, nullptr, save_invstd, n, c, hw, stream);
  });
}

namespace {

// One element of the reference, in float64: the same code on the host (CPU tests) and on the GPU (verification).
__host__ __device__ double reference_normalize(double x, double mean, double var, double scale, double bias) {
  return (x - mean) / sqrt(var + kBatchNormEps) * scale + bias;
}

// A channel's batch mean and biased variance over N x H x W, two passes in float64; one block per channel.
constexpr unsigned kReferenceThreads = 256;
__global__ void reference_statistics(const double* x, std::int64_t n, std::int64_t c, std::int64_t hw, double* mean,
                                     double* var) {
  __shared__ double partial[kReferenceThreads];
  const std::int64_t ch = blockIdx.x, count = n * hw;
  const auto at = [&](std::int64_t k) { return x[((k / hw) * c + ch) * hw + k % hw]; };
  const auto block_sum = [&](double v) {
    partial[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = kReferenceThreads / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
      __syncthreads();
    }
    const double total = partial[0];
    __syncthreads();
    return total;
  };
  double sum = 0;
  for (std::int64_t k = threadIdx.x; k < count; k += kReferenceThreads) sum += at(k);
  const double mu = block_sum(sum) / double(count);
  double sq = 0;
  for (std::int64_t k = threadIdx.x; k < count; k += kReferenceThreads) {
    const double d = at(k) - mu;
    sq += d * d;
  }
  const double v = block_sum(sq) / double(count);
  if (threadIdx.x == 0) {
    mean[ch] = mu;
    var[ch] = v;
  }
}

__global__ void reference_apply(const double* x, const double* scale, const double* bias, const double* mean,
                                const double* var, std::int64_t total, std::int64_t c, std::int64_t hw, double* y) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t ch = (i / hw) % c;
    y[i] = reference_normalize(x[i], mean[ch], var[ch], scale[ch], bias[ch]);
  }
}

}  // namespace

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
    y[i] = reference_normalize(x[i], m[ch], v[ch], scale[ch], bias[ch]);
  }
  return y;
}

void batchnorm_reference_on_device(bool train, const double* x, const double* scale, const double* bias,
                                   const double* mean, const double* var, std::int64_t n, std::int64_t c,
                                   std::int64_t hw, double* y, cudaStream_t stream) {
  const std::int64_t total = n * c * hw;
  if (total == 0) return;
  DeviceBuffer batch_mean, batch_var;
  if (train) {
    batch_mean = DeviceBuffer(core::DType::f64, static_cast<std::size_t>(c));
    batch_var = DeviceBuffer(core::DType::f64, static_cast<std::size_t>(c));
    reference_statistics<<<static_cast<unsigned>(c), kReferenceThreads, 0, stream>>>(
        x, n, c, hw, batch_mean.as<double>(), batch_var.as<double>());
    OPMARK_CHECK_CUDA(cudaGetLastError());
    mean = batch_mean.as<double>();
    var = batch_var.as<double>();
  }
  const std::int64_t blocks = std::min<std::int64_t>((total + kReferenceThreads - 1) / kReferenceThreads, 65536);
  reference_apply<<<static_cast<unsigned>(blocks), kReferenceThreads, 0, stream>>>(x, scale, bias, mean, var, total,
                                                                                 c, hw, y);
  OPMARK_CHECK_CUDA(cudaGetLastError());
  // The statistics' buffers are freed on return: the stream must be done with them.
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
}

}  // namespace opmark::kernels
