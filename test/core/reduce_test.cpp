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

TEST(Reduce, LayerNormHasNoCudnnCounterpart) {
  EXPECT_NO_THROW(reduce("softmax", 4, 4, "fp32", "cudnn"));
  EXPECT_NO_THROW(reduce("sum_all", 4, 4, "fp32", "cudnn"));
  EXPECT_THROW(reduce("layernorm", 4, 4, "fp32", "cudnn"), Error);
}

TEST(ReduceReference, DefinitionsInFloat64) {
  using kernels::ReduceOp;
  const std::vector<double> x = {1, 2, 3, -4, 0, 4}, gamma = {1, 2, 1}, beta = {0, 0, 1};
  const auto run = [&](ReduceOp op) { return kernels::reduce_reference(op, x, gamma, beta, 2, 3); };
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
}
