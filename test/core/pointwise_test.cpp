// The pointwise family on the host: schema, names, byte counts, the cuDNN-counterpart check, and the float64
// reference the GPU kernels are verified against.
#include <gtest/gtest.h>

#include <cmath>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/pointwise.h"

using namespace opmark;
using namespace opmark::core;

static Case pointwise(const std::string& op, std::int64_t rows, std::int64_t cols, const char* precision = "fp16",
                      const char* impl = "opmark") {
  return make_case("pointwise", "fwd", precision,
                   {{"op", op}, {"rows", rows}, {"cols", cols}, {"impl", std::string(impl)}});
}

TEST(Pointwise, NameHoldsEveryFieldInSchemaOrder) {
  EXPECT_EQ(make_case_name(make_case("pointwise", "fwd", "bf16", {{"op", std::string("gelu")}, {"rows", std::int64_t{8}},
                                                                   {"cols", std::int64_t{768}}})),
            "pointwise/fwd/bf16/op=gelu/rows=8/cols=768/impl=opmark");
}

TEST(Pointwise, BytesAreInputsBiasAndOutputOnceAndNoFlops) {
  const Work unary = work_of(pointwise("relu", 100, 300));
  EXPECT_DOUBLE_EQ(unary.flops, 0);
  EXPECT_DOUBLE_EQ(unary.bytes_read, 100.0 * 300 * 2);
  EXPECT_DOUBLE_EQ(unary.bytes_written, 100.0 * 300 * 2);
  EXPECT_DOUBLE_EQ(work_of(pointwise("add", 100, 300, "fp32")).bytes(), 3 * 100.0 * 300 * 4);
  const Work bias = work_of(pointwise("bias_gelu", 100, 300, "bf16"));
  EXPECT_DOUBLE_EQ(bias.bytes_read, (100.0 * 300 + 300) * 2);
  EXPECT_DOUBLE_EQ(bias.bytes_written, 100.0 * 300 * 2);
}

TEST(Pointwise, CudnnImplOnlyForOpsCudnnHas) {
  EXPECT_NO_THROW(pointwise("relu", 4, 4, "fp32", "cudnn"));
  EXPECT_NO_THROW(pointwise("bias_add", 4, 4, "fp32", "cudnn"));
  try {
    pointwise("gelu", 4, 4, "fp32", "cudnn");
    FAIL() << "gelu has no cuDNN counterpart";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("op=gelu has no cuDNN counterpart"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pointwise("softplus", 4, 4), Error);  // not an op
}

TEST(PointwiseReference, DefinitionsInFloat64) {
  using kernels::PointwiseOp;
  const std::vector<double> x = {-1.0, 0.0, 1.0, 2.0}, y = {0.5, 0.5, 0.5, 0.5}, bias = {1.0, -1.0};
  const auto at = [&](PointwiseOp op, std::size_t i) {
    return kernels::pointwise_reference(op, x, y, bias, {}, 2, 2)[i];
  };
  EXPECT_DOUBLE_EQ(at(PointwiseOp::relu, 0), 0.0);
  EXPECT_DOUBLE_EQ(at(PointwiseOp::relu, 3), 2.0);
  EXPECT_NEAR(at(PointwiseOp::gelu, 2), 0.8413447460685429, 1e-15);  // x Phi(x) at 1
  EXPECT_NEAR(at(PointwiseOp::silu, 2), 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
  EXPECT_NEAR(at(PointwiseOp::sigmoid, 1), 0.5, 1e-15);
  EXPECT_NEAR(at(PointwiseOp::tanh, 3), std::tanh(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(at(PointwiseOp::mul, 3), 1.0);
  // The bias runs along the columns: row 1 is {1, 2} + {1, -1}.
  EXPECT_DOUBLE_EQ(at(PointwiseOp::bias_add, 2), 2.0);
  EXPECT_DOUBLE_EQ(at(PointwiseOp::bias_add, 3), 1.0);
  EXPECT_DOUBLE_EQ(at(PointwiseOp::bias_relu, 0), 0.0);  // -1 + 1
  EXPECT_NEAR(at(PointwiseOp::bias_gelu, 2), 2.0 * 0.5 * (1.0 + std::erf(2.0 / std::sqrt(2.0))), 1e-15);
}

TEST(PointwiseReference, ScaleAndMaskedFill) {
  using kernels::PointwiseOp;
  const std::vector<double> x = {-1.0, 0.0, 1.0, 2.0}, mask = {1, 0, 0, 1};
  const auto scaled = kernels::pointwise_reference(PointwiseOp::scale, x, {}, {}, {}, 2, 2);
  EXPECT_DOUBLE_EQ(scaled[3], 2.0 * kernels::kPointwiseScale);
  EXPECT_EQ(kernels::pointwise_reference(PointwiseOp::masked_fill, x, {}, {}, mask, 2, 2),
            (std::vector<double>{kernels::kMaskedFillValue, 0.0, 1.0, kernels::kMaskedFillValue}));
}

TEST(Pointwise, MaskedFillReadsTheMaskAtOneByteAnElement) {
  const Work fill = work_of(pointwise("masked_fill", 100, 300, "bf16"));
  EXPECT_DOUBLE_EQ(fill.bytes_read, 100.0 * 300 * 2 + 100.0 * 300);
  EXPECT_DOUBLE_EQ(fill.bytes_written, 100.0 * 300 * 2);
  EXPECT_DOUBLE_EQ(work_of(pointwise("scale", 100, 300, "fp32")).bytes(), 2 * 100.0 * 300 * 4);
  EXPECT_THROW(pointwise("scale", 4, 4, "fp32", "cudnn"), Error);  // cudnnScaleTensor is in place: not offered
  EXPECT_EQ(make_case_name(pointwise("masked_fill", 8, 512, "fp16")),
            "pointwise/fwd/fp16/op=masked_fill/rows=8/cols=512/impl=opmark");
}
