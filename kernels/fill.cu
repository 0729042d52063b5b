#include <cmath>
#include <limits>

#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/fill.h"

namespace opmark::kernels {
namespace {

// splitmix64: a counter-based generator, so element i needs no state from element i-1.
__device__ __forceinline__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Element i of a fill with this seed and range: the fill writes it, the seeded reduction regenerates it.
template <class T>
__device__ __forceinline__ T seeded_value(std::uint64_t seed, std::size_t i, double lo, double hi) {
  const double u = static_cast<double>(mix(seed ^ mix(i)) >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  if constexpr (std::is_integral_v<T>) {
    const double span = hi - lo + 1.0;  // lo, hi already integral
    return static_cast<T>(lo + floor(u * span));
  } else {
    return store_from_double<T>(lo + u * (hi - lo));
  }
}

template <class T>
__global__ void fill_kernel(T* dst, std::size_t count, std::uint64_t seed, double lo, double hi) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = seeded_value<T>(seed, i, lo, hi);
}

template <class T>
__global__ void reduce_seeded_kernel(double* out, std::size_t count, std::uint64_t first_seed, int fills, double lo,
                                     double hi, SeededReduceOp op) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    double acc = 0;
    for (int f = 0; f < fills; ++f) {
      const T v = seeded_value<T>(first_seed + static_cast<std::uint64_t>(f), i, lo, hi);
      const double x = load_as_double(&v, 0);
      if (f == 0) acc = x;
      else if (op == SeededReduceOp::sum) acc += x;
      else if (op == SeededReduceOp::prod) acc *= x;
      else if (op == SeededReduceOp::max) acc = fmax(acc, x);
      else acc = fmin(acc, x);
    }
    out[i] = acc;
  }
}

template <class T>
__global__ void poison_kernel(T* dst, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    if constexpr (std::is_integral_v<T>) dst[i] = std::numeric_limits<T>::min();
    else dst[i] = store_from_double<T>(std::numeric_limits<double>::quiet_NaN());
  }
}

template <class T>
__global__ void to_double_kernel(const T* src, std::size_t count, double* dst) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = load_as_double(src, i);
}

constexpr unsigned kThreads = 256;

// Integer fills draw whole numbers in [ceil(lo), floor(hi)]; the fill and the seeded reduction round alike.
void round_integer_range(core::DType type, double& lo, double& hi) {
  if (!core::is_integer(type)) return;
  lo = std::ceil(lo);
  hi = std::floor(hi);
}

}  // namespace

void fill_uniform(void* dst, std::size_t count, core::DType type, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream) {
  if (count == 0) return;
  round_integer_range(type, lo, hi);
  if (!(lo <= hi)) throw Error("fill_uniform: empty range");
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_kernel<T><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(static_cast<T*>(dst), count, seed, lo, hi);
  });
  OPMARK_CHECK_LAUNCH();
}

void reduce_seeded_fills(double* out, std::size_t count, core::DType type, std::uint64_t first_seed, int fills,
                         double lo, double hi, SeededReduceOp op, cudaStream_t stream) {
  if (count == 0) return;
  if (fills < 1) throw Error("reduce_seeded_fills: no fills to reduce");
  round_integer_range(type, lo, hi);
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_seeded_kernel<T><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(out, count, first_seed, fills, lo,
                                                                                    hi, op);
  });
  OPMARK_CHECK_LAUNCH();
}

void fill_random(void* dst, std::size_t count, core::DType type, std::uint64_t seed, cudaStream_t stream) {
  switch (type) {
    case core::DType::i8: return fill_uniform(dst, count, type, seed, -127, 127, stream);
    case core::DType::i32: return fill_uniform(dst, count, type, seed, -1000, 1000, stream);
    default: return fill_uniform(dst, count, type, seed, -1.0, 1.0, stream);
  }
}

void poison(void* dst, std::size_t count, core::DType type, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    poison_kernel<T><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(static_cast<T*>(dst), count);
  });
  OPMARK_CHECK_LAUNCH();
}

void to_double(const void* src, core::DType type, std::size_t count, double* dst, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    to_double_kernel<T><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(static_cast<const T*>(src), count, dst);
  });
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
