// The kernel summary (bench/harness/timing/kernel_trace.h) from activity records, without a GPU: per-launch sums, kernels
// per launch, distinct kernels in the order they start, the longest kept past kMaxKernels, names demangled and cut.
#include <gtest/gtest.h>

#include "bench/harness/timing/kernel_trace.h"

using namespace opmark::bench;

TEST(KernelTrace, SumsTheKernelsOfEachLaunchInTheOrderTheyStart) {
  // Two launches of two kernels, given out of order: a GEMM of 10 us then a reduction of 2 us (3 us the second time).
  const std::vector<KernelRecord> records = {{"reduce", 12000, 14000}, {"gemm", 0, 10000},
                                             {"reduce", 31000, 34000}, {"gemm", 20000, 30000}};
  const KernelSummary s = summarize_kernels(records, 2);
  EXPECT_DOUBLE_EQ(s.kernels_per_launch, 2.0);
  EXPECT_NEAR(s.seconds_per_launch, 12.5e-6, 1e-12);
  ASSERT_EQ(s.names, (std::vector<std::string>{"gemm", "reduce"}));
  EXPECT_NEAR(s.seconds[0], 10e-6, 1e-12);
  EXPECT_NEAR(s.seconds[1], 2.5e-6, 1e-12);
}

TEST(KernelTrace, NothingTracedIsAnEmptySummary) {
  EXPECT_TRUE(summarize_kernels({}, 10).empty());
  EXPECT_TRUE(summarize_kernels({{"k", 0, 5}}, 0).empty());
  // An end stamp before the start (never seen, but not a negative time) counts as zero.
  const KernelSummary s = summarize_kernels({{"k", 10, 5}}, 1);
  EXPECT_DOUBLE_EQ(s.seconds_per_launch, 0.0);
  EXPECT_DOUBLE_EQ(s.kernels_per_launch, 1.0);
}

TEST(KernelTrace, KeepsTheLongestKernelsInLaunchOrder) {
  // kMaxKernels + 2 kernels in one launch, kernel i lasting i + 1 ns: the two shortest (k0, k1) are dropped from the
  // list, the sum still counts them.
  std::vector<KernelRecord> records;
  double total = 0;
  for (std::size_t i = 0; i < kMaxKernels + 2; ++i) {
    records.push_back({"k" + std::to_string(i), 100 * i, 100 * i + i + 1});
    total += static_cast<double>(i + 1);
  }
  const KernelSummary s = summarize_kernels(records, 1);
  ASSERT_EQ(s.names.size(), kMaxKernels);
  EXPECT_EQ(s.names.front(), "k2");
  EXPECT_EQ(s.names.back(), "k" + std::to_string(kMaxKernels + 1));
  EXPECT_NEAR(s.seconds_per_launch, total * 1e-9, 1e-18);
  EXPECT_DOUBLE_EQ(s.kernels_per_launch, static_cast<double>(kMaxKernels + 2));
}

TEST(KernelTrace, NamesAreDemangledAndCut) {
  EXPECT_EQ(kernel_display_name("_Z12empty_kernelv"), "empty_kernel()");
  EXPECT_EQ(kernel_display_name("nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_NNT"), "nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_NNT");
  const std::string longer(kMaxNameChars + 50, 'x');
  const std::string cut = kernel_display_name(longer);
  EXPECT_EQ(cut.size(), kMaxNameChars);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
}
