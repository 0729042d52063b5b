#include "kernels/reduce.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "core/error.h"
#include "kernels/block_reduce.cuh"
#include "kernels/convert.cuh"
#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/vec.cuh"

namespace opmark::kernels {

ReduceOp reduce_op(const std::string& name) {
  static const std::pair<const char*, ReduceOp> names[] = {
      {"sum", ReduceOp::sum},         {"mean", ReduceOp::mean},       {"max", ReduceOp::max},
      {"sum_all", ReduceOp::sum_all}, {"softmax", ReduceOp::softmax}, {"layernorm", ReduceOp::layernorm}};
  for (const auto& [n, op] : names)
    if (name == n) return op;
  throw Error("unknown reduce op '" + name + "'");
}

namespace {

constexpr unsigned kSumAllBlocks = 1024;

std::size_t sum_all_workspace() { return kSumAllBlocks * sizeof(float); }

// Rows up to this long get one warp each (several rows per block, no block-wide synchronisation); longer rows get
// the whole block.
constexpr std::int64_t kWarpRowMaxCols = 4096;

// Which threads share a row: a warp (kGroup 32) or the block (kGroup kThreads). The rows a group takes, its lane,
// and the combined state of its threads.
template <unsigned kGroup>
struct RowGroup {
  static constexpr unsigned kPerBlock = kThreads / kGroup;
  __device__ static std::int64_t first() { return blockIdx.x * std::int64_t(kPerBlock) + threadIdx.x / kGroup; }
  __device__ static std::int64_t stride() { return std::int64_t(gridDim.x) * kPerBlock; }
  __device__ static unsigned lane() { return threadIdx.x % kGroup; }
  template <class S>
  __device__ static S reduce(S s) {
    if constexpr (kGroup == 32) return warp_reduce(s);
    else return block_reduce(s);
  }
};

template <class S, class T, unsigned kGroup, bool kVec>
__device__ S row_state(const T* row, std::int64_t cols) {
  S s;
  for_each_chunk<T, kVec>(row, cols, RowGroup<kGroup>::lane(), kGroup, [&](const auto& v) { s.add_chunk(v); });
  return RowGroup<kGroup>::reduce(s);
}

// Sum, mean or max of each row.
template <class T, class S, bool Mean, unsigned kGroup, bool kVec>
__global__ void row_reduce_kernel(const T* __restrict__ x, T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  using G = RowGroup<kGroup>;
  for (std::int64_t r = G::first(); r < rows; r += G::stride()) {
    const S s = row_state<S, T, kGroup, kVec>(x + r * cols, cols);
    if (G::lane() == 0) out[r] = from_float<T>(Mean ? s.v / static_cast<float>(cols) : s.v);
  }
}

// Softmax over each row: one pass for the (max, sum of exp) state, one to write; the second read of a row comes
// from L2 (a group's row was just read).
template <class T, unsigned kGroup, bool kVec>
__global__ void softmax_kernel(const T* __restrict__ x, T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  using G = RowGroup<kGroup>;
  for (std::int64_t r = G::first(); r < rows; r += G::stride()) {
    const SoftmaxState s = row_state<SoftmaxState, T, kGroup, kVec>(x + r * cols, cols);
    const float m = s.m, inv = 1.0f / s.s;
    map_elements<T, kVec>(x + r * cols, nullptr, nullptr, out + r * cols, cols, G::lane(), kGroup,
                          [=](float v, float, float) { return __expf(v - m) * inv; });
  }
}

// Layer norm over each row: Welford statistics, then (x - mean) / sqrt(var + eps) * gamma + beta.
template <class T, unsigned kGroup, bool kVec>
__global__ void layernorm_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                                 T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  using G = RowGroup<kGroup>;
  for (std::int64_t r = G::first(); r < rows; r += G::stride()) {
    const Welford s = row_state<Welford, T, kGroup, kVec>(x + r * cols, cols);
    const float mean = s.mean, rstd = rsqrtf(s.m2 / static_cast<float>(cols) + static_cast<float>(kLayerNormEps));
    map_elements<T, kVec>(x + r * cols, gamma, beta, out + r * cols, cols, G::lane(), kGroup,
                          [=](float v, float g, float b) { return (v - mean) * rstd * g + b; });
  }
}

// Softmax and layer norm on rows short enough for a warp to hold in registers (up to kMaxCachedVectors 16-byte
// vectors per lane: 2048 fp32 or 4096 fp16 columns): each row is read from memory once, where the kernels above read
// it twice (the second time from L2, which still costs at these sizes).
constexpr int kMaxCachedVectors = 16;

template <class T>
std::int64_t vectors_per_lane(std::int64_t cols) {
  const std::int64_t vectors = cols / Vec<T>::kCount;
  return (vectors + 31) / 32;
}

template <class T, bool kLayerNorm, int kCachedVectors>
__global__ void cached_row_kernel(const T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                                  T* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  using V = Vec<T>;
  using G = RowGroup<32>;
  using State = std::conditional_t<kLayerNorm, Welford, SoftmaxState>;
  constexpr int N = V::kCount;
  const std::int64_t n = cols / N;
  const unsigned lane = G::lane();
  for (std::int64_t r = G::first(); r < rows; r += G::stride()) {
    const V* in = reinterpret_cast<const V*>(x + r * cols);
    V cache[kCachedVectors];
#pragma unroll
    for (int u = 0; u < kCachedVectors; ++u)
      if (lane + u * 32 < n) cache[u] = in[lane + u * 32];
    State s;
#pragma unroll
    for (int u = 0; u < kCachedVectors; ++u) {
      if (lane + u * 32 >= n) break;
      float v[N];
#pragma unroll
      for (int k = 0; k < N; ++k) v[k] = to_float(cache[u].v[k]);
      s.add_chunk(v);
    }
    s = warp_reduce(s);
    V* o = reinterpret_cast<V*>(out + r * cols);
    if constexpr (kLayerNorm) {
      const float mean = s.mean, rstd = rsqrtf(s.m2 / static_cast<float>(cols) + static_cast<float>(kLayerNormEps));
      const V* g = reinterpret_cast<const V*>(gamma);
      const V* b = reinterpret_cast<const V*>(beta);
#pragma unroll
      for (int u = 0; u < kCachedVectors; ++u) {
        const std::int64_t j = lane + u * 32;
        if (j >= n) break;
        const V gv = g[j], bv = b[j];
        V res;
#pragma unroll
        for (int k = 0; k < N; ++k)
          res.v[k] = from_float<T>((to_float(cache[u].v[k]) - mean) * rstd * to_float(gv.v[k]) + to_float(bv.v[k]));
        o[j] = res;
      }
    } else {
      const float m = s.m, inv = 1.0f / s.s;
#pragma unroll
      for (int u = 0; u < kCachedVectors; ++u) {
        const std::int64_t j = lane + u * 32;
        if (j >= n) break;
        V res;
#pragma unroll
        for (int k = 0; k < N; ++k) res.v[k] = from_float<T>(__expf(to_float(cache[u].v[k]) - m) * inv);
        o[j] = res;
      }
    }
  }
}

// Sum of everything: each block sums a grid-strided share into partials[block], then one block sums the partials
// (two fixed passes: the result does not depend on scheduling, as atomics would make it).
template <class T, bool kVec>
__global__ void sum_all_partials_kernel(const T* __restrict__ x, float* __restrict__ partials, std::int64_t count) {
  Sum s;
  for_each_chunk<T, kVec>(x, count, blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x,
                          std::int64_t(gridDim.x) * blockDim.x, [&](const auto& v) { s.add_chunk(v); });
  s = block_reduce(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = s.v;
}

template <class T>
__global__ void sum_all_final_kernel(const float* __restrict__ partials, unsigned count, T* __restrict__ out) {
  Sum s;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) s.add(partials[i]);
  s = block_reduce(s);
  if (threadIdx.x == 0) out[0] = from_float<T>(s.v);
}

template <unsigned kGroup>
unsigned row_blocks(std::int64_t rows) {
  return blocks_for(static_cast<std::size_t>(rows), RowGroup<kGroup>::kPerBlock, 132u * 64u);
}

template <class T, unsigned kGroup, bool kVec>
void launch_rows(ReduceOp op, const T* x, const T* gamma, const T* beta, T* out, std::int64_t rows, std::int64_t cols,
                 cudaStream_t stream) {
  const unsigned blocks = row_blocks<kGroup>(rows);
  switch (op) {
    case ReduceOp::sum:
      row_reduce_kernel<T, Sum, false, kGroup, kVec><<<blocks, kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::mean:
      row_reduce_kernel<T, Sum, true, kGroup, kVec><<<blocks, kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::max:
      row_reduce_kernel<T, Max, false, kGroup, kVec><<<blocks, kThreads, 0, stream>>>(x, out, rows, cols);
      break;
    case ReduceOp::softmax: softmax_kernel<T, kGroup, kVec><<<blocks, kThreads, 0, stream>>>(x, out, rows, cols); break;
    case ReduceOp::layernorm:
      layernorm_kernel<T, kGroup, kVec><<<blocks, kThreads, 0, stream>>>(x, gamma, beta, out, rows, cols);
      break;
    case ReduceOp::sum_all: break;
  }
}

template <class T>
void launch_typed(ReduceOp op, const void* xv, const void* gv, const void* bv, void* ov, void* workspace,
                  std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  const T* x = static_cast<const T*>(xv);
  const T* gamma = static_cast<const T*>(gv);
  const T* beta = static_cast<const T*>(bv);
  T* out = static_cast<T*>(ov);
  if (op == ReduceOp::sum_all) {
    auto* partials = static_cast<float*>(workspace);
    if (rows_vectorisable<T>(x, rows * cols))
      sum_all_partials_kernel<T, true><<<kSumAllBlocks, kThreads, 0, stream>>>(x, partials, rows * cols);
    else
      sum_all_partials_kernel<T, false><<<kSumAllBlocks, kThreads, 0, stream>>>(x, partials, rows * cols);
    OPMARK_CHECK_LAUNCH();
    sum_all_final_kernel<T><<<1, kThreads, 0, stream>>>(partials, kSumAllBlocks, out);
    OPMARK_CHECK_LAUNCH();
    return;
  }
  // Vector loads need every row to start on a vector boundary, in the input and in what is written beside it.
  const bool vec = rows_vectorisable<T>(x, cols) && aligned16(gamma) && aligned16(beta) &&
                   (op == ReduceOp::sum || op == ReduceOp::mean || op == ReduceOp::max || aligned16(out));
  const bool normalises = op == ReduceOp::softmax || op == ReduceOp::layernorm;
  if (vec && normalises && vectors_per_lane<T>(cols) <= kMaxCachedVectors) {
    const unsigned blocks = row_blocks<32>(rows);
    // The smaller cache where it suffices: fewer registers, more warps resident.
    const bool small = vectors_per_lane<T>(cols) <= kMaxCachedVectors / 2;
    if (op == ReduceOp::softmax && small)
      cached_row_kernel<T, false, kMaxCachedVectors / 2><<<blocks, kThreads, 0, stream>>>(x, gamma, beta, out, rows,
                                                                                        cols);
    else if (op == ReduceOp::softmax)
      cached_row_kernel<T, false, kMaxCachedVectors><<<blocks, kThreads, 0, stream>>>(x, gamma, beta, out, rows, cols);
    else if (small)
      cached_row_kernel<T, true, kMaxCachedVectors / 2><<<blocks, kThreads, 0, stream>>>(x, gamma, beta, out, rows,
                                                                                       cols);
    else
      cached_row_kernel<T, true, kMaxCachedVectors><<<blocks, kThreads, 0, stream>>>(x, gamma, beta, out, rows, cols);
    OPMARK_CHECK_LAUNCH();
    return;
  }
  const bool warp = cols <= kWarpRowMaxCols;
  if (warp && vec) launch_rows<T, 32, true>(op, x, gamma, beta, out, rows, cols, stream);
  else if (warp) launch_rows<T, 32, false>(op, x, gamma, beta, out, rows, cols, stream);
  else if (vec) launch_rows<T, kThreads, true>(op, x, gamma, beta, out, rows, cols, stream);
  else launch_rows<T, kThreads, false>(op, x, gamma, beta, out, rows, cols, stream);
  OPMARK_CHECK_LAUNCH();
}

}  // namespace

std::size_t reduce_workspace_bytes(ReduceOp op) { return op == ReduceOp::sum_all ? sum_all_workspace() : 0; }

void launch_reduce(ReduceOp op, core::DType type, const void* x, const void* gamma, const void* beta, void* out,
                   void* workspace, std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  switch (type) {
    case core::DType::f32: return launch_typed<float>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    case core::DType::f16: return launch_typed<__half>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    case core::DType::bf16:
      return launch_typed<__nv_bfloat16>(op, x, gamma, beta, out, workspace, rows, cols, stream);
    default: throw Error(std::string("reduce kernels run fp32, fp16 and bf16, not ") + core::name_of(type));
  }
}

std::vector<double> reduce_reference(ReduceOp op, const std::vector<double>& x, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, std::int64_t rows, std::int64_t cols) {
  const std::size_t r_count = static_cast<std::size_t>(rows), c_count = static_cast<std::size_t>(cols);
  if (op == ReduceOp::sum_all) {
    long double total = 0;
    for (double v : x) total += v;
    return {static_cast<double>(total)};
  }
  std::vector<double> out(op == ReduceOp::softmax || op == ReduceOp::layernorm ? r_count * c_count : r_count);
  for (std::size_t r = 0; r < r_count; ++r) {
    const double* row = x.data() + r * c_count;
    double sum = 0, max = row[0];
    for (std::size_t c = 0; c < c_count; ++c) {
      sum += row[c];
      max = std::max(max, row[c]);
    }
    const double mean = sum / static_cast<double>(cols);
    switch (op) {
      case ReduceOp::sum: out[r] = sum; break;
      case ReduceOp::mean: out[r] = mean; break;
      case ReduceOp::max: out[r] = max; break;
      case ReduceOp::softmax: {
        double denom = 0;
        for (std::size_t c = 0; c < c_count; ++c) denom += std::exp(row[c] - max);
        for (std::size_t c = 0; c < c_count; ++c) out[r * c_count + c] = std::exp(row[c] - max) / denom;
        break;
      }
      case ReduceOp::layernorm: {
        double var = 0;
        for (std::size_t c = 0; c < c_count; ++c) var += (row[c] - mean) * (row[c] - mean);
        const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + kLayerNormEps);
        for (std::size_t c = 0; c < c_count; ++c)
          out[r * c_count + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
        break;
      }
      case ReduceOp::sum_all: break;
    }
  }
  return out;
}

}  // namespace opmark::kernels
