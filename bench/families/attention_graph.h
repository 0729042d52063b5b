#pragma once
// Fused scaled-dot-product attention as a cuDNN operation graph: the pattern cuDNN's fused flash-attention engine
// runs (the graph cuDNN's own frontend builds for its sdpa node; the backend API takes the decomposed form):
//   S = Q K^T (float) -> S * scale -> [causal: keys after the query set to a large negative] -> softmax in float
//   (row max, exp of the difference, row sum, divide; the statistics max + log(sum) kept for training) -> P in the
//   input type -> O = P V.
// The backward graph is the one cuDNN's frontend builds for its sdpa_backward node (FlashAttention-2's backward):
//   delta = rowsum(dO o O); P = exp(mask(scale Q K^T) - stats) recomputed; dV = P^T dO;
//   dS = scale P o (dO V^T - delta); dK = dS^T Q; dQ = dS K (accumulated in float, then converted).
// Under GQA the products run over every query head and a reduction sums dK and dV over each group.
// fp8 (the graph of the frontend's sdpa_fp8): S is descaled by Q's and K's scales after Q K^T; P's absolute maximum
// is kept, then P is scaled into e4m3 for P V, whose result is descaled by P's and V's scales, its absolute maximum
// kept, and scaled into O (e4m3: on Hopper cuDNN writes fp8 attention's O in fp8 only).
// fp8 backward (the graph of the frontend's sdpa_fp8_backward): the same steps with every fp8 operand descaled after
// its product (delta by dO's and O's; S by Q's and K's; dP by dO's and V's), P scaled into e4m3 for dV = P^T dO,
// dS = scale P o (dP - delta) scaled into e4m3 for dQ = dS K and dK = dS^T Q; each gradient is descaled, its
// absolute maximum kept, and scaled into e4m3 (on Hopper the gradients are e4m3 too, and head_dim must be 128).
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/families/cudnn_graph.h"

namespace opmark::bench {

// forward: O only (inference); forward_training: O and the softmax statistics; backward: dQ, dK, dV.
enum class AttentionPass { forward, forward_training, backward };

struct AttentionGraphSpec {
  AttentionPass pass;
  cudnnDataType_t type;  // of Q, K, V, O (and dO, dQ, dK, dV): CUDNN_DATA_HALF, _BFLOAT16, or _FP8_E4M3
  std::int64_t batch, heads_q, heads_kv, seq_q, seq_kv, head_dim;
  bool causal;
  std::vector<std::int64_t> q_strides, kv_strides;  // [batch, heads, tokens, head_dim]; O has Q's
};

// The unique ids of the variant pack: the tensors, and the scalars passed by value (host floats). Stats is float
// [batch, heads_q, seq_q, 1] (max + log sum of each row's scaled scores); the backward also takes two float
// buffers of its own, delta [batch, heads_q, seq_q, 1] and dQ's accumulator [batch, heads_q, seq_q, head_dim].
// fp8 (per-tensor scaling, as Transformer Engine runs it): Q, K, V and O in e4m3 with a float in device memory for
// each scale (kUidDescaleQ..kUidScaleO, [1, 1, 1, 1]), and the absolute maxima of P and of O before its scaling
// written out (kUidAmaxS, kUidAmaxO), which the next step's scales come from. The fp8 backward takes the scales of
// kUidDescaleQ..kUidScaleS and kUidDescaleO..kUidScaleDP and writes the absolute maxima kUidAmaxDQ..kUidAmaxDP
// (of dS before its scaling for dP). The fp8 uids are consecutive: uid - kUidDescaleQ indexes one float array.
enum AttentionUid : std::int64_t {
  kUidQ = 1, kUidK, kUidV, kUidO, kUidScale, kUidNegInf,
  kUidStats, kUidDO, kUidDQ, kUidDK, kUidDV, kUidDelta, kUidDQAccum, kUidOne,
  kUidDescaleQ, kUidDescaleK, kUidDescaleV, kUidDescaleS, kUidScaleS, kUidScaleO, kUidAmaxS, kUidAmaxO,
  kUidDescaleO, kUidDescaleDO, kUidDescaleDP, kUidScaleDQ, kUidScaleDK, kUidScaleDV, kUidScaleDP,
  kUidAmaxDQ, kUidAmaxDK, kUidAmaxDV, kUidAmaxDP
};
constexpr int kFp8ScaleCount = static_cast<int>(kUidAmaxDP - kUidDescaleQ + 1);

// Every engine configuration cuDNN offers for the graph (graph_plans); empty with `why` when it has none.
std::vector<GraphPlan> attention_graph_plans(cudnnHandle_t handle, const AttentionGraphSpec& spec,
                                             std::size_t max_workspace, std::string* why, std::string* excluded);

}  // namespace opmark::bench
