#pragma once
// Fused scaled-dot-product attention as a cuDNN operation graph: the pattern cuDNN's fused flash-attention engine
// runs (the graph cuDNN's own frontend builds for its sdpa node; the backend API takes the decomposed form):
//   S = Q K^T (float) -> S * scale -> [causal: keys after the query set to a large negative] -> softmax in float
//   (row max, exp of the difference, row sum, divide; the statistics max + log(sum) kept virtual) -> P in the
//   input type -> O = P V.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bench/families/cudnn_graph.h"

namespace opmark::bench {

struct AttentionGraphSpec {
  cudnnDataType_t type;  // of Q, K, V, O: CUDNN_DATA_HALF or CUDNN_DATA_BFLOAT16
  std::int64_t batch, heads_q, heads_kv, seq_q, seq_kv, head_dim;
  bool causal;
  std::vector<std::int64_t> q_strides, kv_strides;  // [batch, heads, tokens, head_dim]; O has Q's
};

// The unique ids of the variant pack: the four tensors, and the two scalars passed by value (host floats).
enum AttentionUid : std::int64_t { kUidQ = 1, kUidK, kUidV, kUidO, kUidScale, kUidNegInf };

// Every engine configuration cuDNN offers for the graph (graph_plans); empty with `why` when it has none.
std::vector<GraphPlan> attention_graph_plans(cudnnHandle_t handle, const AttentionGraphSpec& spec,
                                             std::size_t max_workspace, std::string* why, std::string* excluded);

}  // namespace opmark::bench
