#include <cmath>
#include <cstdio>

#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/dtype_dispatch.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned long long kNoIndex = ~0ull;

struct Totals {
  double ref_sq;
  double diff_sq;
  unsigned long long wrong;
  unsigned long long first_wrong;
  unsigned long long max_abs_bits;     // non-negative doubles order like their bit patterns
  unsigned long long max_scaled_bits;
};

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void sum_squares_kernel(const double* ref, std::size_t count, Totals* t) {
  double s = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x)
    s += ref[i] * ref[i];
  s = warp_sum(s);
  if ((threadIdx.x & 31) == 0) atomicAdd(&t->ref_sq, s);
}

template <class T>
__global__ void compare_kernel(const T* out, double out_scale, const double* ref, std::size_t count,
                               double tolerance, double rms, Totals* t) {
  double diff_sq = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const double got = load_as_double(out, i) * out_scale;
    const double want = ref[i];
    const double err = fabs(got - want);
    const double scale = fmax(fabs(want), rms);
    // Poison (NaN, or INT_MIN for integers) fails here too: NaN compares false, INT_MIN is far off any product.
    const bool bad = !isfinite(got) || !(err <= tolerance * scale) ||
                     (std::is_integral_v<T> && got == static_cast<double>(std::numeric_limits<T>::min()));
    if (bad) {
      atomicAdd(&t->wrong, 1ull);
      atomicMin(&t->first_wrong, static_cast<unsigned long long>(i));
    }
    if (isfinite(got)) {
      diff_sq += err * err;
      atomicMax(&t->max_abs_bits, static_cast<unsigned long long>(__double_as_longlong(err)));
      if (scale > 0)
        atomicMax(&t->max_scaled_bits, static_cast<unsigned long long>(__double_as_longlong(err / scale)));
    }
  }
  diff_sq = warp_sum(diff_sq);
  if ((threadIdx.x & 31) == 0) atomicAdd(&t->diff_sq, diff_sq);
}

template <class T>
__global__ void read_one_kernel(const T* out, double out_scale, std::size_t i, double* value) {
  *value = load_as_double(out, i) * out_scale;
}

}  // namespace

CompareResult worse_of(const CompareResult& a, const CompareResult& b) {
  return a.ok() && (!b.ok() || b.max_scaled_error > a.max_scaled_error) ? b : a;
}

std::string CompareResult::summary() const {
  char buf[512];
  if (wrong == 0 && norm_ok()) {
    std::snprintf(buf, sizeof buf, "all %zu elements within tolerance %.1e (max scaled error %.2e, rel norm error %.2e)",
                  count, tolerance, max_scaled_error, rel_norm_error);
  } else if (wrong == 0) {
    std::snprintf(buf, sizeof buf,
                  "rel norm error %.3e above %.1e, though all %zu elements are within tolerance %.1e (max scaled "
                  "error %.3e)",
                  rel_norm_error, norm_tolerance, count, tolerance, max_scaled_error);
  } else {
    std::snprintf(buf, sizeof buf,
                  "%zu of %zu elements wrong (first at index %zu: got %.6g, expected %.6g); max scaled error %.3e "
                  "against tolerance %.1e, max abs error %.3e, rel norm error %.3e",
                  wrong, count, first_wrong, first_wrong_value, first_wrong_expected, max_scaled_error, tolerance,
                  max_abs_error, rel_norm_error);
  }
  return buf;
}

CompareResult compare_to_reference(const void* out, core::DType out_type, const double* ref, std::size_t count,
                                   double tolerance, cudaStream_t stream, double norm_tolerance, double out_scale) {
  CompareResult r;
  r.count = count;
  r.tolerance = tolerance;
  r.norm_tolerance = norm_tolerance;
  if (count == 0) return r;
  DeviceBuffer totals_buf(sizeof(Totals));
  Totals init{0, 0, 0, kNoIndex, 0, 0};
  auto* totals = totals_buf.as<Totals>();
  OPMARK_CHECK_CUDA(cudaMemcpyAsync(totals, &init, sizeof init, cudaMemcpyHostToDevice, stream));
  const unsigned blocks = blocks_for(count, kThreads, 4096);
  sum_squares_kernel<<<blocks, kThreads, 0, stream>>>(ref, count, totals);
  OPMARK_CHECK_LAUNCH();
  Totals host{};
  OPMARK_CHECK_CUDA(cudaMemcpyAsync(&host, totals, sizeof host, cudaMemcpyDeviceToHost, stream));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  r.ref_rms = std::sqrt(host.ref_sq / static_cast<double>(count));

  DeviceBuffer first_value(sizeof(double));
  dispatch_dtype(out_type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    compare_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(out), out_scale, ref, count, tolerance,
                                                       r.ref_rms, totals);
    OPMARK_CHECK_LAUNCH();
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(&host, totals, sizeof host, cudaMemcpyDeviceToHost, stream));
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    if (host.wrong > 0) {
      read_one_kernel<T><<<1, 1, 0, stream>>>(static_cast<const T*>(out), out_scale, host.first_wrong,
                                              first_value.as<double>());
      OPMARK_CHECK_LAUNCH();
    }
  });
  r.wrong = host.wrong;
  r.max_abs_error = __builtin_bit_cast(double, host.max_abs_bits);
  r.max_scaled_error = __builtin_bit_cast(double, host.max_scaled_bits);
  r.rel_norm_error = host.ref_sq > 0 ? std::sqrt(host.diff_sq / host.ref_sq) : std::sqrt(host.diff_sq);
  if (r.wrong > 0) {
    r.first_wrong = host.first_wrong;
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(&r.first_wrong_value, first_value.get(), sizeof(double), cudaMemcpyDeviceToHost,
                                      stream));
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(&r.first_wrong_expected, ref + r.first_wrong, sizeof(double),
                                      cudaMemcpyDeviceToHost, stream));
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  return r;
}

}  // namespace opmark::kernels
