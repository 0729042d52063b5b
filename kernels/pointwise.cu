#include "kernels/pointwise.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/vec.cuh"

namespace opmark::kernels {

PointwiseOp pointwise_op(const std::string& name) {
  static const std::pair<const char*, PointwiseOp> names[] = {
      {"copy", PointwiseOp::copy},         {"relu", PointwiseOp::relu},           {"gelu", PointwiseOp::gelu},
      {"silu", PointwiseOp::silu},         {"sigmoid", PointwiseOp::sigmoid},     {"tanh", PointwiseOp::tanh},
      {"add", PointwiseOp::add},           {"mul", PointwiseOp::mul},             {"bias_add", PointwiseOp::bias_add},
      {"bias_relu", PointwiseOp::bias_relu}, {"bias_gelu", PointwiseOp::bias_gelu}, {"scale", PointwiseOp::scale},
      {"masked_fill", PointwiseOp::masked_fill}};
  for (const auto& [n, op] : names)
    if (name == n) return op;
  throw Error("unknown pointwise op '" + name + "'");
}

namespace {

constexpr unsigned kThreads = 256;

// Blocks of kThreads the current device holds at once (a wave): its multiprocessors times the blocks each holds.
std::int64_t resident_blocks() {
  int device = 0, sms = 0, threads = 0;
  OPMARK_CHECK_CUDA(cudaGetDevice(&device));
  OPMARK_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  OPMARK_CHECK_CUDA(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return std::int64_t{sms} * std::max(1, threads / static_cast<int>(kThreads));
}

// Exact (erf) GELU, as PyTorch's default.
__device__ __forceinline__ float gelu(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

template <PointwiseOp Op>
__device__ __forceinline__ float apply(float a, float b) {
  if constexpr (Op == PointwiseOp::copy) return a;
  else if constexpr (Op == PointwiseOp::relu) return fmaxf(a, 0.0f);
  else if constexpr (Op == PointwiseOp::gelu) return gelu(a);
  else if constexpr (Op == PointwiseOp::silu) return a / (1.0f + __expf(-a));
  else if constexpr (Op == PointwiseOp::sigmoid) return 1.0f / (1.0f + __expf(-a));
  else if constexpr (Op == PointwiseOp::tanh) return tanhf(a);
  else if constexpr (Op == PointwiseOp::add || Op == PointwiseOp::bias_add) return a + b;
  else if constexpr (Op == PointwiseOp::mul) return a * b;
  else if constexpr (Op == PointwiseOp::bias_relu) return fmaxf(a + b, 0.0f);
  else if constexpr (Op == PointwiseOp::scale) return a * static_cast<float>(kPointwiseScale);
  else if constexpr (Op == PointwiseOp::masked_fill) return b != 0.0f ? static_cast<float>(kMaskedFillValue) : a;
  else return gelu(a + b);  // bias_gelu
}

constexpr bool binary(PointwiseOp op) { return op == PointwiseOp::add || op == PointwiseOp::mul; }
constexpr bool biased(PointwiseOp op) {
  return op == PointwiseOp::bias_add || op == PointwiseOp::bias_relu || op == PointwiseOp::bias_gelu;
}
constexpr bool masked(PointwiseOp op) { return op == PointwiseOp::masked_fill; }
// Whether vectors of `per_vector` elements can walk the tensor: a biased op's vectors must not straddle a row (its
// bias is indexed by the vector's column) unless a row divides a vector (every vector then meets the same bias
// pattern); the other ops' walk the tensor flat.
constexpr bool vectors_walk(PointwiseOp op, std::int64_t rows, std::int64_t cols, std::int64_t per_vector) {
  return cols % per_vector == 0 || per_vector % cols == 0 || !biased(op) || rows == 1;
}

// The mask bytes of one unit (a vector's kCount elements, or one): aligned to their size, so one load.
template <int N>
struct alignas(N) MaskUnit {
  unsigned char v[N];
};

// One element of the op, in float: the units' and the tail's arithmetic.
template <class T, PointwiseOp Op>
__device__ __forceinline__ T apply_element(T a, T b, unsigned char m) {
  float operand = 0.0f;
  if constexpr (binary(Op) || biased(Op)) operand = to_float(b);
  if constexpr (masked(Op)) operand = m != 0 ? 1.0f : 0.0f;
  return from_float<T>(apply<Op>(to_float(a), operand));
}

// Each thread moves kUnits units (16-byte vectors, or Scalars where the shape or alignment rules vectors out) of a
// block-sized tile, all loads issued before the first store (several 16-byte loads in flight per thread is what
// saturates HBM), tile after tile where the grid is smaller than the tensor. A biased op's units never straddle rows
// (the launcher checks cols % kCount, or that there is one row), so the bias index is the unit's column, or rows
// shorter than a unit divide it (bias_period = cols) and every unit meets the same bias pattern; the other ops walk
// the tensor flat. The first block's first threads do the last count % kCount elements (the tail) one by one. I is
// the index type: 32-bit where the tensor allows, because a 64-bit modulo per unit costs more than the arithmetic of
// the ops.
template <class T, class U, class I, PointwiseOp Op, int kUnits>
__global__ void pointwise_kernel(const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ bias,
                                 const unsigned char* __restrict__ mask, T* __restrict__ out, I units, I cols_units,
                                 int tail, int bias_period) {
  // The tail's loads are issued first and its store made last, so that a thread with both a tail element and units
  // waits for one round trip to memory, not two (a tensor of a few vectors is nothing but that wait).
  const bool has_tail = blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail;  // only a flat walk or one row has one
  const I tail_e = units * U::kCount + threadIdx.x;
  T tail_x{}, tail_operand{};
  unsigned char tail_mask = 0;
  if (has_tail) {
    tail_x = x[tail_e];
    if constexpr (binary(Op)) tail_operand = y[tail_e];
    if constexpr (biased(Op)) tail_operand = bias[bias_period > 0 ? tail_e % bias_period : tail_e];
    if constexpr (masked(Op)) tail_mask = mask[tail_e];
  }
  using M = MaskUnit<U::kCount>;
  const M* mu = reinterpret_cast<const M*>(mask);
  const U* xu = reinterpret_cast<const U*>(x);
  const U* yu = reinterpret_cast<const U*>(y);
  const U* bu = reinterpret_cast<const U*>(bias);
  U* ou = reinterpret_cast<U*>(out);
  U bias_pattern{};
  if constexpr (biased(Op))
    if (bias_period > 0)
      for (int k = 0; k < U::kCount; ++k) bias_pattern.v[k] = bias[k % bias_period];
  const I tile = static_cast<I>(kThreads * kUnits);
  const I step = static_cast<I>(gridDim.x) * tile;
  for (I base = static_cast<I>(blockIdx.x) * tile + threadIdx.x; base < units; base += step) {
    U a[kUnits], b[kUnits];
    M m[kUnits];
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I i = base + u * kThreads;
      if (i < units) {
        a[u] = xu[i];
        if constexpr (binary(Op)) b[u] = yu[i];
        if constexpr (biased(Op)) b[u] = bias_period > 0 ? bias_pattern : bu[i % cols_units];
        if constexpr (masked(Op)) m[u] = mu[i];
      }
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I i = base + u * kThreads;
      if (i >= units) break;
      U r;
#pragma unroll
      for (int k = 0; k < U::kCount; ++k) {
        T operand{};
        if constexpr (binary(Op) || biased(Op)) operand = b[u].v[k];
        r.v[k] = apply_element<T, Op>(a[u].v[k], operand, masked(Op) ? m[u].v[k] : 0);
      }
      ou[i] = r;
    }
  }
  if (has_tail) out[tail_e] = apply_element<T, Op>(tail_x, tail_operand, tail_mask);
}

template <class T, class U, class I, PointwiseOp Op, int kUnits>
void launch_units(const PointwisePath& path, const void* x, const void* y, const void* bias, const void* mask,
                  void* out, std::int64_t count, std::int64_t cols, cudaStream_t stream) {
  const std::int64_t units = count / U::kCount;
  const std::int64_t per_block = std::int64_t(kThreads) * kUnits;
  std::int64_t blocks = std::max<std::int64_t>(1, (units + per_block - 1) / per_block);  // one for a tail alone
  if (path.max_blocks > 0) blocks = std::min(blocks, path.max_blocks);
  pointwise_kernel<T, U, I, Op, kUnits><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const T*>(x), static_cast<const T*>(y), static_cast<const T*>(bias),
      static_cast<const unsigned char*>(mask), static_cast<T*>(out),
      static_cast<I>(units), static_cast<I>(cols / U::kCount), static_cast<int>(count - units * U::kCount),
      cols < U::kCount && U::kCount % cols == 0 ? static_cast<int>(cols) : 0);
}

template <class T, PointwiseOp Op>
void launch_typed(const PointwisePath& path, const void* x, const void* y, const void* bias, const void* mask,
                  void* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const std::int64_t count = rows * cols;
  if (count == 0) return;
  const bool vec = vectors_walk(Op, rows, cols, Vec<T>::kCount) && aligned16(x) && aligned16(y) && aligned16(bias) &&
                   aligned16(mask) && aligned16(out);
  const bool narrow = count < (std::int64_t(1) << 31);
  if (vec && narrow) {
    // The paths' unit counts: each is a kernel of its own.
    switch (path.units) {
      case 1: launch_units<T, Vec<T>, std::uint32_t, Op, 1>(path, x, y, bias, mask, out, count, cols, stream); break;
      case 2: launch_units<T, Vec<T>, std::uint32_t, Op, 2>(path, x, y, bias, mask, out, count, cols, stream); break;
      case 8: launch_units<T, Vec<T>, std::uint32_t, Op, 8>(path, x, y, bias, mask, out, count, cols, stream); break;
      default: launch_units<T, Vec<T>, std::uint32_t, Op, kInFlight>(path, x, y, bias, mask, out, count, cols, stream);
    }
  } else if (vec) {
    launch_units<T, Vec<T>, std::int64_t, Op, kInFlight>(path, x, y, bias, mask, out, count, cols, stream);
  } else if (narrow) {
    launch_units<T, Scalar<T>, std::uint32_t, Op, kInFlight>(path, x, y, bias, mask, out, count, cols, stream);
  } else {
    launch_units<T, Scalar<T>, std::int64_t, Op, kInFlight>(path, x, y, bias, mask, out, count, cols, stream);
  }
  OPMARK_CHECK_LAUNCH();
}

template <class T>
void launch_for_type(const PointwisePath& path, PointwiseOp op, const void* x, const void* y, const void* bias,
                     const void* mask, void* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const auto go = [&](auto tag) {
    launch_typed<T, decltype(tag)::value>(path, x, y, bias, mask, out, rows, cols, stream);
  };
  using P = PointwiseOp;
  switch (op) {
    case P::copy: return go(std::integral_constant<P, P::copy>{});
    case P::relu: return go(std::integral_constant<P, P::relu>{});
    case P::gelu: return go(std::integral_constant<P, P::gelu>{});
    case P::silu: return go(std::integral_constant<P, P::silu>{});
    case P::sigmoid: return go(std::integral_constant<P, P::sigmoid>{});
    case P::tanh: return go(std::integral_constant<P, P::tanh>{});
    case P::add: return go(std::integral_constant<P, P::add>{});
    case P::mul: return go(std::integral_constant<P, P::mul>{});
    case P::bias_add: return go(std::integral_constant<P, P::bias_add>{});
    case P::bias_relu: return go(std::integral_constant<P, P::bias_relu>{});
    case P::bias_gelu: return go(std::integral_constant<P, P::bias_gelu>{});
    case P::scale: return go(std::integral_constant<P, P::scale>{});
    case P::masked_fill: return go(std::integral_constant<P, P::masked_fill>{});
  }
}

}  // namespace

void launch_pointwise(PointwiseOp op, core::DType type, const void* x, const void* y, const void* bias,
                      const void* mask, void* out, std::int64_t rows, std::int64_t cols, cudaStream_t stream,
                      const PointwisePath& path) {
  if (path.memcpy) {
    if (op != PointwiseOp::copy) throw Error("pointwise: only copy runs as a cudaMemcpyAsync");
    if (rows * cols > 0)
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(out, x, static_cast<std::size_t>(rows * cols) * core::size_of(type),
                                        cudaMemcpyDeviceToDevice, stream));
    return;
  }
  dispatch_float_dtype(type, "pointwise kernels run", [&](auto tag) {
    launch_for_type<typename decltype(tag)::type>(path, op, x, y, bias, mask, out, rows, cols, stream);
  });
}

std::vector<PointwisePath> pointwise_paths(PointwiseOp op, std::int64_t rows, std::int64_t cols,
                                           std::size_t elem_bytes) {
  std::vector<PointwisePath> paths = {PointwisePath{}};
  // Other unit counts and the one-wave grid exist for 16-byte vectors (vectors_walk) of a tensor under 2^31 elements.
  const std::int64_t count = rows * cols;
  if (vectors_walk(op, rows, cols, static_cast<std::int64_t>(16 / elem_bytes)) && count < (std::int64_t{1} << 31)) {
    for (const int units : {1, 2, 8}) paths.push_back({units, 0});
    // A grid of one wave, each block walking several tiles: only where the tensor has more tiles than a wave holds.
    const std::int64_t tiles =
        count / static_cast<std::int64_t>(16 / elem_bytes) / (std::int64_t{kThreads} * kInFlight);
    const std::int64_t wave = resident_blocks();
    if (tiles > 2 * wave) paths.push_back({kInFlight, wave});
  }
  if (op == PointwiseOp::copy) paths.push_back({0, 0, true});
  return paths;
}

std::string pointwise_path_name(const PointwisePath& path) {
  if (path.memcpy) return "path: one cudaMemcpyAsync (PyTorch's copy_ of a contiguous tensor)";
  std::string name = "path: " + std::to_string(path.units) + (path.units == 1 ? " unit" : " units") +
                     " in flight a thread";
  if (path.max_blocks > 0) name += ", a grid of one wave (" + std::to_string(path.max_blocks) + " blocks)";
  return name;
}

namespace {

// The reference's one element, in float64: the same code on the host (CPU tests) and on the GPU (verification).
__host__ __device__ double reference_value(PointwiseOp op, double a, double y, double b, double m) {
  const auto gelu = [](double v) { return 0.5 * v * (1.0 + erf(v / sqrt(2.0))); };
  const auto sigmoid = [](double v) { return 1.0 / (1.0 + exp(-v)); };
  switch (op) {
    case PointwiseOp::copy: return a;
    case PointwiseOp::relu: return a > 0 ? a : 0.0;
    case PointwiseOp::gelu: return gelu(a);
    case PointwiseOp::silu: return a * sigmoid(a);
    case PointwiseOp::sigmoid: return sigmoid(a);
    case PointwiseOp::tanh: return tanh(a);
    case PointwiseOp::add: return a + y;
    case PointwiseOp::mul: return a * y;
    case PointwiseOp::bias_add: return a + b;
    case PointwiseOp::bias_relu: return a + b > 0 ? a + b : 0.0;
    case PointwiseOp::bias_gelu: return gelu(a + b);
    case PointwiseOp::scale: return a * kPointwiseScale;
    case PointwiseOp::masked_fill: return m != 0 ? kMaskedFillValue : a;
  }
  return 0;
}

__global__ void reference_kernel(PointwiseOp op, const double* x, const double* y, const double* bias,
                                 const double* mask, std::int64_t n, std::int64_t cols, double* out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = reference_value(op, x[i], y ? y[i] : 0.0, bias ? bias[i % cols] : 0.0, mask ? mask[i] : 0.0);
}

}  // namespace

std::vector<double> pointwise_reference(PointwiseOp op, const std::vector<double>& x, const std::vector<double>& y,
                                        const std::vector<double>& bias, const std::vector<double>& mask,
                                        std::int64_t rows, std::int64_t cols) {
  std::vector<double> out(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = reference_value(op, x[i], y.empty() ? 0.0 : y[i],
                             bias.empty() ? 0.0 : bias[i % static_cast<std::size_t>(cols)], mask.empty() ? 0.0 : mask[i]);
  return out;
}

void pointwise_reference_on_device(PointwiseOp op, const double* x, const double* y, const double* bias,
                                   const double* mask, std::int64_t rows, std::int64_t cols, double* out,
                                   cudaStream_t stream) {
  const std::int64_t n = rows * cols;
  if (n == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65536);
  reference_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(op, x, y, bias, mask, n, cols, out);
  OPMARK_CHECK_CUDA(cudaGetLastError());
}

}  // namespace opmark::kernels
