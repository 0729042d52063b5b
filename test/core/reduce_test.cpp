// The reduce family on the host: names, byte counts, the cuDNN-counterpart check, and the float64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/reduce.h"

using namespace opmark;
using namespace opmark::core;

static Case reduce(const std::string& op, std::int64_t rows, std::int64_t cols, const char* precision = "fp32",
                   const char* impl = "opmark") {
  return make_case("reduce", "fwd", precision,
                   {{"op", op}, {"rows", rows}, {"cols", cols}, {"impl", std::string(impl)}});
}

TEST(Reduce, BytesAreInputOnceAndOutputOnce) {
  EXPECT_EQ(make_case_name(reduce("softmax", 8, 512, "bf16")), "reduce/fwd/bf16/op=softmax/rows=8/cols=512/impl=opmark");
  const Work sum = work_of(reduce("sum", 100, 300, "fp16"));
  EXPECT_DOUBLE_EQ(sum.flops, 0);
  EXPECT_DOUBLE_EQ(sum.bytes_read, 100.0 * 300 * 2);
  EXPECT_DOUBLE_EQ(sum.bytes_written, 100.0 * 2);
  EXPECT_DOUBLE_EQ(work_of(reduce("sum_all", 100, 300)).bytes_written, 4.0);
  EXPECT_DOUBLE_EQ(work_of(reduce("softmax", 100, 300)).bytes(), 2 * 100.0 * 300 * 4);
  const Work ln = work_of(reduce("layernorm", 100, 300, "bf16"));
  EXPECT_DOUBLE_EQ(ln.bytes_read, (100.0 * 300 + 2 * 300) * 2);  // gamma and beta too
}

TEST(Reduce, BytesOfTheNormsAndFusedResidualAdds) {
  // rows 100, cols 300, bf16 (2 bytes): inputs once, weights once, every output once.
  const double n = 100.0 * 300, cols = 300, e = 2;
  const auto bytes = [&](const char* op) { return work_of(reduce(op, 100, 300, "bf16")); };
  EXPECT_DOUBLE_EQ(bytes("log_softmax").bytes_read, n * e);
  EXPECT_DOUBLE_EQ(bytes("log_softmax").bytes_written, n * e);
  EXPECT_DOUBLE_EQ(bytes("rmsnorm").bytes_read, (n + cols) * e);  // x and the weight
  EXPECT_DOUBLE_EQ(bytes("rmsnorm").bytes_written, n * e);
  EXPECT_DOUBLE_EQ(bytes("add_layernorm").bytes_read, (2 * n + 2 * cols) * e);  // x, residual, gamma, beta
  EXPECT_DOUBLE_EQ(bytes("add_layernorm").bytes_written, 2 * n * e);           // normalised rows and the sum
  EXPECT_DOUBLE_EQ(bytes("add_rmsnorm").bytes_read, (2 * n + cols) * e);
  EXPECT_DOUBLE_EQ(bytes("add_rmsnorm").bytes_written, 2 * n * e);
  EXPECT_EQ(make_case_name(reduce("add_rmsnorm", 8, 4096, "fp16")),
            "reduce/fwd/fp16/op=add_rmsnorm/rows=8/cols=4096/impl=opmark");
}

TEST(Reduce, LayerNormHasNoCudnnCounterpart) {
  EXPECT_NO_THROW(reduce("softmax", 4, 4, "fp32", "cudnn"));
  EXPECT_NO_THROW(reduce("log_softmax", 4, 4, "fp32", "cudnn"));  // CUDNN_SOFTMAX_LOG
  EXPECT_NO_THROW(reduce("sum_all", 4, 4, "fp32", "cudnn"));
  for (const char* op : {"layernorm", "rmsnorm", "add_layernorm", "add_rmsnorm"})
    EXPECT_THROW(reduce(op, 4, 4, "fp32", "cudnn"), Error) << op;
  EXPECT_THROW(reduce("l2norm", 4, 4), Error);  // not an op
  EXPECT_THROW(reduce("rmsnorm", std::int64_t{1} << 31, std::int64_t{1} << 20), Error);  // over 2^40 elements
}

TEST(ReduceReference, DefinitionsInFloat64) {
  using kernels::ReduceOp;
  const std::vector<double> x = {1, 2, 3, -4, 0, 4}, gamma = {1, 2, 1}, beta = {0, 0, 1};
  const auto run = [&](ReduceOp op) { return kernels::reduce_reference(op, x, {}, gamma, beta, 2, 3); };
  EXPECT_EQ(run(ReduceOp::sum), (std::vector<double>{6, 0}));
  EXPECT_EQ(run(ReduceOp::mean), (std::vector<double>{2, 0}));
  EXPECT_EQ(run(ReduceOp::max), (std::vector<double>{3, 4}));
  EXPECT_EQ(run(ReduceOp::sum_all), (std::vector<double>{6}));
  const auto sm = run(ReduceOp::softmax);
  const double denom = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  EXPECT_NEAR(sm[2], 1.0 / denom, 1e-15);
  EXPECT_NEAR(sm[3] + sm[4] + sm[5], 1.0, 1e-15);
  // Row 0: mean 2, variance 2/3; element 1 sits on the mean, so it is beta[1] = 0; element 2 is +1 / sd, times 1, + 1.
  const auto ln = run(ReduceOp::layernorm);
  EXPECT_NEAR(ln[1], 0.0, 1e-15);
  EXPECT_NEAR(ln[2], 1.0 / std::sqrt(2.0 / 3.0 + kernels::kLayerNormEps) + 1.0, 1e-12);
  // log_softmax is the log of softmax.
  const auto lsm = run(ReduceOp::log_softmax);
  for (std::size_t i = 0; i < sm.size(); ++i) EXPECT_NEAR(lsm[i], std::log(sm[i]), 1e-14) << i;
  // RMSNorm of row 0: sum of squares 14 over 3 columns; element 2 is 3 / sqrt(14/3 + eps), times gamma 1.
  const auto rms = run(ReduceOp::rmsnorm);
  EXPECT_NEAR(rms[2], 3.0 / std::sqrt(14.0 / 3.0 + kernels::kRmsNormEps), 1e-12);
  EXPECT_NEAR(rms[1], 2.0 * 2.0 / std::sqrt(14.0 / 3.0 + kernels::kRmsNormEps), 1e-12);  // gamma 2
}

TEST(ReduceReference, FusedAddNormalisesTheSumAndWritesIt) {
  using kernels::ReduceOp;
  const std::vector<double> x = {1, 2, 3, -4, 0, 4}, residual = {0.5, -1, 2, 1, 1, 1}, gamma = {1, 2, 1},
                            beta = {0, 0, 1};
  std::vector<double> sum(6);
  for (std::size_t i = 0; i < 6; ++i) sum[i] = x[i] + residual[i];
  for (auto [fused, plain] : {std::pair{ReduceOp::add_layernorm, ReduceOp::layernorm},
                              std::pair{ReduceOp::add_rmsnorm, ReduceOp::rmsnorm}}) {
    const auto got = kernels::reduce_reference(fused, x, residual, gamma, beta, 2, 3);
    const auto want = kernels::reduce_reference(plain, sum, {}, gamma, beta, 2, 3);
    ASSERT_EQ(got.size(), 12u);  // the normalised rows, then the sum
    for (std::size_t i = 0; i < 6; ++i) {
      EXPECT_DOUBLE_EQ(got[i], want[i]) << i;
      EXPECT_DOUBLE_EQ(got[6 + i], sum[i]) << i;
    }
  }
}
