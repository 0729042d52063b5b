#include "kernels/reference_attention_bwd.h"

#include <algorithm>
#include <cmath>

#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/dtype_dispatch.cuh"
#include "kernels/reference_attention.cuh"

namespace opmark::kernels {
namespace {

using attention_ref::block_reduce;
using attention_ref::kColumnParts;
using attention_ref::kMaxHeadDim;
using attention_ref::kThreads;
using attention_ref::kv_offset;
using attention_ref::q_offset;

// x as cuDNN's fp8 backward passes it to a product: scaled, rounded to e4m3 (saturating), descaled. A scale of 0
// leaves x as it is (the fp16 and bf16 graphs).
__device__ __forceinline__ double through_e4m3(double x, double scale) {
  if (scale == 0) return x;
  return static_cast<double>(static_cast<float>(__nv_fp8_e4m3(static_cast<float>(x * scale)))) / scale;
}

// One block per (query head of the group, query row): the row's scores, their log-sum-exp (or the one given) and
// delta = rowsum(dO o O) (both kept for the key pass), then dQ's row = sum_j dS_ij K_j with
// dS_ij = scale P_ij (dO_i . V_j - delta).
template <class T>
__global__ void attention_grad_query_kernel(AttentionRefShape s, const T* q, const T* k, const T* v, const T* o,
                                            const T* d_o, AttentionGroup grp, AttentionFp8Rounding fp8,
                                            const float* stats, double* own_lse, double* lse_out, double* delta_out,
                                            double* dq) {
  __shared__ double q_row[kMaxHeadDim], do_row[kMaxHeadDim];
  __shared__ double tile[kThreads];
  __shared__ double scratch[kThreads];
  const std::int64_t d = s.head_dim, group = s.heads_q / s.heads_kv;
  const std::int64_t hh = blockIdx.x / s.seq_q, i = blockIdx.x % s.seq_q, h = grp.g * group + hh;
  const std::int64_t keys = s.causal ? std::min<std::int64_t>(i + 1, s.seq_kv) : s.seq_kv;
  const double scale = 1.0 / sqrt(static_cast<double>(d));
  const std::int64_t q_base = q_offset(s, grp.b, h, i);
  for (std::int64_t c = threadIdx.x; c < d; c += kThreads) {
    q_row[c] = load_as_double(q, q_base + c * s.q_stride[3]);
    do_row[c] = load_as_double(d_o, q_base + c * s.q_stride[3]);
  }
  __syncthreads();
  auto dot = [&](const double* row, const T* x, std::int64_t j) {
    double acc = 0;
    const std::int64_t base = kv_offset(s, grp.b, grp.g, j);
    for (std::int64_t c = 0; c < d; ++c) acc += row[c] * load_as_double(x, base + c * s.kv_stride[3]);
    return acc;
  };
  // For each tile of keys, thread t puts weight(j0 + t) in the tile (0 past the keys), then every thread adds
  // the tile's weighted rows of `x` to its columns.
  auto accumulate = [&](const T* x, auto weight, double (&acc)[kColumnParts]) {
    for (std::int64_t j0 = 0; j0 < keys; j0 += kThreads) {
      const std::int64_t j = j0 + threadIdx.x;
      tile[threadIdx.x] = j < keys ? weight(j) : 0.0;
      __syncthreads();
      const std::int64_t n = std::min<std::int64_t>(kThreads, keys - j0);
      for (int part = 0; part < kColumnParts; ++part) {
        const std::int64_t c = threadIdx.x + part * kThreads;
        if (c >= d) break;
        double sum = 0;
        for (std::int64_t jj = 0; jj < n; ++jj)
          sum += tile[jj] * load_as_double(x, kv_offset(s, grp.b, grp.g, j0 + jj) + c * s.kv_stride[3]);
        acc[part] += sum;
      }
      __syncthreads();
    }
  };
  double local_max = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < keys; j += kThreads) local_max = fmax(local_max, scale * dot(q_row, k, j));
  const double m = block_reduce(local_max, true, scratch);
  double local_sum = 0, local_delta = 0;
  for (std::int64_t j = threadIdx.x; j < keys; j += kThreads) local_sum += exp(scale * dot(q_row, k, j) - m);
  for (std::int64_t c = threadIdx.x; c < d; c += kThreads)
    local_delta += do_row[c] * load_as_double(o, q_base + c * s.q_stride[3]);
  const double computed_lse = m + log(block_reduce(local_sum, false, scratch));
  const double lse = stats ? static_cast<double>(stats[(grp.b * s.heads_q + h) * s.seq_q + i]) : computed_lse;
  const double delta = block_reduce(local_delta, false, scratch);
  double grad[kColumnParts] = {};
  accumulate(k, [&](std::int64_t j) {
    return through_e4m3(scale * exp(scale * dot(q_row, k, j) - lse) * (dot(do_row, v, j) - delta), fp8.ds_scale);
  }, grad);
  for (int part = 0; part < kColumnParts; ++part) {
    const std::int64_t c = threadIdx.x + part * kThreads;
    if (c < d) dq[blockIdx.x * d + c] = grad[part];
  }
  if (threadIdx.x == 0) {
    lse_out[blockIdx.x] = lse, delta_out[blockIdx.x] = delta;
    if (own_lse) own_lse[blockIdx.x] = computed_lse;
  }
}

// One block per key row j: dV_j = sum over the group's heads and queries i of P_ij dO_i, and
// dK_j = sum dS_ij Q_i, from the query pass's log-sum-exp and delta.
template <class T>
__global__ void attention_grad_key_kernel(AttentionRefShape s, const T* q, const T* k, const T* v, const T* d_o,
                                          AttentionGroup grp, AttentionFp8Rounding fp8, const double* lse,
                                          const double* delta, double* dk, double* dv) {
  __shared__ double k_row[kMaxHeadDim], v_row[kMaxHeadDim];
  __shared__ double p_tile[kThreads], ds_tile[kThreads];
  const std::int64_t d = s.head_dim, group = s.heads_q / s.heads_kv, j = blockIdx.x;
  const double scale = 1.0 / sqrt(static_cast<double>(d));
  const std::int64_t kv_base = kv_offset(s, grp.b, grp.g, j);
  for (std::int64_t c = threadIdx.x; c < d; c += kThreads) {
    k_row[c] = load_as_double(k, kv_base + c * s.kv_stride[3]);
    v_row[c] = load_as_double(v, kv_base + c * s.kv_stride[3]);
  }
  __syncthreads();
  // Causal: key j is seen by queries j..seq_q-1 only.
  const std::int64_t first = s.causal ? j : 0;
  double dv_acc[kColumnParts] = {}, dk_acc[kColumnParts] = {};
  for (std::int64_t hh = 0; hh < group; ++hh) {
    const std::int64_t h = grp.g * group + hh;
    for (std::int64_t i0 = first; i0 < s.seq_q; i0 += kThreads) {
      const std::int64_t i = i0 + threadIdx.x;
      double p = 0, ds = 0;
      if (i < s.seq_q) {
        const std::int64_t base = q_offset(s, grp.b, h, i), row = hh * s.seq_q + i;
        double score = 0, dp = 0;
        for (std::int64_t c = 0; c < d; ++c) {
          score += load_as_double(q, base + c * s.q_stride[3]) * k_row[c];
          dp += load_as_double(d_o, base + c * s.q_stride[3]) * v_row[c];
        }
        p = exp(scale * score - lse[row]);
        ds = through_e4m3(scale * p * (dp - delta[row]), fp8.ds_scale);
        p = through_e4m3(p, fp8.p_scale);
      }
      p_tile[threadIdx.x] = p, ds_tile[threadIdx.x] = ds;
      __syncthreads();
      const std::int64_t n = std::min<std::int64_t>(kThreads, s.seq_q - i0);
      for (int part = 0; part < kColumnParts; ++part) {
        const std::int64_t c = threadIdx.x + part * kThreads;
        if (c >= d) break;
        double sum_v = 0, sum_k = 0;
        for (std::int64_t ii = 0; ii < n; ++ii) {
          const std::int64_t off = q_offset(s, grp.b, h, i0 + ii) + c * s.q_stride[3];
          sum_v += p_tile[ii] * load_as_double(d_o, off);
          sum_k += ds_tile[ii] * load_as_double(q, off);
        }
        dv_acc[part] += sum_v, dk_acc[part] += sum_k;
      }
      __syncthreads();
    }
  }
  for (int part = 0; part < kColumnParts; ++part) {
    const std::int64_t c = threadIdx.x + part * kThreads;
    if (c < d) dv[j * d + c] = dv_acc[part], dk[j * d + c] = dk_acc[part];
  }
}

// out[(hh * tokens + t) * d + c] = x[b, head0 + hh, t, c] for hh < heads, t < tokens.
template <class T>
__global__ void gather_heads_kernel(const T* x, std::array<std::int64_t, 4> stride, std::int64_t b,
                                    std::int64_t head0, std::int64_t tokens, std::int64_t d, T* out) {
  const std::int64_t hh = blockIdx.x / tokens, t = blockIdx.x % tokens;
  const std::int64_t base = b * stride[0] + (head0 + hh) * stride[1] + t * stride[2];
  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) out[blockIdx.x * d + c] = x[base + c * stride[3]];
}

}  // namespace

void reference_attention_backward(const AttentionRefShape& s, const void* q, const void* k, const void* v,
                                  const void* o, const void* d_o, core::DType type, AttentionGroup group, double* dq,
                                  double* dk, double* dv, cudaStream_t stream, AttentionFp8Rounding fp8,
                                  const float* stats, double* own_lse) {
  if (s.head_dim > kMaxHeadDim) throw Error("the attention reference takes head_dim up to 256");
  const std::int64_t query_rows = s.heads_q / s.heads_kv * s.seq_q;
  DeviceBuffer lse(core::DType::f64, static_cast<std::size_t>(query_rows));
  DeviceBuffer delta(core::DType::f64, static_cast<std::size_t>(query_rows));
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *qt = static_cast<const T*>(q), *kt = static_cast<const T*>(k), *vt = static_cast<const T*>(v);
    const T *ot = static_cast<const T*>(o), *dot = static_cast<const T*>(d_o);
    attention_grad_query_kernel<T><<<static_cast<unsigned>(query_rows), kThreads, 0, stream>>>(
        s, qt, kt, vt, ot, dot, group, fp8, stats, own_lse, lse.as<double>(), delta.as<double>(), dq);
    OPMARK_CHECK_LAUNCH();
    attention_grad_key_kernel<T><<<static_cast<unsigned>(s.seq_kv), kThreads, 0, stream>>>(
        s, qt, kt, vt, dot, group, fp8, lse.as<double>(), delta.as<double>(), dk, dv);
    OPMARK_CHECK_LAUNCH();
  });
  // The scratch buffers are freed on return: finish with them first.
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
}

void gather_attention_group(const AttentionRefShape& s, const void* dq, const void* dk, const void* dv,
                            core::DType type, AttentionGroup group, void* dq_out, void* dk_out, void* dv_out,
                            cudaStream_t stream) {
  const std::int64_t heads = s.heads_q / s.heads_kv;
  dispatch_dtype(type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_heads_kernel<T><<<static_cast<unsigned>(heads * s.seq_q), kThreads, 0, stream>>>(
        static_cast<const T*>(dq), s.q_stride, group.b, group.g * heads, s.seq_q, s.head_dim, static_cast<T*>(dq_out));
    gather_heads_kernel<T><<<static_cast<unsigned>(s.seq_kv), kThreads, 0, stream>>>(
        static_cast<const T*>(dk), s.kv_stride, group.b, group.g, s.seq_kv, s.head_dim, static_cast<T*>(dk_out));
    gather_heads_kernel<T><<<static_cast<unsigned>(s.seq_kv), kThreads, 0, stream>>>(
        static_cast<const T*>(dv), s.kv_stride, group.b, group.g, s.seq_kv, s.head_dim, static_cast<T*>(dv_out));
  });
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
