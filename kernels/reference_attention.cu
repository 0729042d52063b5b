#include "kernels/reference_attention.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <tuple>

#include "kernels/cuda_check.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/reference_attention.cuh"

namespace opmark::kernels {
namespace {

using attention_ref::block_reduce;
using attention_ref::kMaxHeadDim;
using attention_ref::kThreads;
using attention_ref::kv_offset;
using attention_ref::q_offset;

// One block per sampled row: the scores of its keys in tiles of kThreads (thread t scores key t of the tile),
// their maximum, then the exponentials and, per output column, the weighted sum of V; everything in float64.
template <class T>
__global__ void attention_rows_kernel(AttentionRefShape s, const T* q, const T* k, const T* v,
                                      const AttentionRow* rows, double* ref) {
  __shared__ double q_row[kMaxHeadDim];
  __shared__ double p_tile[kThreads];
  __shared__ double scratch[kThreads];
  const AttentionRow row = rows[blockIdx.x];
  const std::int64_t d = s.head_dim, group = s.heads_q / s.heads_kv, g = row.h / group;
  const std::int64_t keys = s.causal ? std::min<std::int64_t>(row.i + 1, s.seq_kv) : s.seq_kv;
  const double scale = 1.0 / sqrt(static_cast<double>(d));
  const std::int64_t q_base = q_offset(s, row.b, row.h, row.i), kv_base = kv_offset(s, row.b, g, 0);
  for (std::int64_t c = threadIdx.x; c < d; c += kThreads) q_row[c] = load_as_double(q, q_base + c * s.q_stride[3]);
  __syncthreads();
  auto score = [&](std::int64_t j) {
    double acc = 0;
    const std::int64_t base = kv_base + j * s.kv_stride[2];
    for (std::int64_t c = 0; c < d; ++c) acc += q_row[c] * load_as_double(k, base + c * s.kv_stride[3]);
    return acc * scale;
  };
  double local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < keys; j += kThreads) local_max = fmax(local_max, score(j));
  const double m = block_reduce(local_max, true, scratch);
  double local_sum = 0, acc[kMaxHeadDim / kThreads] = {0, 0};
  for (std::int64_t j0 = 0; j0 < keys; j0 += kThreads) {
    const std::int64_t j = j0 + threadIdx.x;
    const double p = j < keys ? exp(score(j) - m) : 0.0;
    p_tile[threadIdx.x] = p;
    local_sum += p;
    __syncthreads();
    const std::int64_t tile = std::min<std::int64_t>(kThreads, keys - j0);
    for (int part = 0; part < kMaxHeadDim / kThreads; ++part) {
      const std::int64_t c = threadIdx.x + part * kThreads;
      if (c >= d) break;
      double sum = 0;
      for (std::int64_t jj = 0; jj < tile; ++jj)
        sum += p_tile[jj] * load_as_double(v, kv_base + (j0 + jj) * s.kv_stride[2] + c * s.kv_stride[3]);
      acc[part] += sum;
    }
    __syncthreads();
  }
  const double z = block_reduce(local_sum, false, scratch);
  for (int part = 0; part < kMaxHeadDim / kThreads; ++part) {
    const std::int64_t c = threadIdx.x + part * kThreads;
    if (c < d) ref[blockIdx.x * d + c] = acc[part] / z;
  }
}

template <class T>
__global__ void gather_rows_kernel(AttentionRefShape s, const T* o, const AttentionRow* rows, T* out) {
  const AttentionRow row = rows[blockIdx.x];
  const std::int64_t base = q_offset(s, row.b, row.h, row.i);
  for (std::int64_t c = threadIdx.x; c < s.head_dim; c += blockDim.x)
    out[blockIdx.x * s.head_dim + c] = o[base + c * s.q_stride[3]];
}

}  // namespace

std::vector<AttentionRow> sample_attention_rows(const AttentionRefShape& s, std::size_t max_rows,
                                                std::uint64_t seed) {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> picked;
  const std::int64_t last_b = s.batch - 1, last_h = s.heads_q - 1, last_i = s.seq_q - 1;
  // The corners: first and last batch, head and query (the last query of a causal case sees every key).
  for (std::int64_t b : {std::int64_t{0}, last_b})
    for (std::int64_t h : {std::int64_t{0}, last_h})
      for (std::int64_t i : {std::int64_t{0}, last_i}) picked.insert({b, h, i});
  std::mt19937_64 gen(seed);
  const std::size_t possible = static_cast<std::size_t>(std::min<double>(
      static_cast<double>(max_rows), static_cast<double>(s.batch) * double(s.heads_q) * double(s.seq_q)));
  for (int tries = 0; picked.size() < possible && tries < 100000; ++tries)
    picked.insert({static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(s.batch)),
                   static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(s.heads_q)),
                   static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(s.seq_q))});
  std::vector<AttentionRow> rows;
  for (const auto& [b, h, i] : picked) rows.push_back({b, h, i});
  return rows;
}

void reference_attention_rows(const AttentionRefShape& s, const void* q, const void* k, const void* v,
                              core::DType type, const AttentionRow* rows, std::size_t count, double* ref,
                              cudaStream_t stream) {
  if (s.head_dim > kMaxHeadDim) throw Error("the attention reference takes head_dim up to 256");
  if (count == 0) return;
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    attention_rows_kernel<T><<<static_cast<unsigned>(count), kThreads, 0, stream>>>(
        s, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v), rows, ref);
  });
  OPMARK_CHECK_LAUNCH();
}

void gather_attention_rows(const AttentionRefShape& s, const void* o, core::DType type, const AttentionRow* rows,
                           std::size_t count, void* out, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_rows_kernel<T><<<static_cast<unsigned>(count), kThreads, 0, stream>>>(s, static_cast<const T*>(o), rows,
                                                                                 static_cast<T*>(out));
  });
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
