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
  cudnnDataType_t type;  // of Q, K, V, O: CUDNN_DATA_HALF or CUDNN_DATA_BFLOAT16
  std::int64_t batch, heads_q, heads_kv, seq_q, seq_kv, head_dim;
  bool causal;
  std::vector<std::int64_t> q_strides, kv_strides;  // [batch, heads, tokens, head_dim]; O has Q's
};

// The unique ids of the variant pack: the tensors, and the scalars passed by value (host floats). Stats is float
// [batch, heads_q, seq_q, 1] (max + log sum of each row's scaled scores); the backward also takes two float
// buffers of its own, delta [batch, heads_q, seq_q, 1] and dQ's accumulator [batch, heads_q, seq_q, head_dim].
enum AttentionUid : std::int64_t {
  kUidQ = 1, kUidK, kUidV, kUidO, kUidScale, kUidNegInf,
  kUidStats, kUidDO, kUidDQ, kUidDK, kUidDV, kUidDelta, kUidDQAccum, kUidOne
};

// Every engine configuration cuDNN offers for the graph (graph_plans); empty with `why` when it has none.
std::vector<GraphPlan> attention_graph_plans(cudnnHandle_t handle, const AttentionGraphSpec& spec,
                                             std::size_t max_workspace, std::string* why, std::string* excluded);

}  // namespace opmark::bench
