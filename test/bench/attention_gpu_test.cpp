// The attention family on the GPU: cuDNN's fused attention verified against the float64 reference (no mask,
// causal, GQA and MQA, both layouts, decoding, odd lengths), its backward (dQ, dK, dV of a whole K/V group), fp8
// forward and backward, and both references checked against host computations, with a planted wrong result caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/reference_attention.h"
#include "kernels/reference_attention_bwd.h"

using namespace opmark;

#ifdef OPMARK_HAVE_CUDNN
namespace {

class AttentionCase : public ::testing::TestWithParam<std::string> {};

core::Case attention(const std::string& precision, std::int64_t b, std::int64_t hq, std::int64_t hkv,
                     std::int64_t sq, std::int64_t skv, std::int64_t d, const char* mask, const char* layout,
                     const char* direction = "fwd") {
  return core::make_case("attention", direction, precision,
                         {{"batch", b}, {"heads_q", hq}, {"heads_kv", hkv}, {"seq_q", sq}, {"seq_kv", skv},
                          {"head_dim", d}, {"mask", std::string(mask)}, {"layout", std::string(layout)}});
}

}  // namespace

TEST_P(AttentionCase, VerifiedAgainstFloat64) {
  OPMARK_REQUIRE_GPU();
  const std::string precision = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const auto check = [&](std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t sq, std::int64_t skv,
                         std::int64_t d, const char* mask, const char* layout) {
    test::expect_verified(attention(precision, b, hq, hkv, sq, skv, d, mask, layout), &bench::make_workload,
                          options, test_stream.stream);
  };
  check(2, 4, 4, 128, 128, 64, "none", "bshd");      // MHA
  check(2, 4, 4, 256, 256, 128, "causal", "bshd");   // causal
  check(1, 8, 2, 200, 200, 128, "causal", "bhsd");   // GQA 8/2, a length no tile divides
  check(3, 8, 1, 64, 96, 64, "none", "bshd");        // MQA, more keys than queries
  check(4, 8, 8, 1, 1000, 128, "none", "bshd");      // decoding: one query against a cache
}

// The backward: dQ, dK and dV of one whole K/V group against float64, from the forward's own statistics.
TEST_P(AttentionCase, BackwardVerifiedAgainstFloat64) {
  OPMARK_REQUIRE_GPU();
  const std::string precision = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const auto check = [&](std::int64_t b, std::int64_t hq, std::int64_t hkv, std::int64_t sq, std::int64_t d,
                         const char* mask, const char* layout) {
    test::expect_verified(attention(precision, b, hq, hkv, sq, sq, d, mask, layout, "bwd"), &bench::make_workload,
                          options, test_stream.stream);
  };
  check(2, 4, 4, 128, 64, "none", "bshd");      // MHA
  check(2, 4, 4, 256, 128, "causal", "bshd");   // causal
  check(2, 8, 2, 256, 128, "causal", "bhsd");   // GQA 8/2: dK and dV summed over each group
}

// fp8 (e4m3 Q, K, V and O, per-tensor scales) forward: MHA, and causal GQA in BHSD.
TEST(AttentionFp8, VerifiedAgainstFloat64) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream test_stream;
  test::expect_verified(attention("fp8", 2, 4, 4, 128, 128, 64, "none", "bshd"), &bench::make_workload, options,
                        test_stream.stream);
  test::expect_verified(attention("fp8", 2, 8, 2, 256, 256, 128, "causal", "bhsd"), &bench::make_workload, options,
                        test_stream.stream);
}

// fp8 backward (e4m3 dO, dQ, dK and dV, scales calibrated from two passes' maxima), at head_dim 128 (Hopper's only):
// causal MHA, and GQA 8/2 in BHSD.
TEST(AttentionFp8, BackwardVerifiedAgainstFloat64) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream test_stream;
  test::expect_verified(attention("fp8", 2, 4, 4, 256, 256, 128, "causal", "bshd", "bwd"), &bench::make_workload,
                        options, test_stream.stream);
  test::expect_verified(attention("fp8", 2, 8, 2, 256, 256, 128, "none", "bhsd", "bwd"), &bench::make_workload,
                        options, test_stream.stream);
}

INSTANTIATE_TEST_SUITE_P(HalfPrecisions, AttentionCase, ::testing::Values("fp16", "bf16"),
                         [](const auto& info) { return info.param; });
#endif

// The float64 reference against a host computation on a tiny GQA causal case in fp32, and a wrong output caught.
TEST(AttentionReference, MatchesHostAndCatchesAWrongRow) {
  OPMARK_REQUIRE_GPU();
  test::TestStream ts;
  kernels::AttentionRefShape s{};
  s.batch = 2, s.heads_q = 4, s.heads_kv = 2, s.seq_q = 5, s.seq_kv = 7, s.head_dim = 8, s.causal = true;
  s.q_stride = {4 * 5 * 8, 5 * 8, 8, 1};
  s.kv_stride = {2 * 7 * 8, 7 * 8, 8, 1};
  std::vector<float> q(2 * 4 * 5 * 8), k(2 * 2 * 7 * 8), v(k.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37f * static_cast<float>(i));
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::cos(0.53f * static_cast<float>(i));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.3f * static_cast<float>(i) + 0.2f);
  const auto rows = kernels::sample_attention_rows(s, 1000, 1);  // every row
  ASSERT_EQ(rows.size(), 2u * 4 * 5);
  std::vector<double> expected;
  for (const auto& r : rows) {
    const std::int64_t g = r.h / 2, keys = std::min<std::int64_t>(r.i + 1, 7);
    std::vector<double> p(static_cast<std::size_t>(keys));
    double m = -1e300, z = 0;
    for (std::int64_t j = 0; j < keys; ++j) {
      double acc = 0;
      for (int c = 0; c < 8; ++c)
        acc += double(q[std::size_t(r.b * 160 + r.h * 40 + r.i * 8 + c)]) * double(k[std::size_t(r.b * 112 + g * 56 + j * 8 + c)]);
      p[std::size_t(j)] = acc / std::sqrt(8.0);
      m = std::max(m, p[std::size_t(j)]);
    }
    for (auto& x : p) z += (x = std::exp(x - m));
    for (int c = 0; c < 8; ++c) {
      double o = 0;
      for (std::int64_t j = 0; j < keys; ++j) o += p[std::size_t(j)] * double(v[std::size_t(r.b * 112 + g * 56 + j * 8 + c)]);
      expected.push_back(o / z);
    }
  }
  kernels::DeviceBuffer dq(q.size() * 4), dk(k.size() * 4), dv(v.size() * 4), drows(rows.size() * sizeof(rows[0]));
  kernels::DeviceBuffer ref(expected.size() * 8), wrong(expected.size() * 4);
  OPMARK_CHECK_CUDA(cudaMemcpy(dq.get(), q.data(), dq.bytes(), cudaMemcpyHostToDevice));
  OPMARK_CHECK_CUDA(cudaMemcpy(dk.get(), k.data(), dk.bytes(), cudaMemcpyHostToDevice));
  OPMARK_CHECK_CUDA(cudaMemcpy(dv.get(), v.data(), dv.bytes(), cudaMemcpyHostToDevice));
  OPMARK_CHECK_CUDA(cudaMemcpy(drows.get(), rows.data(), drows.bytes(), cudaMemcpyHostToDevice));
  kernels::reference_attention_rows(s, dq.get(), dk.get(), dv.get(), core::DType::f32,
                                    static_cast<const kernels::AttentionRow*>(drows.get()), rows.size(),
                                    ref.as<double>(), ts.stream);
  std::vector<double> got(expected.size());
  OPMARK_CHECK_CUDA(cudaMemcpyAsync(got.data(), ref.get(), ref.bytes(), cudaMemcpyDeviceToHost, ts.stream));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(ts.stream));
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
  // Planted: the expected rows with one element moved by 10%, in fp32, must be caught.
  std::vector<float> planted(expected.begin(), expected.end());
  planted[13] *= 1.1f;
  OPMARK_CHECK_CUDA(cudaMemcpy(wrong.get(), planted.data(), wrong.bytes(), cudaMemcpyHostToDevice));
  const auto r = kernels::compare_to_reference(wrong.get(), core::DType::f32, ref.as<double>(), got.size(), 1e-3,
                                               ts.stream);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.wrong, 1u);
}

// The float64 backward reference against a host computation of the same gradients, on a tiny GQA causal case in
// fp32 (one K/V group: batch 1, K/V head 1, query heads 2 and 3), and in BHSD strides with more keys than queries.
TEST(AttentionReference, BackwardMatchesHost) {
  OPMARK_REQUIRE_GPU();
  test::TestStream ts;
  for (const bool causal : {true, false}) {
    const int B = 2, HQ = 4, HKV = 2, SQ = 5, SKV = causal ? 5 : 7, D = 8;
    kernels::AttentionRefShape s{};
    s.batch = B, s.heads_q = HQ, s.heads_kv = HKV, s.seq_q = SQ, s.seq_kv = SKV, s.head_dim = D, s.causal = causal;
    s.q_stride = {HQ * SQ * D, SQ * D, D, 1};
    s.kv_stride = {HKV * SKV * D, SKV * D, D, 1};
    std::vector<float> q(B * HQ * SQ * D), k(B * HKV * SKV * D), v(k.size()), d_o(q.size()), o(q.size(), 0.0f);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.37f * float(i)), d_o[i] = std::cos(0.71f * float(i));
    for (std::size_t i = 0; i < k.size(); ++i)
      k[i] = std::cos(0.53f * float(i)), v[i] = std::sin(1.3f * float(i) + 0.2f);
    const kernels::AttentionGroup group{1, 1};
    auto Q = [&](int h, int i, int c) { return double(q[std::size_t(((group.b * HQ + h) * SQ + i) * D + c)]); };
    auto dO = [&](int h, int i, int c) { return double(d_o[std::size_t(((group.b * HQ + h) * SQ + i) * D + c)]); };
    auto K = [&](int j, int c) { return double(k[std::size_t(((group.b * HKV + group.g) * SKV + j) * D + c)]); };
    auto V = [&](int j, int c) { return double(v[std::size_t(((group.b * HKV + group.g) * SKV + j) * D + c)]); };
    const double scale = 1 / std::sqrt(double(D));
    std::vector<double> dq(2 * SQ * D, 0.0), dk(SKV * D, 0.0), dv(SKV * D, 0.0);
    for (int hh = 0; hh < 2; ++hh) {
      const int h = group.g * 2 + hh;
      for (int i = 0; i < SQ; ++i) {
        const int keys = causal ? i + 1 : SKV;
        std::vector<double> p(std::size_t(keys), 0.0), dp(std::size_t(keys), 0.0);
        double m = -1e300, z = 0, delta = 0;
        for (int j = 0; j < keys; ++j) {
          for (int c = 0; c < D; ++c) {
            p[std::size_t(j)] += scale * Q(h, i, c) * K(j, c);
            dp[std::size_t(j)] += dO(h, i, c) * V(j, c);
          }
          m = std::max(m, p[std::size_t(j)]);
        }
        for (auto& x : p) z += (x = std::exp(x - m));
        for (auto& x : p) x /= z;
        for (int c = 0; c < D; ++c) {  // O as the forward stores it (here fp32), and delta from that O
          double out = 0;
          for (int j = 0; j < keys; ++j) out += p[std::size_t(j)] * V(j, c);
          float& stored = o[std::size_t(((group.b * HQ + h) * SQ + i) * D + c)];
          stored = static_cast<float>(out);
          delta += double(stored) * dO(h, i, c);
        }
        for (int j = 0; j < keys; ++j) {
          const double ds = p[std::size_t(j)] * (dp[std::size_t(j)] - delta);
          for (int c = 0; c < D; ++c) {
            dq[std::size_t((hh * SQ + i) * D + c)] += scale * ds * K(j, c);
            dk[std::size_t(j * D + c)] += scale * ds * Q(h, i, c);
            dv[std::size_t(j * D + c)] += p[std::size_t(j)] * dO(h, i, c);
          }
        }
      }
    }
    kernels::DeviceBuffer bq(q.size() * 4), bk(k.size() * 4), bv(v.size() * 4), bo(o.size() * 4), bdo(d_o.size() * 4);
    for (auto [buf, host] : {std::pair{&bq, &q}, {&bk, &k}, {&bv, &v}, {&bo, &o}, {&bdo, &d_o}})
      OPMARK_CHECK_CUDA(cudaMemcpy(buf->get(), host->data(), buf->bytes(), cudaMemcpyHostToDevice));
    kernels::DeviceBuffer rq(dq.size() * 8), rk(dk.size() * 8), rv(dv.size() * 8);
    kernels::reference_attention_backward(s, bq.get(), bk.get(), bv.get(), bo.get(), bdo.get(), core::DType::f32, group,
                                          rq.as<double>(), rk.as<double>(), rv.as<double>(), ts.stream);
    for (auto [buf, expected] : {std::pair{&rq, &dq}, {&rk, &dk}, {&rv, &dv}}) {
      std::vector<double> got(expected->size());
      OPMARK_CHECK_CUDA(cudaMemcpy(got.data(), buf->get(), buf->bytes(), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], (*expected)[i], 1e-12) << causal << " " << i;
    }
    // The gather picks the same elements out of the strided tensors: Q's group heads and K's head.
    kernels::DeviceBuffer gq(dq.size() * 4), gk(dk.size() * 4), gv(dv.size() * 4);
    kernels::gather_attention_group(s, bq.get(), bk.get(), bv.get(), core::DType::f32, group, gq.get(), gk.get(),
                                    gv.get(), ts.stream);
    std::vector<float> picked_q(dq.size()), picked_k(dk.size());
    OPMARK_CHECK_CUDA(cudaMemcpy(picked_q.data(), gq.get(), gq.bytes(), cudaMemcpyDeviceToHost));
    OPMARK_CHECK_CUDA(cudaMemcpy(picked_k.data(), gk.get(), gk.bytes(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(double(picked_q[std::size_t((1 * SQ + 3) * D + 2)]), Q(3, 3, 2));
    EXPECT_EQ(double(picked_k[std::size_t(4 * D + 5)]), K(4, 5));
  }
}
