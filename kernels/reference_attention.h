#pragma once
// Scaled-dot-product attention in float64 on the GPU, for a sample of output rows: the reference every attention
// case is verified against. A full reference would cost batch x heads x seq_q x seq_kv x head_dim float64
// products (hours for a long prompt); a sample of rows spread over batches, heads and positions (the first and
// last query among them) checks every path a fused kernel takes: the tiles, the causal edge, the GQA grouping.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/dtype.h"

namespace opmark::kernels {

// Q and O are [batch, heads_q, seq_q, head_dim], K and V [batch, heads_kv, seq_kv, head_dim], each addressed by
// its element strides in that order; query head h reads K/V head h / (heads_q / heads_kv). The scale is
// 1/sqrt(head_dim); causal: query i sees keys 0..i.
struct AttentionRefShape {
  std::int64_t batch, heads_q, heads_kv, seq_q, seq_kv, head_dim;
  bool causal;
  std::array<std::int64_t, 4> q_stride, kv_stride;  // O has Q's strides
};

// One sampled output row: batch, query head, query position.
struct AttentionRow {
  std::int64_t b, h, i;
};

// Up to `max_rows` rows: every (batch, head) corner, the first and last query, and the rest spread by a seeded
// generator. Host-only, deterministic.
std::vector<AttentionRow> sample_attention_rows(const AttentionRefShape& s, std::size_t max_rows, std::uint64_t seed);

// ref[r * head_dim + c] = row r's output in float64 (Q, K, V read in `type`). `rows` is a device array.
void reference_attention_rows(const AttentionRefShape& s, const void* q, const void* k, const void* v,
                              core::DType type, const AttentionRow* rows, std::size_t count, double* ref,
                              cudaStream_t stream);

// out[r * head_dim + c] = O's element of row r, column c (`out` in O's element type): the sampled rows, packed, to
// compare with the reference.
void gather_attention_rows(const AttentionRefShape& s, const void* o, core::DType type, const AttentionRow* rows,
                           std::size_t count, void* out, cudaStream_t stream);

}  // namespace opmark::kernels
