// Scaled-dot-product attention: O = softmax(Q K^T / sqrt(d) [+ causal mask]) V, per batch and query head, with
// grouped K and V heads (GQA: heads_q a multiple of heads_kv; MQA: heads_kv = 1).
#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_attention(const Case& c) {
  const AttentionProblem p = attention_problem(c);
  if (p.heads_q % p.heads_kv != 0)
    return "heads_q (" + std::to_string(p.heads_q) + ") must be a multiple of heads_kv (" +
           std::to_string(p.heads_kv) + "): each K/V head serves a whole group of query heads";
  if (p.head_dim % 8 != 0 || p.head_dim > 256)
    return "head_dim must be a multiple of 8 and at most 256 (cuDNN's fused attention), got " +
           std::to_string(p.head_dim);
  // Top-left causal alignment (PyTorch's is_causal): query i sees keys 0..i. More queries than keys would leave
  // rows with no key at all.
  if (p.causal && p.seq_q > p.seq_kv) return "a causal mask needs seq_q <= seq_kv (query i sees keys 0..i)";
  if (c.precision == "fp8" && p.head_dim % 16 != 0)
    return "fp8 attention needs head_dim a multiple of 16 (cuDNN on Hopper), got " + std::to_string(p.head_dim);
  return first_problem({check_tensor_size("Q", "batch x heads_q x seq_q x head_dim",
                                          {p.batch, p.heads_q, p.seq_q, p.head_dim}),
                        check_tensor_size("K", "batch x heads_kv x seq_kv x head_dim",
                                          {p.batch, p.heads_kv, p.seq_kv, p.head_dim}),
                        check_tensor_size("the scores", "batch x heads_q x seq_q x seq_kv",
                                          {p.batch, p.heads_q, p.seq_q, p.seq_kv})});
}

}  // namespace

Schema attention_schema() {
  Schema s;
  s.family = "attention";
  s.help =
      "fused scaled-dot-product attention (flash attention) through cuDNN: O = softmax(Q K^T / sqrt(head_dim)) V "
      "per batch and query head; K and V heads shared by groups of query heads (GQA, MQA). FLOPs: 4 x batch x "
      "heads_q x head_dim x the (query, key) pairs computed; a causal mask computes seq_q (seq_q + 1) / 2 pairs "
      "per head, not seq_q x seq_kv. fp8: Q, K, V and O (backward: dO, dQ, dK, dV too) in e4m3 with per-tensor "
      "scales; cuDNN runs its backward on Hopper at head_dim 128 only. bwd: dQ, dK "
      "and dV from dO, with the softmax statistics the forward pass keeps (FlashAttention-2's backward: Q K^T "
      "recomputed), 2.5 x the forward's FLOPs";
  s.fields = {
      {"batch", FieldKind::positive_int, std::nullopt, {}, "sequences", ""},
      {"heads_q", FieldKind::positive_int, std::nullopt, {}, "query heads", ""},
      {"heads_kv", FieldKind::positive_int, std::nullopt, {}, "key and value heads (heads_q: MHA, 1: MQA)", ""},
      {"seq_q", FieldKind::positive_int, std::nullopt, {}, "query tokens per sequence (1: decoding)", ""},
      {"seq_kv", FieldKind::positive_int, std::nullopt, {}, "key/value tokens per sequence (the KV cache)", ""},
      {"head_dim", FieldKind::positive_int, std::nullopt, {}, "features per head", ""},
      {"mask", FieldKind::choice, FieldValue{std::string("none")}, {"none", "causal"},
       "none, or causal aligned top-left (query i sees keys 0..i, PyTorch's is_causal)", ""},
      {"layout", FieldKind::choice, FieldValue{std::string("bshd")}, {"bshd", "bhsd"},
       "memory order of Q, K, V and O: bshd (tokens outer, heads inner: what a fused QKV projection writes) or "
       "bhsd (heads outer)",
       ""},
  };
  s.directions = {"fwd", "bwd"};
  s.precisions = {"fp16", "bf16", "fp8"};
  s.check = &check_attention;
  return s;
}

AttentionProblem attention_problem(const Case& c) {
  AttentionProblem p;
  p.batch = c.int_field("batch");
  p.heads_q = c.int_field("heads_q");
  p.heads_kv = c.int_field("heads_kv");
  p.seq_q = c.int_field("seq_q");
  p.seq_kv = c.int_field("seq_kv");
  p.head_dim = c.int_field("head_dim");
  p.causal = c.str_field("mask") == "causal";
  p.bshd = c.str_field("layout") == "bshd";
  return p;
}

// The (query, key) pairs a head computes: every pair, or with the causal mask sum over i of min(i + 1, seq_kv)
// (check_attention keeps seq_q <= seq_kv, so that is seq_q (seq_q + 1) / 2).
double attention_pairs(const AttentionProblem& p) {
  const double q = static_cast<double>(p.seq_q), kv = static_cast<double>(p.seq_kv);
  return p.causal ? q * (q + 1) / 2 : q * kv;
}

// FLOPs: two matrix products (Q K^T and P V) of 2 x head_dim each per computed pair, as FlashAttention and
// PyTorch's benchmarks count; the softmax's exponentials are left out. Backward: five products (Q K^T again,
// dO V^T, P^T dO, dS^T Q, dS K), 2.5 x forward, FlashAttention's count. Bytes: forward Q, K and V read once, O
// written once (the scores never reach memory in a fused kernel); backward Q, K, V, O, dO and the statistics (a
// float per query row) read, dQ, dK and dV written.
Work attention_work(const Case& c) {
  const AttentionProblem p = attention_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  const double b = static_cast<double>(p.batch), d = static_cast<double>(p.head_dim);
  Work w;
  const double forward_flops = 4.0 * b * static_cast<double>(p.heads_q) * d * attention_pairs(p);
  const double q_rows = b * static_cast<double>(p.heads_q) * static_cast<double>(p.seq_q);
  const double q_elems = q_rows * d;
  const double kv_elems = b * static_cast<double>(p.heads_kv) * static_cast<double>(p.seq_kv) * d;
  if (c.direction == "bwd") {
    w.flops = 2.5 * forward_flops;
    w.bytes_read = (3 * q_elems + 2 * kv_elems) * elem + q_rows * 4;  // Q, O, dO, K, V; float statistics
    w.bytes_written = (q_elems + 2 * kv_elems) * elem;                // dQ, dK, dV
    return w;
  }
  w.flops = forward_flops;
  w.bytes_read = (q_elems + 2 * kv_elems) * elem;
  w.bytes_written = q_elems * elem;
  return w;
}

}  // namespace opmark::core
