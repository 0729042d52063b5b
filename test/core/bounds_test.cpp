// Issue 21: every integer a user gives is bounded, per field and per tensor, so sizes, FLOPs and bytes are computed
// without overflow; values past a bound are errors naming the field and the range. One test per reproducer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "core/precision.h"
#include "core/schema.h"

using namespace opmark::core;

namespace {

constexpr std::int64_t kTwoTo31 = std::int64_t{1} << 31;
constexpr std::int64_t kTwoTo32 = std::int64_t{1} << 32;
constexpr std::int64_t kTwoTo62 = std::int64_t{1} << 62;

FieldValue i(std::int64_t v) { return v; }
FieldValue s(const char* v) { return std::string(v); }

// What make_case says is wrong, or "no error".
std::string error_of(const std::string& family, const std::string& direction, const std::string& precision,
                     const std::map<std::string, FieldValue>& fields) {
  try {
    make_case(family, direction, precision, fields);
  } catch (const opmark::Error& e) {
    return e.what();
  }
  return "no error";
}

std::map<std::string, FieldValue> gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch = 1) {
  return {{"m", i(m)}, {"n", i(n)}, {"k", i(k)}, {"batch", i(batch)}};
}

std::map<std::string, FieldValue> conv(std::int64_t n, std::int64_t c, std::int64_t hw) {
  return {{"n", i(n)}, {"c", i(c)}, {"h", i(hw)}, {"w", i(hw)}, {"k", i(8)}, {"r", i(1)}, {"s", i(1)}};
}

std::map<std::string, FieldValue> rnn(std::int64_t hidden, std::int64_t layers) {
  return {{"cell", s("lstm")}, {"hidden", i(hidden)}, {"batch", i(16)}, {"steps", i(50)}, {"layers", i(layers)}};
}

std::map<std::string, FieldValue> rows_cols(const char* op, std::int64_t rows, std::int64_t cols) {
  return {{"op", s(op)}, {"rows", i(rows)}, {"cols", i(cols)}};
}

bool finite_and_non_negative(const Work& w) {
  return std::isfinite(w.flops) && w.flops >= 0 && std::isfinite(w.bytes_read) && w.bytes_read >= 0 &&
         std::isfinite(w.bytes_written) && w.bytes_written >= 0;
}

}  // namespace

TEST(Bounds, EveryIntegerFieldOfEverySchemaIsBounded) {
  for (const auto& family : known_families()) {
    for (const auto& f : schema_for(family).fields) {
      if (f.kind != FieldKind::positive_int && f.kind != FieldKind::count) continue;
      SCOPED_TRACE(family + "." + f.name);
      EXPECT_GE(f.max, 1);
      EXPECT_LE(f.max, kMaxElements);
    }
  }
}

TEST(Bounds, GemmDimensionsOf2To32AreOutOfRange) {
  EXPECT_EQ(error_of("gemm", "fwd", "fp16", gemm(kTwoTo32, 16, kTwoTo32)),
            "gemm: field 'm': expected an integer from 1 to 2147483648, got 4294967296");
  // Each dimension in range, an operand past any GPU: named, with its shape.
  EXPECT_EQ(error_of("gemm", "fwd", "fp16", gemm(kTwoTo31, 16, kTwoTo31)),
            "gemm: operand A (m x k x batch) would hold more than 2^40 elements, past any GPU's memory");
  EXPECT_EQ(error_of("gemm", "fwd", "fp16", gemm(1 << 16, 1 << 16, 16, 1 << 9)),
            "gemm: result C (m x n x batch) would hold more than 2^40 elements, past any GPU's memory");
  // The largest operands accepted: exact work, no overflow on the way.
  const Case big = make_case("gemm", "fwd", "fp16", gemm(1 << 20, 1 << 20, 1 << 20));
  EXPECT_DOUBLE_EQ(work_of(big).flops, std::ldexp(1.0, 61));
  EXPECT_EQ(gemm_problem(big).elements_a(), std::int64_t{1} << 40);
}

TEST(Bounds, ConvBatchAndChannelsOf2To32AreOutOfRange) {
  EXPECT_EQ(error_of("conv", "fwd", "fp16", conv(kTwoTo32, kTwoTo32, 8)),
            "conv: field 'n': expected an integer from 1 to 2147483648, got 4294967296");
  EXPECT_EQ(error_of("conv", "fwd", "fp16", conv(1 << 20, 1 << 20, 8)),
            "conv: the input x (n x c x d x h x w) would hold more than 2^40 elements, past any GPU's memory");
}

TEST(Bounds, ConvAndPoolPaddingOf2To62IsOutOfRange) {
  auto padded = conv(1, 8, 8);
  padded["pad_h"] = i(kTwoTo62);
  EXPECT_EQ(error_of("conv", "fwd", "fp16", padded),
            "conv: field 'pad_h': expected an integer from 0 to 65536, got 4611686018427387904");
  auto dilated = conv(1, 8, 8);
  dilated["dil_w"] = i(kTwoTo31);
  EXPECT_EQ(error_of("conv", "fwd", "fp16", dilated),
            "conv: field 'dil_w': expected an integer from 1 to 65536, got 2147483648");
  const std::map<std::string, FieldValue> pool = {{"n", i(1)}, {"c", i(1)},          {"h", i(8)},    {"w", i(8)},
                                                  {"r", i(3)}, {"s", i(3)},          {"pad_h", i(1)},
                                                  {"pad_w", i(kTwoTo62)}};
  EXPECT_EQ(error_of("pool", "fwd", "fp16", pool),
            "pool: field 'pad_w': expected an integer from 0 to 65536, got 4611686018427387904");
}

TEST(Bounds, RowsAndColsOf2To32AreOutOfRange) {
  EXPECT_EQ(error_of("pointwise", "fwd", "fp16", rows_cols("relu", kTwoTo32, kTwoTo32)),
            "pointwise: field 'rows': expected an integer from 1 to 2147483648, got 4294967296");
  EXPECT_EQ(error_of("reduce", "fwd", "fp16", rows_cols("softmax", kTwoTo31, kTwoTo31)),
            "reduce: the tensor (rows x cols) would hold more than 2^40 elements, past any GPU's memory");
  EXPECT_EQ(error_of("pointwise", "fwd", "fp16", rows_cols("copy", 1 << 21, 1 << 20)),
            "pointwise: the tensor (rows x cols) would hold more than 2^40 elements, past any GPU's memory");
}

TEST(Bounds, RnnHiddenWhoseSquareOverflowsIsOutOfRange) {
  EXPECT_EQ(error_of("rnn", "fwd", "fp16", rnn(3037000500, 1)),
            "rnn: field 'hidden': expected an integer from 1 to 2147483648, got 3037000500");
  // In range, but the weights of 1024 layers of hidden 2^20 are 2^53 elements.
  EXPECT_EQ(error_of("rnn", "fwd", "fp16", rnn(1 << 20, 1024)),
            "rnn: the weights (layers x directions x gates x hidden x (input + hidden + 2)) would hold more than "
            "2^40 elements, past any GPU's memory");
}

TEST(Bounds, RnnLayersAreAtMost1024SoTheWorkLoopIsShort) {
  EXPECT_EQ(error_of("rnn", "fwd", "fp16", rnn(512, std::numeric_limits<std::int64_t>::max())),
            "rnn: field 'layers': expected an integer from 1 to 1024, got 9223372036854775807");
  const Case deepest = make_case("rnn", "fwd", "fp16", rnn(512, 1024));
  EXPECT_TRUE(finite_and_non_negative(work_of(deepest)));
  auto long_sequence = rnn(512, 1);
  long_sequence["steps"] = i(kTwoTo31);
  EXPECT_EQ(error_of("rnn", "fwd", "fp16", long_sequence),
            "rnn: field 'steps': expected an integer from 1 to 1048576, got 2147483648");
}

TEST(Bounds, SpmmBatchnormAndAllreduceTensorsAreBounded) {
  const std::map<std::string, FieldValue> spmm = {
      {"m", i(kTwoTo31)}, {"n", i(16)}, {"k", i(kTwoTo31)}, {"sparsity", s("0.99")}};
  EXPECT_EQ(error_of("spmm", "fwd", "fp16", spmm),
            "spmm: the sparse A (m x k) would hold more than 2^40 elements, past any GPU's memory");
  const std::map<std::string, FieldValue> bn = {{"n", i(1 << 16)}, {"c", i(1 << 16)}, {"h", i(1 << 5)}, {"w", i(1 << 5)}};
  EXPECT_EQ(error_of("batchnorm", "fwd", "fp16", bn),
            "batchnorm: the tensor (n x c x h x w) would hold more than 2^40 elements, past any GPU's memory");
  // An all-reduce's count is one tensor, bounded as one (not as a dimension).
  EXPECT_EQ(error_of("allreduce", "fwd", "fp32", {{"count", i(kMaxElements + 1)}, {"ranks", i(8)}}),
            "allreduce: field 'count': expected an integer from 1 to 1099511627776, got 1099511627777");
  EXPECT_EQ(error_of("allreduce", "fwd", "fp32", {{"count", i(kTwoTo32)}, {"ranks", i(8)}}), "no error");
}

TEST(Bounds, BoundedProductNeverOverflows) {
  EXPECT_EQ(bounded_product({}), 1);
  EXPECT_EQ(bounded_product({1 << 20, 1 << 20}), kMaxElements);
  EXPECT_EQ(bounded_product({kMaxElements, 2}), -1);
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(bounded_product({max, max, max}), -1);  // would wrap; checked instead
  EXPECT_EQ(bounded_product({max, 0}), -1);         // past the bound before the zero: still rejected
  EXPECT_EQ(bounded_product({0, max}), 0);
  EXPECT_EQ(bounded_product({-1, 4}), -1);
}

TEST(Bounds, RoundUpRefusesToOverflow) {
  EXPECT_EQ(round_up(5, 4), 8);
  EXPECT_EQ(round_up(8, 4), 8);
  EXPECT_EQ(round_up(7, 1), 7);
  EXPECT_EQ(round_up(std::numeric_limits<std::int64_t>::max() - 3, 4), std::numeric_limits<std::int64_t>::max() - 3);
  EXPECT_THROW(round_up(std::numeric_limits<std::int64_t>::max() - 2, 4), opmark::Error);
}

TEST(Bounds, FractionsThatWouldShareACaseNameAreRejected) {
  const std::map<std::string, FieldValue> spmm = {
      {"m", i(64)}, {"n", i(16)}, {"k", i(64)}, {"sparsity", s("0.50000000001")}};
  EXPECT_EQ(error_of("spmm", "fwd", "fp16", spmm),
            "spmm: field 'sparsity': '0.50000000001' and 0.5 would have the same case name (0.5): give at most 10 "
            "significant digits");
  auto ten_digits = spmm;
  ten_digits["sparsity"] = s("0.5000000001");
  EXPECT_EQ(make_case_name(make_case("spmm", "fwd", "fp16", ten_digits)).find("sparsity=0.5000000001/"),
            std::string("spmm/fwd/fp16/m=64/n=16/k=64/").size());
  // -0 is 0, and named so: one name per value.
  auto negative_zero = spmm;
  negative_zero["sparsity"] = s("-0");
  EXPECT_NE(make_case_name(make_case("spmm", "fwd", "fp16", negative_zero)).find("/sparsity=0/"), std::string::npos);
}
