// The screen a run ends on: cases by status per family, the best rate, where the results are, the next commands.
#include <gtest/gtest.h>

#include "bench/harness/output/run_summary.h"

using opmark::bench::run_summary;
using opmark::bench::SummaryCase;
using opmark::bench::SummaryPlace;

TEST(RunSummary, CountsEachFamilysCasesAndNamesItsBestRate) {
  const std::vector<SummaryCase> cases = {
      {"gemm", "gemm/fwd/fp16/m=8192/n=8192/k=8192", "ok", {{"tflops", 750.5}, {"pct_peak", 75.9}}},
      {"gemm", "gemm/fwd/fp16/m=16/n=16/k=16", "ok", {{"tflops", 0.01}, {"pct_peak", 0.001}}},
      {"gemm", "gemm/fwd/int8/m=1", "skipped", {}},
      {"pointwise", "pointwise/fwd/fp16/op=copy", "ok", {{"gb_per_s", 3010}, {"pct_peak_bw", 89.9}}},
      {"pointwise", "pointwise/fwd/fp16/op=relu", "unstable", {{"gb_per_s", 5000}}},
      {"pointwise", "pointwise/fwd/fp16/op=add/rows=16", "ok", {{"gb_per_s", 4400}, {"pct_peak_bw", 131}}},
  };
  SummaryPlace place{"runs/x/results.jsonl", "runs/x", "./build/release/aggregate/opmark-aggregate",
                     {"resnet50", "bert_base"}};
  const auto lines = run_summary(cases, place, 61.4);
  std::string text;
  for (const auto& l : lines) {
    EXPECT_LE(l.size(), 160u) << l;
    text += l + "\n";
  }
  EXPECT_NE(text.find("opmark: 6 cases in 61 s: 4 ok, 0 failed, 1 unstable, 1 skipped"), std::string::npos) << text;
  EXPECT_NE(text.find("  gemm           3    2      0        0       1  750.5 TFLOPS (75.9%) "
                      "gemm/fwd/fp16/m=8192/n=8192/k=8192"),
            std::string::npos)
      << text;
  // An unstable case's rate is no headline, nor one past the DRAM peak (it ran from L2) where another is within it.
  EXPECT_NE(text.find("3010 GB/s (89.9%) pointwise/fwd/fp16/op=copy"), std::string::npos) << text;
  EXPECT_NE(text.find("results: runs/x/results.jsonl"), std::string::npos);
  EXPECT_NE(text.find("./build/release/aggregate/opmark-aggregate scores runs/x --models=resnet50,bert_base"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("spreadsheet runs/x --out runs/x/sheets"), std::string::npos) << text;
}

TEST(RunSummary, ARunThatWroteNothingHasNoNextCommands) {
  const auto lines = run_summary({{"gemm", "gemm/x", "failed", {}}}, SummaryPlace{}, 1);
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  EXPECT_NE(text.find("1 failed"), std::string::npos) << text;
  EXPECT_EQ(text.find("next:"), std::string::npos) << text;
}

TEST(RunSummary, AnAllReduceAcrossGpusIsHeadedByItsBusBandwidthAgainstTheLinks) {
  const std::vector<SummaryCase> cases = {
      {"allreduce", "allreduce/fwd/fp32/count=8/ranks=1", "ok", {{"gb_per_s", 2327}, {"busbw_factor", 0}}},
      {"allreduce", "allreduce/fwd/fp32/count=1073741824/ranks=4", "ok",
       {{"gb_per_s", 241}, {"busbw_factor", 1.5}, {"pct_link_bw", 80.3}}},
      {"allreduce", "allreduce/fwd/fp32/count=8/ranks=4", "ok",
       {{"gb_per_s", 0.001}, {"busbw_factor", 1.5}, {"pct_link_bw", 0.0003}}},
  };
  std::string text;
  for (const auto& l : run_summary(cases, SummaryPlace{}, 10)) text += l + "\n";
  EXPECT_NE(text.find("361.5 GB/s (80.3%) allreduce/fwd/fp32/count=1073741824/ranks=4"), std::string::npos) << text;
}

TEST(RunSummary, ARateWithoutAPeakHasNoPercentage) {
  const std::vector<SummaryCase> cases = {
      {"allreduce", "allreduce/fwd/fp32/count=8/ranks=2", "ok", {{"gb_per_s", 339}, {"busbw_factor", 1}}}};
  std::string text;
  for (const auto& l : run_summary(cases, SummaryPlace{}, 10)) text += l + "\n";
  EXPECT_NE(text.find("339 GB/s allreduce/fwd/fp32/count=8/ranks=2"), std::string::npos) << text;
  EXPECT_EQ(text.find("%)"), std::string::npos) << text;
}
