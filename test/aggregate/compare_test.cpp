// compare: verdicts from the runs' noise, report order, hiding what stayed the same, geometric means per group,
// the runs' contexts side by side, short names, and the three report formats.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aggregate/compare.h"
#include "aggregate/compare_report.h"

using namespace opmark::aggregate;

namespace {

const std::string kConv = "conv/fwd/fp16/n=2/c=8/d=1/h=16/w=16/k=8/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/stride_d=1/"
                          "stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NCHW";
const std::string kGemm = "gemm/fwd/fp16/m=1024/n=1024/k=1024/ta=N/tb=N/batch=1";
const std::string kSmallGemm = "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1";

CaseResult timed(double us, std::vector<double> reps = {}) {
  CaseResult r;
  r.time_us = us;
  r.reps_us = reps.empty() ? std::vector<double>{us, us, us} : std::move(reps);
  return r;
}

const CaseComparison& named(const Comparison& c, const std::string& name) {
  for (const auto& k : c.cases)
    if (k.name == name) return k;
  throw std::runtime_error("no case " + name);
}

}  // namespace

TEST(CompareVerdict, SameWithinTheThresholdEitherWay) {
  EXPECT_EQ(verdict_of(1.04, 0, 0.05, false), Verdict::same);
  EXPECT_EQ(verdict_of(1 / 1.04, 0, 0.05, false), Verdict::same);
  // Symmetric in log space: 1/1.05 is as far as 1.05.
  EXPECT_EQ(verdict_of(0.96, 0, 0.05, false), Verdict::same);
  EXPECT_EQ(verdict_of(0.94, 0, 0.05, false), Verdict::faster);
}

TEST(CompareVerdict, BeyondTheThresholdAndTheNoiseIsSlowerOrFaster) {
  EXPECT_EQ(verdict_of(1.20, 0.03, 0.05, false), Verdict::slower);
  EXPECT_EQ(verdict_of(0.80, 0.03, 0.05, false), Verdict::faster);
}

TEST(CompareVerdict, BeyondTheThresholdWithinTheNoiseIsUnsure) {
  EXPECT_EQ(verdict_of(1.20, 0.25, 0.05, false), Verdict::unsure);
  EXPECT_EQ(verdict_of(0.80, 0.25, 0.05, false), Verdict::unsure);
  // Within the threshold noise does not matter: same.
  EXPECT_EQ(verdict_of(1.01, 0.25, 0.05, false), Verdict::same);
}

TEST(CompareVerdict, UnstableIsUnsureWhateverTheRatio) {
  EXPECT_EQ(verdict_of(2.0, 0, 0.05, true), Verdict::unsure);
  EXPECT_EQ(verdict_of(1.0, 0, 0.05, true), Verdict::unsure);
}

TEST(CompareCases, NoiseComesFromTheRunsCounterOrTheRepetitions) {
  ResultSet before, after;
  CaseResult with_counter = timed(100);
  with_counter.counters["noise"] = 0.1;  // results format 2: the harness's MAD over median
  before.cases = {{kGemm, with_counter}, {kConv, timed(100, {90, 100, 110})}};
  after.cases = {{kGemm, timed(120)}, {kConv, timed(120, {120, 120, 120})}};
  const Comparison c = compare(before, after, 0.05);
  // 20% slower, but 3 x 10% noise: unsure.
  EXPECT_DOUBLE_EQ(named(c, kGemm).noise_before, 0.1);
  EXPECT_NEAR(named(c, kGemm).noise, 0.3, 1e-12);
  EXPECT_EQ(named(c, kGemm).verdict, Verdict::unsure);
  // The repetitions' MAD over median: 10 / 100.
  EXPECT_NEAR(named(c, kConv).noise_before, 0.1, 1e-12);
  EXPECT_EQ(named(c, kConv).noise_after, 0.0);
  EXPECT_EQ(named(c, kConv).verdict, Verdict::unsure);
  EXPECT_EQ(c.regressions, 0);
}

TEST(CompareCases, SortedSlowerFirstThenFasterLargestChangeFirst) {
  ResultSet before, after;
  const std::vector<std::pair<std::string, double>> ratios = {
      {"gemm/fwd/fp16/m=1/n=1/k=1/ta=N/tb=N/batch=1", 1.10}, {"gemm/fwd/fp16/m=2/n=1/k=1/ta=N/tb=N/batch=1", 1.50},
      {"gemm/fwd/fp16/m=3/n=1/k=1/ta=N/tb=N/batch=1", 0.50}, {"gemm/fwd/fp16/m=4/n=1/k=1/ta=N/tb=N/batch=1", 0.90},
      {"gemm/fwd/fp16/m=5/n=1/k=1/ta=N/tb=N/batch=1", 1.01}};
  for (const auto& [name, ratio] : ratios) {
    before.cases[name] = timed(100);
    after.cases[name] = timed(100 * ratio);
  }
  const Comparison c = compare(before, after, 0.05);
  ASSERT_EQ(c.cases.size(), 5u);
  std::vector<double> order;
  for (const auto& k : c.cases) order.push_back(std::round(k.ratio * 100) / 100);
  EXPECT_EQ(order, (std::vector<double>{1.50, 1.10, 0.50, 0.90, 1.01}));
  EXPECT_EQ(c.counts.at(Verdict::slower), 2);
  EXPECT_EQ(c.counts.at(Verdict::faster), 2);
  EXPECT_EQ(c.counts.at(Verdict::same), 1);
  EXPECT_EQ(c.regressions, 2);
}

TEST(CompareCases, ShortCasesAreFlaggedLaunchBoundWhereTheRunSaysSo) {
  ResultSet before, after;
  CaseResult bound = timed(5);
  bound.counters["launch_bound"] = 1;
  CaseResult not_bound = timed(5);
  not_bound.counters["launch_bound"] = 0;
  before.cases = {{kGemm, bound}, {kConv, not_bound}, {kSmallGemm, timed(5)}};
  after.cases = {{kGemm, timed(6)}, {kConv, timed(6)}, {kSmallGemm, timed(6)}};
  const Comparison c = compare(before, after, 0.05);
  EXPECT_EQ(named(c, kGemm).short_flag, "launch_bound");
  EXPECT_EQ(named(c, kConv).short_flag, "");
  // Neither side records the counter (results format 1): short, not known to be launch-bound.
  EXPECT_EQ(named(c, kSmallGemm).short_flag, "short");
  ResultSet old_before, old_after;
  old_before.cases = {{kSmallGemm, timed(5)}};
  old_after.cases = {{kSmallGemm, timed(6)}};
  EXPECT_EQ(compare(old_before, old_after, 0.05).cases[0].short_flag, "short");
  // Long on either side: no flag.
  old_after.cases = {{kSmallGemm, timed(13)}};
  EXPECT_EQ(compare(old_before, old_after, 0.05).cases[0].short_flag, "");
}

TEST(CompareGroups, GeometricMeanPerFamilyAndPerGroupGiven) {
  ResultSet before, after;
  before.cases = {{kGemm, timed(100)}, {kSmallGemm, timed(100)}, {kConv, timed(100)}};
  after.cases = {{kGemm, timed(200)}, {kSmallGemm, timed(50)}, {kConv, timed(150)}};
  const Comparison c = compare(before, after, 0.05);
  ASSERT_EQ(c.families.size(), 2u);
  EXPECT_EQ(c.families[0].name, "gemm");  // core's family order: gemm before conv
  EXPECT_EQ(c.families[0].cases, 2);
  EXPECT_NEAR(c.families[0].geomean_ratio, 1.0, 1e-12);  // sqrt(2 x 0.5)
  EXPECT_EQ(c.families[1].name, "conv");
  EXPECT_NEAR(c.families[1].geomean_ratio, 1.5, 1e-12);
  EXPECT_NEAR(c.geomean_ratio, std::cbrt(2 * 0.5 * 1.5), 1e-12);
  const std::vector<GroupRatio> areas = group_ratios(c.cases, {{kGemm, {"nlp", "cv"}}, {kConv, {"cv"}}});
  ASSERT_EQ(areas.size(), 2u);
  EXPECT_EQ(areas[0].name, "cv");
  EXPECT_NEAR(areas[0].geomean_ratio, std::sqrt(2 * 1.5), 1e-12);
  EXPECT_EQ(areas[1].cases, 1);
}

TEST(CompareContext, TheRunsSideBySideAndDifferentCommitsSaid) {
  const std::map<std::string, std::string> h100 = {
      {"gpu", "NVIDIA H100 80GB HBM3"}, {"git", "955ebe75b463"}, {"driver_version", "580.159.04"},
      {"timing", "cuda events, median over repetitions; L2 hot; launches under 1 ms timed in batches"}};
  const std::map<std::string, std::string> h200 = {{"gpu", "NVIDIA H200"}, {"git", "f26fceee5b9f"},
                                                   {"driver_version", "580.159.04"}, {"results_format", "2"},
                                                   {"timing_mode", "graph"}, {"timing", "...; L2 cold; ..."}};
  const std::vector<ContextRow> rows = context_rows(h100, h200);
  std::map<std::string, ContextRow> by_key;
  for (const auto& row : rows) by_key[row.key] = row;
  EXPECT_TRUE(by_key.at("gpu").differs());
  EXPECT_FALSE(by_key.at("driver_version").differs());
  EXPECT_EQ(by_key.at("results_format").before, "1");  // a run without the key wrote format 1
  EXPECT_EQ(by_key.at("timing_mode").before, "");
  EXPECT_EQ(by_key.at("timing_mode").after, "graph");
  EXPECT_EQ(by_key.at("l2_mode").before, "hot");
  EXPECT_EQ(by_key.at("l2_mode").after, "cold");
  EXPECT_EQ(by_key.count("nccl_version"), 0u);  // neither recorded it: no row
  EXPECT_TRUE(commits_differ(rows));
  EXPECT_FALSE(commits_differ(context_rows(h100, h100)));
}

namespace {

// Three cases: one slower, one faster, one the same; the runs from different commits.
Comparison sample() {
  ResultSet before, after;
  before.context = {{"gpu", "A"}, {"git", "aaa"}};
  after.context = {{"gpu", "B"}, {"git", "bbb"}};
  before.cases = {{kConv, timed(10)}, {kGemm, timed(100)}, {kSmallGemm, timed(20)}};
  after.cases = {{kConv, timed(20)}, {kGemm, timed(50)}, {kSmallGemm, timed(20.1)}};
  return compare(before, after, 0.05);
}

}  // namespace

TEST(CompareReport, MarkdownHidesTheSameAndSaysHowMany) {
  const Comparison c = sample();
  const std::string md = compare_markdown(c, {"h100", "h200", 0.05, false, ""});
  EXPECT_NE(md.find("1 slower, 1 faster, 0 unsure, 1 same (1 hidden: --all lists them)"), std::string::npos) << md;
  EXPECT_NE(md.find("different opmark commits (aaa and bbb)"), std::string::npos) << md;
  EXPECT_EQ(md.find("m=64/n=8/k=32"), std::string::npos) << md;  // the same case: hidden
  // Short names: the convolution's default fields are gone.
  EXPECT_NE(md.find("conv/fwd/fp16/n=2/c=8/h=16/w=16/k=8/r=3/s=3/pad_h=1/pad_w=1 "), std::string::npos) << md;
  EXPECT_EQ(md.find("layout=NCHW"), std::string::npos) << md;
  // Slower before faster.
  EXPECT_LT(md.find("| slower"), md.find("| faster")) << md;
  const std::string all = compare_markdown(c, {"h100", "h200", 0.05, true, ""});
  EXPECT_NE(all.find("m=64/n=8/k=32"), std::string::npos) << all;
  EXPECT_EQ(all.find("hidden"), std::string::npos) << all;
}

TEST(CompareReport, MarkdownColumnsAreAligned) {
  const std::string table = markdown_table({"a", "number"}, {{"a long cell", "1.5"}, {"x|y", "10.25"}}, {false, true});
  std::istringstream lines(table);
  std::size_t width = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!width) width = line.size();
    EXPECT_EQ(line.size(), width) << table;
  }
  EXPECT_NE(table.find("|  10.25 |"), std::string::npos) << table;  // numbers to the right
  EXPECT_NE(table.find("x\\|y"), std::string::npos) << table;      // a '|' in a cell escaped
  EXPECT_NE(table.find("| -----: |"), std::string::npos) << table;
}

TEST(CompareReport, CsvHasARowPerShownCase) {
  const std::string csv = compare_csv(sample(), {"h100", "h200", 0.05, false, ""});
  std::istringstream lines(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u) << csv;  // header, slower, faster
  EXPECT_EQ(rows[0].rfind("verdict,case,short_name,family,before_us,after_us,after_over_before,", 0), 0u);
  EXPECT_EQ(rows[1].rfind("slower," + kConv + ",", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("faster," + kGemm + ",", 0), 0u) << rows[2];
  EXPECT_NE(compare_csv(sample(), {"h100", "h200", 0.05, true, ""}).find("\nsame," + kSmallGemm + ","), std::string::npos);
}

TEST(CompareReport, JsonHoldsVerdictsCountsGroupsAndContext) {
  const nlohmann::json j = nlohmann::json::parse(compare_json(sample(), {"h100", "h200", 0.05, false, ""}));
  EXPECT_EQ(j["counts"]["slower"], 1);
  EXPECT_EQ(j["counts"]["same"], 1);
  EXPECT_EQ(j["hidden_same"], 1);
  EXPECT_EQ(j["regressions"], 1);
  EXPECT_TRUE(j["commits_differ"].get<bool>());
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["cases"][0]["verdict"], "slower");
  EXPECT_EQ(j["cases"][0]["name"], kConv);
  EXPECT_EQ(j["cases"][0]["short_name"], "conv/fwd/fp16/n=2/c=8/h=16/w=16/k=8/r=3/s=3/pad_h=1/pad_w=1");
  EXPECT_EQ(j["families"][0]["name"], "gemm");
  EXPECT_EQ(j["context"][0]["label"], "GPU");
  EXPECT_TRUE(j["context"][0]["differs"].get<bool>());
}
