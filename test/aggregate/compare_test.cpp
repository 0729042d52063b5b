// compare: verdicts from the runs' noise, report order, hiding what stayed the same, geometric means per group,
// the runs' contexts side by side, short names, and the three report formats.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aggregate/compare.h"
#include "aggregate/compare_report.h"
#include "aggregate/page.h"
#include "aggregate/score_command.h"
#include "core/error.h"
#include "../file_util.h"

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

TEST(CompareCases, EachCaseTakesTheVerdictOfVerdictH) {
  ResultSet before, after;
  CaseResult noisy = timed(100);
  noisy.counters["recheck_us"] = 110;  // 10% run to run
  before.cases = {{kGemm, noisy}, {kConv, timed(100)}};
  after.cases = {{kGemm, timed(115)}, {kConv, timed(115)}};
  const Comparison c = compare(before, after);
  // 15% slower: within 2 x 10% of noise, unclear; beyond the quiet case's floored noise, slower.
  EXPECT_EQ(named(c, kGemm).verdict, Verdict::unclear);
  EXPECT_EQ(named(c, kGemm).judged.noise_before.source, "re-time");
  EXPECT_EQ(named(c, kConv).verdict, Verdict::slower);
  EXPECT_EQ(c.regressions, 1);
  for (const auto& k : c.cases)
    EXPECT_EQ(k.verdict, case_verdict(before.cases.at(k.name), after.cases.at(k.name)).verdict) << k.name;
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
  EXPECT_NE(md.find("1 slower, 1 faster, 0 unclear, 1 same (1 hidden: --all lists them)"), std::string::npos) << md;
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

// The committed bundles (results/): a bundle against itself changes nowhere, and the page's verdicts (embedded in
// its data by opmark-aggregate page) are compare's, case by case.
namespace {

namespace fs = std::filesystem;
const fs::path kResults = fs::path(OPMARK_SOURCE_DIR) / "results";

const ResultSet& committed(const std::string& bundle) {
  static std::map<std::string, ResultSet> loaded;
  auto it = loaded.find(bundle);
  if (it == loaded.end())
    it = loaded.emplace(bundle, load_results_or_bundle((kResults / bundle).string(), Statistic::median)).first;
  return it->second;
}

}  // namespace

TEST(CompareCommitted, ABundleAgainstItselfChangesNowhere) {
  for (const char* bundle : {"nvidia-h100-80gb-hbm3", "nvidia-h200"}) {
    const Comparison c = compare(committed(bundle), committed(bundle));
    ASSERT_GT(c.cases.size(), 1000u) << bundle;
    EXPECT_EQ(c.counts.count(Verdict::slower), 0u) << bundle;
    EXPECT_EQ(c.counts.count(Verdict::faster), 0u) << bundle;
    // No verdict on a case measured unstable (the H100's v5 bundle keeps 8, within its rules): unclear.
    std::size_t unstable = 0;
    for (const auto& [name, r] : committed(bundle).cases) unstable += r.unstable();
    const auto unclear = c.counts.find(Verdict::unclear);
    EXPECT_EQ(unclear == c.counts.end() ? 0u : static_cast<std::size_t>(unclear->second), unstable) << bundle;
    EXPECT_EQ(c.regressions, 0) << bundle;
    const std::string md = compare_markdown(c, {bundle, bundle, kChangeFloor, false, ""});
    EXPECT_NE(md.find("0 slower, 0 faster, " + std::to_string(unstable) + " unclear, " +
                      std::to_string(c.cases.size() - unstable) + " same"),
              std::string::npos)
        << md.substr(0, 2000);
    EXPECT_EQ(md.find("x faster"), std::string::npos) << md;
    EXPECT_EQ(md.find("x slower"), std::string::npos) << md;
  }
}

TEST(CompareCommitted, PageAndCompareAgreeCaseByCase) {
  // The page over copies of the two bundles (the page's own choice of what results/ publishes does not matter).
  const fs::path dir = fs::temp_directory_path() / ("opmark_page_verdicts_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* bundle : {"nvidia-h100-80gb-hbm3", "nvidia-h200"})
    fs::copy(kResults / bundle, dir / bundle, fs::copy_options::recursive);
  const std::string out = (dir / "index.html").string();
  // Both committed bundles pass the checker (rules version 5), so the page shows them checked.
  opmark::aggregate::PageFlags flags;
  flags.dir = dir.string();
  flags.out = out;
  ASSERT_EQ(run_page(flags), 0);
  const std::string html = opmark::test::read_file(out);
  const std::string open = "<script type=\"application/json\" id=\"opmark-data\">";
  const std::size_t begin = html.find(open);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = html.find("</script>", begin);
  const nlohmann::json data = nlohmann::json::parse(html.substr(begin + open.size(), end - begin - open.size()));
  ASSERT_EQ(data["bundles"].size(), 2u);
  ASSERT_EQ(data["bundles"][0]["id"], "nvidia-h100-80gb-hbm3");

  const Comparison forward = compare(committed("nvidia-h100-80gb-hbm3"), committed("nvidia-h200"));
  const Comparison backward = compare(committed("nvidia-h200"), committed("nvidia-h100-80gb-hbm3"));
  std::map<std::string, std::string> by_compare[2];
  for (const auto& k : forward.cases) by_compare[0][k.name] = name_of(k.verdict);
  for (const auto& k : backward.cases) by_compare[1][k.name] = name_of(k.verdict);
  std::size_t checked = 0;
  std::map<std::string, int> counts;
  for (const auto& k : data["cases"]) {
    const std::string name = k["name"];
    for (int ref = 0; ref < 2; ++ref) {
      const nlohmann::json& v = k["verdicts"][ref][1 - ref];
      if (!by_compare[ref].count(name)) {
        EXPECT_TRUE(v.is_null()) << name;
        continue;
      }
      ASSERT_TRUE(v.is_object()) << name;
      EXPECT_EQ(v["verdict"], by_compare[ref][name]) << name << " against bundle " << ref;
      EXPECT_TRUE(k["verdicts"][ref][ref].is_null());
      ++checked;
      if (ref == 0) ++counts[v["verdict"].get<std::string>()];
    }
  }
  EXPECT_EQ(checked, forward.cases.size() + backward.cases.size());
  std::printf("H100 -> H200, page and compare: %d slower, %d faster, %d unclear, %d same (%d judged in cycles)\n",
              counts["slower"], counts["faster"], counts["unclear"], counts["same"], forward.in_cycles);
  fs::remove_all(dir);
}

// Where the two runs' labels name another chosen candidate, the case says so (markdown note, CSV column, JSON key)
// and the summary counts the slower ones: the tuner's choice, not the library's kernel, may be the change.
TEST(CompareCases, AnotherChosenCandidateIsNamed) {
  EXPECT_EQ(chosen_candidate("graph engine 47 (tensor cores) (fastest of 31; default graph engine 47) | cuDNN"),
            "graph engine 47 (tensor cores)");
  EXPECT_EQ(chosen_candidate("tile 27 (pinned by --opmark_pin) | in f16"), "tile 27");
  EXPECT_EQ(chosen_candidate("opmark kernel | in f16"), "");
  ResultSet before, after;
  CaseResult was = timed(93), is = timed(155);
  was.label = "legacy IMPLICIT_PRECOMP_GEMM (fastest of 31; default graph engine 47, 1.67x) | cuDNN";
  is.label = "graph engine 47 (fastest of 31; default graph engine 47, 1.00x) | cuDNN";
  CaseResult same_choice = timed(100), same_choice_after = timed(130);
  same_choice.label = same_choice_after.label = "tile 27 (fastest of 12; default tile 15, 1.19x) | in f16";
  before.cases = {{kConv, was}, {kGemm, same_choice}};
  after.cases = {{kConv, is}, {kGemm, same_choice_after}};
  const Comparison c = compare(before, after);
  EXPECT_EQ(named(c, kConv).candidate_change, "legacy IMPLICIT_PRECOMP_GEMM -> graph engine 47");
  EXPECT_EQ(named(c, kGemm).candidate_change, "");
  const CompareReportOptions o;
  const std::string md = compare_markdown(c, o);
  EXPECT_NE(md.find("another candidate: legacy IMPLICIT_PRECOMP_GEMM -> graph engine 47"), std::string::npos) << md;
  EXPECT_NE(md.find("1 of the slower cases ran another candidate than before"), std::string::npos) << md;
  EXPECT_NE(compare_csv(c, o).find("legacy IMPLICIT_PRECOMP_GEMM -> graph engine 47"), std::string::npos);
  EXPECT_NE(compare_json(c, o).find("\"candidate_change\": \"legacy IMPLICIT_PRECOMP_GEMM -> graph engine 47\""),
            std::string::npos);
}

// A case with two median lines in one run (the same case measured twice, or logs joined) is named with both lines,
// not merged into a time neither measured.
TEST(CompareInput, ACaseMeasuredTwiceInOneRunIsAnError) {
  const std::string median = "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + kGemm +
                             "\",\"status\":\"ok\",\"time_us\":10}\n";
  const std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"G\"}}\n" + median + median;
  const ResultSet r = parse_results(text, "twice.jsonl", Statistic::median);
  try {
    require_each_case_once(r);
    FAIL() << "no error";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("twice.jsonl:3: " + kGemm +
                                         " has a second median line (the first at line 2)"),
              std::string::npos)
        << e.what();
  }
  require_each_case_once(parse_results("{\"type\":\"context\",\"context\":{}}\n" + median, "once.jsonl",
                                       Statistic::median));
}
