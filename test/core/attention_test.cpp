// The attention family on the host: the schema's checks, the FLOP and byte conventions, layouts, and the sample of
// rows the float64 reference checks.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/reference_attention.h"

using namespace opmark;
using namespace opmark::core;

static Case attention(std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t sq, std::int64_t skv,
                      std::int64_t d, const char* mask = "none", const char* layout = "bshd",
                      const char* precision = "fp16", const char* direction = "fwd") {
  return make_case("attention", direction, precision,
                   {{"batch", b}, {"heads_q", hq}, {"heads_kv", hkv}, {"seq_q", sq}, {"seq_kv", skv},
                    {"head_dim", d}, {"mask", std::string(mask)}, {"layout", std::string(layout)}});
}

TEST(Attention, FlopsCountComputedPairs) {
  // BERT-base, L = 512: 4 x B x H x D x L^2.
  EXPECT_DOUBLE_EQ(work_of(attention(32, 12, 12, 512, 512, 64)).flops, 4.0 * 32 * 12 * 64 * 512 * 512);
  // Causal: L (L + 1) / 2 pairs per head, not L^2.
  EXPECT_DOUBLE_EQ(work_of(attention(1, 32, 8, 4096, 4096, 128, "causal")).flops, 4.0 * 32 * 128 * 4096.0 * 4097 / 2);
  // Decoding: one query against the cache.
  EXPECT_DOUBLE_EQ(work_of(attention(16, 32, 8, 1, 8192, 128)).flops, 4.0 * 16 * 32 * 128 * 8192);
}

TEST(Attention, BytesAreQKVReadAndOWrittenOnce) {
  // GQA 32/8, fp16: Q and O 32 heads, K and V 8 heads.
  const Work w = work_of(attention(2, 32, 8, 100, 300, 128));
  EXPECT_DOUBLE_EQ(w.bytes_read, (2.0 * 32 * 100 * 128 + 2 * (2.0 * 8 * 300 * 128)) * 2);
  EXPECT_DOUBLE_EQ(w.bytes_written, 2.0 * 32 * 100 * 128 * 2);
}

TEST(Attention, BackwardCountsFiveProductsAndItsTensors) {
  // FlashAttention's convention: Q K^T again, dO V^T, P^T dO, dS^T Q, dS K: 2.5 x the forward's FLOPs.
  const Case fwd = attention(4, 32, 8, 2048, 2048, 128, "causal");
  const Case bwd = attention(4, 32, 8, 2048, 2048, 128, "causal", "bshd", "fp16", "bwd");
  EXPECT_DOUBLE_EQ(work_of(bwd).flops, 2.5 * work_of(fwd).flops);
  // Read: Q, O, dO (32 heads), K, V (8 heads), and a float statistic per query row; written: dQ, dK, dV.
  const double q = 4.0 * 32 * 2048 * 128, kv = 4.0 * 8 * 2048 * 128;
  EXPECT_DOUBLE_EQ(work_of(bwd).bytes_read, (3 * q + 2 * kv) * 2 + 4.0 * 32 * 2048 * 4);
  EXPECT_DOUBLE_EQ(work_of(bwd).bytes_written, (q + 2 * kv) * 2);
  EXPECT_EQ(make_case_name(bwd).rfind("attention/bwd/fp16/batch=4/", 0), 0u);
}

TEST(Attention, ChecksNameTheRule) {
  auto message = [](auto make) {
    try {
      make();
    } catch (const opmark::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { attention(1, 32, 7, 16, 16, 128); }).find("multiple of heads_kv"), std::string::npos);
  EXPECT_NE(message([] { attention(1, 8, 8, 16, 16, 100); }).find("head_dim must be a multiple of 8"),
            std::string::npos);
  EXPECT_NE(message([] { attention(1, 8, 8, 16, 16, 512); }).find("at most 256"), std::string::npos);
  EXPECT_NE(message([] { attention(1, 8, 8, 32, 16, 64, "causal"); }).find("seq_q <= seq_kv"), std::string::npos);
  EXPECT_NE(message([] { attention(1, 8, 8, 16, 16, 64, "sliding"); }).find("mask"), std::string::npos);
  EXPECT_NE(message([] { attention(1, 8, 8, 16, 16, 64, "none", "bshd", "fp32"); }).find("fp32"), std::string::npos);
  // fp8: forward and backward, head_dim a multiple of 16 (which head_dim an engine takes is the device's: Hopper's
  // fp8 backward takes 128 only, reported as unsupported when the case runs); one byte an element.
  EXPECT_EQ(message([] { attention(1, 8, 8, 16, 16, 64, "none", "bshd", "fp8", "bwd"); }), "no error");
  EXPECT_NE(message([] { attention(1, 8, 8, 16, 16, 72, "none", "bshd", "fp8", "bwd"); }).find("multiple of 16"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(work_of(attention(2, 8, 8, 16, 16, 64, "none", "bshd", "fp8")).bytes_written, 2.0 * 8 * 16 * 64);
  // The fp8 backward writes dQ, dK and dV in e4m3: one byte each.
  EXPECT_DOUBLE_EQ(work_of(attention(2, 8, 8, 16, 16, 64, "none", "bshd", "fp8", "bwd")).bytes_written,
                   3.0 * 2 * 8 * 16 * 64);
}

TEST(Attention, NamesAndLayouts) {
  EXPECT_EQ(make_case_name(attention(32, 12, 12, 512, 512, 64)),
            "attention/fwd/fp16/batch=32/heads_q=12/heads_kv=12/seq_q=512/seq_kv=512/head_dim=64/mask=none/"
            "layout=bshd");
  const AttentionProblem bshd = attention_problem(attention(2, 4, 2, 5, 7, 8));
  EXPECT_EQ(bshd.strides(4, 5), (std::vector<std::int64_t>{5 * 4 * 8, 8, 4 * 8, 1}));
  const AttentionProblem bhsd = attention_problem(attention(2, 4, 2, 5, 7, 8, "none", "bhsd"));
  EXPECT_EQ(bhsd.strides(2, 7), (std::vector<std::int64_t>{2 * 7 * 8, 7 * 8, 8, 1}));
}

TEST(AttentionReference, SampleCoversCornersAndIsDeterministic) {
  kernels::AttentionRefShape s{};
  s.batch = 3, s.heads_q = 8, s.heads_kv = 2, s.seq_q = 1000, s.seq_kv = 1000, s.head_dim = 64;
  const auto rows = kernels::sample_attention_rows(s, 64, 7);
  EXPECT_EQ(rows.size(), 64u);
  auto has = [&](std::int64_t b, std::int64_t h, std::int64_t i) {
    for (const auto& r : rows)
      if (r.b == b && r.h == h && r.i == i) return true;
    return false;
  };
  EXPECT_TRUE(has(0, 0, 0));
  EXPECT_TRUE(has(2, 7, 999));  // the last query of the last head of the last batch
  for (const auto& r : rows) {
    EXPECT_LT(r.b, 3);
    EXPECT_LT(r.h, 8);
    EXPECT_LT(r.i, 1000);
  }
  const auto again = kernels::sample_attention_rows(s, 64, 7);
  ASSERT_EQ(again.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(again[i].i, rows[i].i);
  // A case with fewer rows than asked for: every row once.
  s.batch = 1, s.heads_q = 2, s.seq_q = 3;
  EXPECT_EQ(kernels::sample_attention_rows(s, 64, 7).size(), 6u);
}
