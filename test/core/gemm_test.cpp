#include <gtest/gtest.h>

#include "core/case.h"
#include "core/families.h"
#include "core/precision.h"

using namespace opmark::core;

static Case gemm(const std::string& precision, std::int64_t m, std::int64_t n, std::int64_t k, const char* ta = "N",
                 const char* tb = "N", std::int64_t batch = 1) {
  return make_case("gemm", "fwd", precision,
                   {{"m", m}, {"n", n}, {"k", k}, {"ta", std::string(ta)}, {"tb", std::string(tb)}, {"batch", batch}});
}

TEST(GemmWork, FlopsAreTwoMnkTimesBatch) {
  EXPECT_DOUBLE_EQ(work_of(gemm("fp16", 1760, 16, 1760)).flops, 2.0 * 1760 * 16 * 1760);
  EXPECT_DOUBLE_EQ(work_of(gemm("fp32", 8192, 8192, 8192)).flops, 2.0 * 8192.0 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(work_of(gemm("bf16", 512, 512, 64, "T", "N", 384)).flops, 2.0 * 512 * 512 * 64 * 384);
}

TEST(GemmWork, BytesAreOperandsReadAndResultWrittenOnce) {
  Work w = work_of(gemm("fp16", 100, 200, 300));
  EXPECT_DOUBLE_EQ(w.bytes_read, (100.0 * 300 + 300.0 * 200) * 2);
  EXPECT_DOUBLE_EQ(w.bytes_written, 100.0 * 200 * 2);
  Work w32 = work_of(gemm("fp32", 100, 200, 300, "N", "N", 3));
  EXPECT_DOUBLE_EQ(w32.bytes(), 3 * (100.0 * 300 + 300.0 * 200 + 100.0 * 200) * 4);
  // int8: one-byte operands, int32 result
  Work w8 = work_of(gemm("int8", 128, 64, 32));
  EXPECT_DOUBLE_EQ(w8.bytes_read, 128.0 * 32 + 32.0 * 64);
  EXPECT_DOUBLE_EQ(w8.bytes_written, 128.0 * 64 * 4);
}

TEST(GemmProblem, Int8IsPaddedToMultiplesOfFourAsDeepBenchDoes) {
  GemmProblem p = gemm_problem(gemm("int8", 35, 8457, 2561, "T", "N"));
  EXPECT_EQ(p.run_m, 36);
  EXPECT_EQ(p.run_n, 8460);
  EXPECT_EQ(p.run_k, 2564);
  EXPECT_TRUE(p.is_padded());
  EXPECT_EQ(p.lda(), 2564);  // A stored k x m when transposed
  EXPECT_EQ(p.ldb(), 2564);
  EXPECT_EQ(p.ldc(), 36);
  // Useful work is the table's problem; bytes are the padded buffers actually moved.
  Work w = work_of(gemm("int8", 35, 8457, 2561, "T", "N"));
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 35 * 8457 * 2561);
  EXPECT_DOUBLE_EQ(w.bytes_read, 36.0 * 2564 + 2564.0 * 8460);
}

TEST(GemmProblem, Fp8PadsToSixteenOthersNotAtAll) {
  GemmProblem p = gemm_problem(gemm("fp8", 7000, 7000, 1760));
  EXPECT_EQ(p.run_m, 7008);
  EXPECT_EQ(p.run_k, 1760);
  GemmProblem q = gemm_problem(gemm("fp16", 35, 7, 3));
  EXPECT_FALSE(q.is_padded());
  EXPECT_EQ(q.lda(), 35);
  EXPECT_EQ(q.ldb(), 3);
}

TEST(Tolerance, GrowsWithTheSquareRootOfTheDepthUpToTheCap) {
  EXPECT_DOUBLE_EQ(depth_tolerance(1e-4, 64), 1e-4);          // shallow: the precision's own
  EXPECT_DOUBLE_EQ(depth_tolerance(1e-4, 1024), 1e-4);
  EXPECT_DOUBLE_EQ(depth_tolerance(1e-4, 4096), 2e-4);        // 4x the depth, 2x the tolerance
  EXPECT_DOUBLE_EQ(depth_tolerance(8e-3, 1e9), 8e-3 * kToleranceGrowthCap);
  EXPECT_DOUBLE_EQ(depth_tolerance(0.0, 1e6), 0.0);           // exact stays exact
}
