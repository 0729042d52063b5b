#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include "bench/families/attention_graph.h"

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "bench/families/cudnn_util.h"

namespace opmark::bench {
namespace {

// The graph's descriptors: operations refer to tensors and descriptors by handle, so all live as long as the
// plans made from them.
struct AttentionGraph {
  std::vector<std::unique_ptr<BackendDescriptor>> keep;
  std::unique_ptr<BackendDescriptor> graph;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(AttentionGraph& g) : g_(g) {}

  // A tensor of the variant pack; asked for again by its uid, the same descriptor (a graph names each tensor once:
  // the fp8 backward applies one scale in several places).
  cudnnBackendDescriptor_t tensor(cudnnDataType_t type, std::vector<std::int64_t> dims,
                                  std::vector<std::int64_t> strides, std::int64_t uid, bool by_value = false) {
    auto& known = by_uid_[uid];
    if (!known) known = own(graph_tensor({type, std::move(dims), std::move(strides)}, uid, false, by_value));
    return known;
  }
  // A float of the variant pack, one element: a per-tensor scale or amax in device memory, or (by_value) a constant
  // passed with the pack.
  cudnnBackendDescriptor_t scalar(std::int64_t uid, bool by_value = false) {
    const std::vector<std::int64_t> ones = {1, 1, 1, 1};
    return tensor(kFloat, ones, ones, uid, by_value);
  }
  cudnnBackendDescriptor_t virtual_tensor(cudnnDataType_t type, std::vector<std::int64_t> dims,
                                          std::vector<std::int64_t> strides) {
    return own(graph_tensor({type, std::move(dims), std::move(strides)}, next_virtual_uid_++, true, false));
  }

  // y = mode(x[, b[, t]]) computed in `precision`; GEN_INDEX takes the axis along which it counts.
  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t precision, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y,
                 std::optional<std::int64_t> axis = std::nullopt) {
    auto desc = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    desc->set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    desc->set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &precision);
    if (axis) desc->set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &*axis);
    add_operation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
                  {{CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, finalized(std::move(desc))},
                   {CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x},
                   {CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b},
                   {CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t},
                   {CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y}});
  }

  // y = the reduction of x over the dimensions where y has extent 1, in float.
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    auto desc = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    desc->set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode);
    desc->set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &kFloat);
    add_operation(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR,
                  {{CUDNN_ATTR_OPERATION_REDUCTION_DESC, finalized(std::move(desc))},
                   {CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x},
                   {CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y}});
  }

  // c = a b over the last two dimensions, batched over the leading ones (broadcast where a's or b's extent is
  // smaller: K and V heads shared by groups of query heads), accumulated in float.
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    auto desc = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    desc->set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &kFloat);
    add_operation(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR,
                  {{CUDNN_ATTR_OPERATION_MATMUL_DESC, finalized(std::move(desc))},
                   {CUDNN_ATTR_OPERATION_MATMUL_ADESC, a},
                   {CUDNN_ATTR_OPERATION_MATMUL_BDESC, b},
                   {CUDNN_ATTR_OPERATION_MATMUL_CDESC, c}});
  }

  // y = x viewed with y's dimensions and strides (a transpose without a copy).
  void reshape(cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    add_operation(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR,
                  {{CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x}, {CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y}});
  }

  const std::vector<cudnnBackendDescriptor_t>& ops() const { return ops_; }

 private:
  static constexpr cudnnDataType_t kFloat = CUDNN_DATA_FLOAT;

  cudnnBackendDescriptor_t own(std::unique_ptr<BackendDescriptor> d) {
    g_.keep.push_back(std::move(d));
    return g_.keep.back()->get();
  }
  cudnnBackendDescriptor_t finalized(std::unique_ptr<BackendDescriptor> d) {
    d->finalize();
    return own(std::move(d));
  }
  // An operation node whose attributes are all descriptors (a null one is left unset), added to the graph.
  void add_operation(cudnnBackendDescriptorType_t type,
                     std::initializer_list<std::pair<cudnnBackendAttributeName_t, cudnnBackendDescriptor_t>> attrs) {
    auto op = std::make_unique<BackendDescriptor>(type);
    for (const auto& [name, d] : attrs)
      if (d) op->set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
    ops_.push_back(finalized(std::move(op)));
  }

  AttentionGraph& g_;
  std::int64_t next_virtual_uid_ = 100;
  std::map<std::int64_t, cudnnBackendDescriptor_t> by_uid_;
  std::vector<cudnnBackendDescriptor_t> ops_;
};

// The strides of a packed tensor of these dimensions (the last one innermost).
std::vector<std::int64_t> packed(const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> strides(dims.size());
  std::int64_t stride = 1;
  for (std::size_t i = dims.size(); i-- > 0;) strides[i] = stride, stride *= dims[i];
  return strides;
}

// The same tensor described with its last two dimensions swapped (strides only: no data moves).
std::vector<std::int64_t> transposed(std::vector<std::int64_t> strides) {
  std::swap(strides[2], strides[3]);
  return strides;
}

// The shapes every pass shares: the score matrix [b, hq, sq, skv] and a value per query row [b, hq, sq, 1], both
// packed, and the tensors the user passes (K described transposed: the backend multiplies Q by K^T, so K's last
// two dimensions and strides are swapped).
struct AttentionTensors {
  std::vector<std::int64_t> full, full_strides, row, row_strides;
  cudnnBackendDescriptor_t q, kt, scale;
};

AttentionTensors common_tensors(GraphBuilder& gb, const AttentionGraphSpec& s) {
  const std::int64_t b = s.batch, hq = s.heads_q, sq = s.seq_q, skv = s.seq_kv;
  AttentionTensors t;
  t.full = {b, hq, sq, skv}, t.full_strides = packed(t.full);
  t.row = {b, hq, sq, 1}, t.row_strides = packed(t.row);
  t.q = gb.tensor(s.type, {b, hq, sq, s.head_dim}, s.q_strides, kUidQ);
  t.kt = gb.tensor(s.type, {b, s.heads_kv, s.head_dim, skv}, transposed(s.kv_strides), kUidK);
  t.scale = gb.scalar(kUidScale, true);
  return t;
}

// scores with the keys after each query (top-left aligned, PyTorch's is_causal) set to a large negative.
cudnnBackendDescriptor_t causal_mask(GraphBuilder& gb, const AttentionTensors& t, cudnnBackendDescriptor_t scores) {
  const auto row_index = gb.virtual_tensor(CUDNN_DATA_INT32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, nullptr, nullptr, row_index, 2);
  const auto col_index = gb.virtual_tensor(CUDNN_DATA_INT32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, nullptr, nullptr, col_index, 3);
  const auto keep = gb.virtual_tensor(CUDNN_DATA_BOOLEAN, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row_index, col_index, nullptr, keep);
  const auto neg_inf = gb.scalar(kUidNegInf, true);
  const auto masked = gb.virtual_tensor(CUDNN_DATA_FLOAT, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, scores, neg_inf, keep, masked);
  return masked;
}

// x times the float at `uid` (device memory), in float, into `out` (a new float virtual tensor when null): fp8's
// per-tensor scales.
cudnnBackendDescriptor_t scaled_by(GraphBuilder& gb, cudnnBackendDescriptor_t x, std::int64_t uid,
                                   const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& strides,
                                   cudnnBackendDescriptor_t out = nullptr) {
  if (!out) out = gb.virtual_tensor(CUDNN_DATA_FLOAT, dims, strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, x, gb.scalar(uid), nullptr, out);
  return out;
}

// One product of e4m3 operands into an e4m3 output (the forward's O = P V, the backward's gradients: the frontend's
// matmul_fp8): a b in float, summed over each GQA group when `out` has fewer heads than the product, descaled by
// both operands' scales, its absolute maximum written to `amax_uid`, and scaled by `scale_uid` into `out`.
void fp8_product(GraphBuilder& gb, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
                 std::vector<std::int64_t> product_dims, const std::vector<std::int64_t>& out_dims,
                 std::int64_t descale_a_uid, std::int64_t descale_b_uid, std::int64_t scale_uid,
                 cudnnBackendDescriptor_t out, std::int64_t amax_uid) {
  auto sum = gb.virtual_tensor(CUDNN_DATA_FLOAT, product_dims, packed(product_dims));
  gb.matmul(a, b, sum);
  if (product_dims != out_dims) {
    const auto grouped = gb.virtual_tensor(CUDNN_DATA_FLOAT, out_dims, packed(out_dims));
    gb.reduction(CUDNN_REDUCE_TENSOR_ADD, sum, grouped);
    sum = grouped;
  }
  const auto descaled = scaled_by(gb, scaled_by(gb, sum, descale_a_uid, out_dims, packed(out_dims)), descale_b_uid,
                                  out_dims, packed(out_dims));
  gb.reduction(CUDNN_REDUCE_TENSOR_AMAX, descaled, gb.scalar(amax_uid));
  scaled_by(gb, descaled, scale_uid, out_dims, packed(out_dims), out);
}

void build_forward(const AttentionGraphSpec& s, GraphBuilder& gb) {
  const std::int64_t b = s.batch, hq = s.heads_q, hkv = s.heads_kv, sq = s.seq_q, skv = s.seq_kv, d = s.head_dim;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const bool fp8 = s.type == CUDNN_DATA_FP8_E4M3;
  const AttentionTensors t = common_tensors(gb, s);
  const auto v = gb.tensor(s.type, {b, hkv, skv, d}, s.kv_strides, kUidV);
  const auto o = gb.tensor(s.type, {b, hq, sq, d}, s.q_strides, kUidO);
  const auto scores = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.matmul(t.q, t.kt, scores);
  auto scaled = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, scores, t.scale, nullptr, scaled);
  if (fp8) {
    scaled = scaled_by(gb, scaled, kUidDescaleQ, t.full, t.full_strides);
    scaled = scaled_by(gb, scaled, kUidDescaleK, t.full, t.full_strides);
  }
  if (s.causal) scaled = causal_mask(gb, t, scaled);
  const auto row_max = gb.virtual_tensor(f32, t.row, t.row_strides);
  gb.reduction(CUDNN_REDUCE_TENSOR_MAX, scaled, row_max);
  const auto shifted = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, row_max, nullptr, shifted);
  const auto exps = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, nullptr, nullptr, exps);
  const auto row_sum = gb.virtual_tensor(f32, t.row, t.row_strides);
  gb.reduction(CUDNN_REDUCE_TENSOR_ADD, exps, row_sum);
  // The softmax statistics (max + log sum), which training keeps for the backward pass.
  const auto log_sum = gb.virtual_tensor(f32, t.row, t.row_strides);
  gb.pointwise(CUDNN_POINTWISE_LOG, f32, row_sum, nullptr, nullptr, log_sum);
  const auto stats = s.pass == AttentionPass::forward_training
                         ? gb.tensor(f32, t.row, t.row_strides, kUidStats)
                         : gb.virtual_tensor(f32, t.row, t.row_strides);
  gb.pointwise(CUDNN_POINTWISE_ADD, f32, row_max, log_sum, nullptr, stats);
  if (!fp8) {
    const auto probs = gb.virtual_tensor(s.type, t.full, t.full_strides);  // P enters P V in the input type
    gb.pointwise(CUDNN_POINTWISE_DIV, f32, exps, row_sum, nullptr, probs);
    gb.matmul(probs, v, o);
    return;
  }
  const auto probs = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_DIV, f32, exps, row_sum, nullptr, probs);
  gb.reduction(CUDNN_REDUCE_TENSOR_AMAX, probs, gb.scalar(kUidAmaxS));
  const auto probs8 = gb.virtual_tensor(s.type, t.full, t.full_strides);
  scaled_by(gb, probs, kUidScaleS, t.full, t.full_strides, probs8);
  fp8_product(gb, probs8, v, {b, hq, sq, d}, {b, hq, sq, d}, kUidDescaleS, kUidDescaleV, kUidScaleO, o, kUidAmaxO);
}

// rowsum(a o b) over the last dimension of two [b, hq, sq, d] tensors, in float: dO o O, both backward graphs' first
// step (delta before its scale).
cudnnBackendDescriptor_t row_sum_of_product(GraphBuilder& gb, const AttentionTensors& t, cudnnBackendDescriptor_t a,
                                            cudnnBackendDescriptor_t b, const std::vector<std::int64_t>& dims) {
  const auto product = gb.virtual_tensor(CUDNN_DATA_FLOAT, dims, packed(dims));
  gb.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, a, b, nullptr, product);
  const auto sum = gb.virtual_tensor(CUDNN_DATA_FLOAT, t.row, t.row_strides);
  gb.reduction(CUDNN_REDUCE_TENSOR_ADD, product, sum);
  return sum;
}

// dS = scale P o (dP - delta), in float over the score matrix: the softmax's gradient, both backward graphs' step.
cudnnBackendDescriptor_t score_gradient(GraphBuilder& gb, const AttentionTensors& t, cudnnBackendDescriptor_t dp,
                                        cudnnBackendDescriptor_t delta, cudnnBackendDescriptor_t probs) {
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto centred = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_SUB, f32, dp, delta, nullptr, centred);
  const auto weighted = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, centred, probs, nullptr, weighted);
  const auto ds = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, weighted, t.scale, nullptr, ds);
  return ds;
}

// dK or dV: with GQA the product covers every query head and a reduction sums each group into its K/V head.
void grouped_gradient(GraphBuilder& gb, const AttentionGraphSpec& s, cudnnBackendDescriptor_t a,
                      cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t out) {
  if (s.heads_q == s.heads_kv) return gb.matmul(a, b, out);
  const std::vector<std::int64_t> per_head_dims = {s.batch, s.heads_q, s.seq_kv, s.head_dim};
  const auto per_head = gb.virtual_tensor(s.type, per_head_dims, packed(per_head_dims));
  gb.matmul(a, b, per_head);
  gb.reduction(CUDNN_REDUCE_TENSOR_ADD, per_head, out);
}

// What both backward graphs start from: the forward's tensors, V^T, O, dO and the forward's statistics.
struct BackwardInputs {
  AttentionTensors t;
  std::vector<std::int64_t> q_dims, kv_dims;
  cudnnBackendDescriptor_t vt, o, d_o, stats;
};

BackwardInputs backward_inputs(GraphBuilder& gb, const AttentionGraphSpec& s) {
  BackwardInputs in{common_tensors(gb, s), {s.batch, s.heads_q, s.seq_q, s.head_dim},
                    {s.batch, s.heads_kv, s.seq_kv, s.head_dim}, nullptr, nullptr, nullptr, nullptr};
  in.vt = gb.tensor(s.type, {s.batch, s.heads_kv, s.head_dim, s.seq_kv}, transposed(s.kv_strides), kUidV);
  in.o = gb.tensor(s.type, in.q_dims, s.q_strides, kUidO);
  in.d_o = gb.tensor(s.type, in.q_dims, s.q_strides, kUidDO);
  in.stats = gb.tensor(CUDNN_DATA_FLOAT, in.t.row, in.t.row_strides, kUidStats);
  return in;
}

void build_backward(const AttentionGraphSpec& s, GraphBuilder& gb) {
  const std::int64_t b = s.batch, hq = s.heads_q, sq = s.seq_q, skv = s.seq_kv;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto [t, q_dims, kv_dims, vt, o, d_o, stats] = backward_inputs(gb, s);
  const auto one = gb.scalar(kUidOne, true);
  const auto dq = gb.tensor(s.type, q_dims, s.q_strides, kUidDQ);
  const auto dk = gb.tensor(s.type, kv_dims, s.kv_strides, kUidDK);
  const auto dv = gb.tensor(s.type, kv_dims, s.kv_strides, kUidDV);
  const auto delta = gb.tensor(f32, t.row, t.row_strides, kUidDelta);
  const auto dq_accum = gb.tensor(f32, q_dims, packed(q_dims), kUidDQAccum);

  // delta = rowsum(dO o O) (times 1: the frontend's dropout scale, part of the pattern cuDNN matches)
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, row_sum_of_product(gb, t, d_o, o, q_dims), one, nullptr, delta);

  // P = exp(mask(scale Q K^T) - stats), recomputed from the forward's statistics
  const auto scores = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.matmul(t.q, t.kt, scores);
  const auto scaled = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, scores, t.scale, nullptr, scaled);
  auto shifted = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, stats, nullptr, shifted);
  if (s.causal) shifted = causal_mask(gb, t, shifted);
  const auto probs = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, nullptr, nullptr, probs);
  const std::vector<std::int64_t> full_t = {b, hq, skv, sq}, full_t_strides = {hq * sq * skv, sq * skv, 1, skv};
  const auto probs_t = gb.virtual_tensor(s.type, full_t, full_t_strides);
  gb.reshape(probs, probs_t);
  grouped_gradient(gb, s, probs_t, d_o, dv);  // dV = P^T dO

  // dS = scale P o (dO V^T - delta)
  const auto dp = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.matmul(d_o, vt, dp);
  const auto ds = score_gradient(gb, t, dp, delta, probs);
  const auto ds_t = gb.virtual_tensor(s.type, full_t, full_t_strides);
  gb.reshape(ds, ds_t);
  grouped_gradient(gb, s, ds_t, t.q, dk);  // dK = dS^T Q

  // dQ = dS K, accumulated in float, then converted
  const auto k = gb.virtual_tensor(f32, kv_dims, s.kv_strides);
  gb.reshape(t.kt, k);
  gb.matmul(ds, k, dq_accum);
  gb.pointwise(CUDNN_POINTWISE_IDENTITY, f32, dq_accum, nullptr, nullptr, dq);
}

// The fp8 backward, step for step as cuDNN's frontend builds sdpa_fp8_backward (cuDNN's engines match this pattern).
void build_backward_fp8(const AttentionGraphSpec& s, GraphBuilder& gb) {
  const std::int64_t b = s.batch, hq = s.heads_q, sq = s.seq_q, skv = s.seq_kv;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const auto [t, q_dims, kv_dims, vt, o, d_o, stats] = backward_inputs(gb, s);

  // delta = rowsum(dO o O) descaled by dO's and O's scales
  const auto do_o_sum = row_sum_of_product(gb, t, d_o, o, q_dims);
  const auto delta = scaled_by(gb, scaled_by(gb, do_o_sum, kUidDescaleDO, t.row, t.row_strides), kUidDescaleO,
                               t.row, t.row_strides);

  // P = exp(mask(scale Q K^T descaled) - stats), then scaled into e4m3 and viewed transposed for dV = P^T dO
  const auto scores = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.matmul(t.q, t.kt, scores);
  auto scaled = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_MUL, f32, scores, t.scale, nullptr, scaled);
  scaled = scaled_by(gb, scaled_by(gb, scaled, kUidDescaleQ, t.full, t.full_strides), kUidDescaleK, t.full,
                     t.full_strides);
  if (s.causal) scaled = causal_mask(gb, t, scaled);
  const auto shifted = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_SUB, f32, scaled, stats, nullptr, shifted);
  const auto probs = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.pointwise(CUDNN_POINTWISE_EXP, f32, shifted, nullptr, nullptr, probs);
  const auto probs8 = gb.virtual_tensor(s.type, t.full, t.full_strides);
  scaled_by(gb, probs, kUidScaleS, t.full, t.full_strides, probs8);
  const std::vector<std::int64_t> full_t = {b, hq, skv, sq}, full_t_strides = {hq * sq * skv, sq * skv, 1, skv};
  const auto probs8_t = gb.virtual_tensor(s.type, full_t, full_t_strides);
  gb.reshape(probs8, probs8_t);
  const std::vector<std::int64_t> per_query_head = {b, hq, skv, s.head_dim};
  fp8_product(gb, probs8_t, d_o, per_query_head, kv_dims, kUidDescaleS, kUidDescaleDO, kUidScaleDV,
              gb.tensor(s.type, kv_dims, s.kv_strides, kUidDV), kUidAmaxDV);

  // dS = scale P o (dO V^T descaled - delta); its absolute maximum kept; scaled into e4m3
  const auto dp = gb.virtual_tensor(f32, t.full, t.full_strides);
  gb.matmul(d_o, vt, dp);
  const auto dp_descaled = scaled_by(gb, scaled_by(gb, dp, kUidDescaleDO, t.full, t.full_strides), kUidDescaleV,
                                     t.full, t.full_strides);
  const auto ds = score_gradient(gb, t, dp_descaled, delta, probs);
  gb.reduction(CUDNN_REDUCE_TENSOR_AMAX, ds, gb.scalar(kUidAmaxDP));
  const auto ds8 = gb.virtual_tensor(s.type, t.full, t.full_strides);
  scaled_by(gb, ds, kUidScaleDP, t.full, t.full_strides, ds8);

  // dQ = dS K, dK = dS^T Q
  const auto k = gb.virtual_tensor(f32, kv_dims, s.kv_strides);
  gb.reshape(t.kt, k);
  fp8_product(gb, ds8, k, q_dims, q_dims, kUidDescaleDP, kUidDescaleK, kUidScaleDQ,
              gb.tensor(s.type, q_dims, s.q_strides, kUidDQ), kUidAmaxDQ);
  const auto ds8_t = gb.virtual_tensor(s.type, full_t, full_t_strides);
  gb.reshape(ds8, ds8_t);
  fp8_product(gb, ds8_t, t.q, per_query_head, kv_dims, kUidDescaleDP, kUidDescaleQ, kUidScaleDK,
              gb.tensor(s.type, kv_dims, s.kv_strides, kUidDK), kUidAmaxDK);
}

void build(cudnnHandle_t handle, const AttentionGraphSpec& s, AttentionGraph& g) {
  GraphBuilder gb(g);
  if (s.pass == AttentionPass::backward && s.type == CUDNN_DATA_FP8_E4M3)
    build_backward_fp8(s, gb);
  else if (s.pass == AttentionPass::backward)
    build_backward(s, gb);
  else
    build_forward(s, gb);
  g.graph = operation_graph(handle, gb.ops());
}

}  // namespace

std::vector<GraphPlan> attention_graph_plans(cudnnHandle_t handle, const AttentionGraphSpec& spec,
                                             std::size_t max_workspace, std::string* why, std::string* excluded) {
  auto graph = std::make_shared<AttentionGraph>();
  try {
    build(handle, spec, *graph);
  } catch (const std::exception& e) {  // cuDNN cannot describe the graph (this version, type or shape)
    if (why) *why = std::string("cuDNN rejects the attention graph: ") + e.what();
    return {};
  }
  PlanRules rules;
  // P is rounded to the input type before the second product by design (as every flash-attention kernel does):
  // that is the operation, not a shortcut of one engine.
  rules.allow_down_convert = true;
  rules.allow_reduced_precision_reduction = true;
  return graph_plans(handle, graph, graph->graph->get(), rules, max_workspace, SIZE_MAX, why, excluded);
}

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
