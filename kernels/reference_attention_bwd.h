#pragma once
// The gradients of scaled-dot-product attention in float64 on the GPU, for one K/V group: a batch b, a K/V head g
// and the heads_q / heads_kv query heads that share it. That is the unit the backward's GQA reduction works on
// (dK and dV of head g sum over the group's query heads), and every tile, the causal edge and the grouping are in
// it; a whole case would cost what its forward reference would, times five.
//   P = softmax(scale Q K^T [causal: keys after the query left out]), dV = P^T dO,
//   dS = P o (dO V^T - rowsum(dO o O)), dQ = scale dS K, dK = scale dS^T Q      (o: element-wise)
// O is the one the backward is given (the forward's output, in the input type), as the backward itself uses it:
// rowsum(dO o O) shifts every dS of a row, so a float64 O would move dQ by the forward's rounding of O (in bf16
// up to 7% of an element where dS cancels), an error of the forward, not of the backward checked here.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/dtype.h"
#include "kernels/reference_attention.h"

namespace opmark::kernels {

struct AttentionGroup {
  std::int64_t b, g;  // batch, K/V head
};

// fp8: cuDNN's fp8 backward rounds P (times p_scale) and dS (times ds_scale) to e4m3 before their products, by
// design, as it rounds O in the forward. The reference rounds them the same way (and nothing else), so what it
// checks is the engine's arithmetic, not e4m3's 3 mantissa bits: a dS that cancels in a sum would otherwise carry
// its rounding undivided. Zero scales: no rounding.
struct AttentionFp8Rounding {
  double p_scale = 0, ds_scale = 0;
};

// Packed float64 results: dq [group heads][seq_q][head_dim], dk and dv [seq_kv][head_dim]. Q, K, V, O and dO are
// read in `type`; O and dO have Q's strides.
// `stats`, when given, are the softmax statistics the backward is given (the forward's, float [batch][heads_q]
// [seq_q]): P is recomputed from them, as the backward does, like O above, so a P value near an e4m3 rounding
// boundary rounds as the engine's does. `own_lse` [group heads][seq_q], when given, receives the reference's own
// log-sum-exp of each row, to check those statistics against.
void reference_attention_backward(const AttentionRefShape& s, const void* q, const void* k, const void* v,
                                  const void* o, const void* d_o, core::DType type, AttentionGroup group, double* dq,
                                  double* dk, double* dv, cudaStream_t stream, AttentionFp8Rounding fp8 = {},
                                  const float* stats = nullptr, double* own_lse = nullptr);

// The same elements of a case's dQ, dK and dV (dQ in Q's strides, dK and dV in K's), packed in that order into
// `dq_out`, `dk_out` and `dv_out` (element type `type`), to compare with the reference.
void gather_attention_group(const AttentionRefShape& s, const void* dq, const void* dk, const void* dv,
                            core::DType type, AttentionGroup group, void* dq_out, void* dk_out, void* dv_out,
                            cudaStream_t stream);

}  // namespace opmark::kernels
