// The submission checker against a good bundle and broken copies of it (test/data/bundles): each break is found
// and named, the good one passes; pack writes what check recomputes. Runs made under an earlier rules version are
// checked against that version's file only when the caller asks for it (check --rules-version N).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

#include "../file_util.h"
#include "aggregate/bundle.h"
#include "aggregate/cli.h"
#include "aggregate/system_description.h"

namespace fs = std::filesystem;
using namespace opmark::aggregate;

namespace {

const fs::path kData = fs::path(OPMARK_SOURCE_DIR) / "test" / "data" / "bundles";

std::string read(const fs::path& p) { return opmark::test::read_file(p); }
void write(const fs::path& p, const std::string& text) { opmark::test::write_file(p, text); }

// Replaces the first match of `pattern` in the file.
void edit(const fs::path& p, const std::string& pattern, const std::string& replacement) {
  const std::string before = read(p);
  const std::string after = std::regex_replace(before, std::regex(pattern), replacement, std::regex_constants::format_first_only);
  ASSERT_NE(before, after) << pattern << " not found in " << p;
  write(p, after);
}

// Drops every line of the file that contains `text`.
void drop_lines(const fs::path& p, const std::string& text) {
  std::istringstream in(read(p));
  std::string out, line;
  while (std::getline(in, line))
    if (line.find(text) == std::string::npos) out += line + "\n";
  write(p, out);
}

class BundleCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("opmark_bundle_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::copy(kData / "good", dir_, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<Problem> check() const {
    return check_bundle(dir_.string(), (kData / "rules.yaml").string(), (kData / "shapes").string());
  }
  // All problems as one text, for matching.
  std::string problems() const {
    std::string all;
    for (const auto& p : check()) all += p.what + " -> " + p.fix + "\n";
    return all;
  }
  void repack() const {
    std::vector<std::string> args = {"pack", dir_.string(), "--vendor=Fixture", "--system-name=Fixture system",
                                     "--submitter=opmark-tests", "--started=2026-11-23T04:00:00Z", "--wall-s=60",
                                     "--rules=" + (kData / "rules.yaml").string(),
                                     "--shapes=" + (kData / "shapes").string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ASSERT_EQ(pack_main(static_cast<int>(argv.size()), argv.data()), 0);
  }
  fs::path dir_;
};

}  // namespace

TEST_F(BundleCheck, TheGoodBundlePasses) { EXPECT_EQ(problems(), ""); }

TEST_F(BundleCheck, PackWritesWhatCheckRecomputes) {
  repack();  // the committed fixture is exactly what pack writes today
  for (const char* rel : {"system.yaml", "scores.json", "spreadsheet/fp16_gemm.csv", "spreadsheet/specs.csv"})
    EXPECT_EQ(read(dir_ / rel), read(kData / "good" / rel)) << rel;
  EXPECT_EQ(problems(), "");
}

// opmark-submit passes `--modifications=` (empty in the closed division) before `--started=...`: the empty value
// is the modifications, and the start time stays the start time (CLI11 had taken the next word as the value).
TEST_F(BundleCheck, AnEmptyValueAfterEqualsTakesNotTheNextFlag) {
  std::vector<std::string> args = {"pack", dir_.string(), "--vendor=Fixture", "--system-name=Fixture system",
                                   "--submitter=opmark-tests", "--division=closed", "--modifications=",
                                   "--started=2026-11-23T04:00:00Z", "--wall-s=60",
                                   "--rules=" + (kData / "rules.yaml").string(),
                                   "--shapes=" + (kData / "shapes").string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ASSERT_EQ(pack_main(static_cast<int>(argv.size()), argv.data()), 0);
  const std::string system = read(dir_ / "system.yaml");
  EXPECT_NE(system.find("started: \"2026-11-23T04:00:00Z\""), std::string::npos) << system;
  EXPECT_NE(system.find("modifications: \"\""), std::string::npos) << system;
  EXPECT_EQ(problems(), "");
}

TEST_F(BundleCheck, AMissingRequiredCaseIsNamed) {
  drop_lines(dir_ / "run/results.jsonl", "gemm/fwd/fp16/m=128/n=64/k=32");
  drop_lines(dir_ / "run/benchmark.json", "gemm/fwd/fp16/m=128/n=64/k=32");  // not valid JSON any more: also said
  repack();
  const std::string p = problems();
  EXPECT_NE(p.find("required case missing from run/results.jsonl: gemm/fwd/fp16/m=128/n=64/k=32/ta=N/tb=N/batch=1"),
            std::string::npos) << p;
  EXPECT_NE(p.find("--benchmark_filter='^gemm/fwd/fp16/m=128/n=64/k=32/ta=N/tb=N/batch=1/'"), std::string::npos) << p;
}

TEST_F(BundleCheck, AnUnverifiedCaseIsNamed) {
  // The case's lines lose their verification record (as a run of a modified opmark that skipped it would).
  std::istringstream in(read(dir_ / "run/results.jsonl"));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("m=256/n=8/k=64") != std::string::npos)
      line = std::regex_replace(line, std::regex(R"(,"verification":"[^"]*")"), "");
    out += line + "\n";
  }
  write(dir_ / "run/results.jsonl", out);
  const std::string p = problems();
  EXPECT_NE(p.find("case has no verification record in run/results.jsonl: gemm/fwd/fp16/m=256/n=8/k=64"),
            std::string::npos) << p;
}

TEST_F(BundleCheck, AFailedCaseIsNamedWithItsReason) {
  std::istringstream in(read(dir_ / "run/results.jsonl"));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("fp32/m=64/n=32/k=16") != std::string::npos)
      line = std::regex_replace(line, std::regex(R"("status":"ok")"), R"("status":"failed","reason":"wrong result: 12 of 2048 elements")");
    out += line + "\n";
  }
  write(dir_ / "run/results.jsonl", out);
  EXPECT_NE(problems().find("case failed: gemm/fwd/fp32/m=64/n=32/k=16/ta=N/tb=N/batch=1: wrong result: 12 of 2048"),
            std::string::npos);
}

TEST_F(BundleCheck, AHandEditedScoreIsCaught) {
  edit(dir_ / "scores.json", R"("score_ms": 0\.018)", R"("score_ms": 0.015)");
  const std::string p = problems();
  EXPECT_NE(p.find("scores.json differs from what run/results.jsonl gives (first at line"), std::string::npos) << p;
}

TEST_F(BundleCheck, AHandEditedSpreadsheetAndAnExtraFileAreCaught) {
  edit(dir_ / "spreadsheet/fp16_gemm.csv", R"(,4,0\.004,)", ",3,0.003,");
  write(dir_ / "spreadsheet/opmark.xlsx", "not checkable");
  const std::string p = problems();
  EXPECT_NE(p.find("spreadsheet/fp16_gemm.csv differs"), std::string::npos) << p;
  EXPECT_NE(p.find("spreadsheet/opmark.xlsx is not a file the run gives"), std::string::npos) << p;
}

TEST_F(BundleCheck, AMismatchedGpuInSystemYamlIsNamedWithItsLine) {
  edit(dir_ / "system.yaml", R"(model: "NVIDIA Fixture GPU 80GB")", R"(model: "NVIDIA Better GPU")");
  const std::string p = problems();
  EXPECT_NE(p.find("system.yaml:9: gpu.model says 'NVIDIA Better GPU' but the run's context (run/results.jsonl line 1) "
                   "says 'NVIDIA Fixture GPU 80GB'"),
            std::string::npos) << p;
}

TEST_F(BundleCheck, MalformedYamlIsNamedWithFileAndLine) {
  edit(dir_ / "system.yaml", "vendor: Fixture", "vendor: [Fixture");
  const std::string p = problems();
  EXPECT_NE(p.find("system.yaml:"), std::string::npos) << p;
  EXPECT_NE(p.find("not valid YAML"), std::string::npos) << p;
}

TEST_F(BundleCheck, MissingSubmitterFieldsAndABadDivisionAreNamed) {
  edit(dir_ / "system.yaml", "vendor: Fixture\n", "");
  edit(dir_ / "system.yaml", "division: closed", "division: half-open");
  const std::string p = problems();
  EXPECT_NE(p.find("field 'vendor' is missing"), std::string::npos) << p;
  EXPECT_NE(p.find("division 'half-open' is neither closed nor open"), std::string::npos) << p;
}

TEST_F(BundleCheck, TheOpenDivisionNeedsItsModificationsAndTheClosedAnUnmodifiedOpmark) {
  edit(dir_ / "system.yaml", "division: closed", "division: open");
  EXPECT_NE(problems().find("the open division needs 'modifications'"), std::string::npos);
  edit(dir_ / "system.yaml", "division: open", "division: closed");
  std::istringstream in(read(dir_ / "run/results.jsonl"));
  std::string first;
  std::getline(in, first);
  const std::string rest = read(dir_ / "run/results.jsonl").substr(first.size());
  write(dir_ / "run/results.jsonl", std::regex_replace(first, std::regex("0123456789ab"), "0123456789ab-dirty") + rest);
  EXPECT_NE(problems().find("closed division, but opmark's version is '0123456789ab-dirty'"), std::string::npos);
}

TEST_F(BundleCheck, TooFewRepetitionsAndNoiseAreNamed) {
  std::istringstream in(read(dir_ / "run/results.jsonl"));
  std::string out, line;
  while (std::getline(in, line)) {
    const bool m64 = line.find("fp16/m=64/n=32/k=16") != std::string::npos;
    const bool m128 = line.find("fp16/m=128/n=64/k=32") != std::string::npos;
    if (m64 && line.find("\"repetition\":2") != std::string::npos) continue;  // two repetitions left
    // m=128: 8.0, 9.5, 5.1 us: median 8.0, deviations 0, 1.5, 2.9: noise 1.5 / 8.0 = 0.19
    if (m128 && line.find("\"repetition\":0") != std::string::npos)
      line = std::regex_replace(line, std::regex(R"("time_us":5\.0)"), R"("time_us":8.0)");
    if (m128 && line.find("\"repetition\":1") != std::string::npos)
      line = std::regex_replace(line, std::regex(R"("time_us":5\.2)"), R"("time_us":9.5)");
    out += line + "\n";
  }
  write(dir_ / "run/results.jsonl", out);
  const std::string p = problems();
  EXPECT_NE(p.find("case has 2 repetition(s), the rules need 3: gemm/fwd/fp16/m=64/n=32/k=16"), std::string::npos) << p;
  EXPECT_NE(p.find("run with --opmark_repetitions=3 or more"), std::string::npos) << p;
  EXPECT_NE(p.find("over the limit 0.100: gemm/fwd/fp16/m=128/n=64/k=32"), std::string::npos) << p;
  EXPECT_NE(p.find("us in run/benchmark.json"), std::string::npos) << p;  // a repetition changed: the raw files disagree
}

TEST_F(BundleCheck, ANoisyRunIsNamed) {
  // The fixture's noise: 0.1/4.0, 0.1/5.1, 0/6.0, 0.1/7.1: median (0.0141 + 0.0196) / 2 = 0.0168.
  const fs::path rules = dir_.string() + "_strict_rules.yaml";
  write(rules, std::regex_replace(read(kData / "rules.yaml"), std::regex("max_median_noise: 0.05"), "max_median_noise: 0.001"));
  std::string all;
  for (const auto& p : check_bundle(dir_.string(), rules.string(), (kData / "shapes").string())) all += p.what + "\n";
  EXPECT_NE(all.find("the run's median noise 0.0168 over its 4 measured cases is over the limit 0.0010"),
            std::string::npos) << all;
  fs::remove(rules);
}

TEST_F(BundleCheck, ARunUnderOtherRulesIsNamed) {
  edit(dir_ / "run/results.jsonl", R"("rules_version":"1")", R"("rules_version":"0")");
  EXPECT_NE(problems().find("the run was made under rules version '0', these are version 1"), std::string::npos);
}

TEST_F(BundleCheck, AnUnstableCaseIsRejectedWithItsReason) {
  // Results format 2: the end-of-run re-time's "recheck" line, after every case, says unstable (the case's own
  // lines, written before, said ok); the summary and the run's output count it so.
  std::istringstream in(read(dir_ / "run/results.jsonl"));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("fp16/m=64/n=32/k=16") != std::string::npos && line.find("\"aggregate\":\"recheck\"") != std::string::npos)
      line = std::regex_replace(line, std::regex(R"("status":"ok")"),
                                R"("status":"unstable","reason":"tuning probe 12.3 us vs median 112.0 us (9.1x), twice")");
    if (line.find("\"type\":\"summary\"") != std::string::npos)
      line = R"({"type":"summary","ok":3,"skipped":0,"failed":0,"unstable":1})";
    out += line + "\n";
  }
  ASSERT_NE(out.find("\"status\":\"unstable\""), std::string::npos);
  write(dir_ / "run/results.jsonl", out);
  write(dir_ / "run/bench.log", "opmark: 3 ok, 0 skipped, 0 failed, 1 unstable\n");
  repack();  // its spreadsheet now notes the case: the derived files are what the run gives
  const std::vector<Problem> problems = check();
  ASSERT_EQ(problems.size(), 1u) << problems.front().what;
  EXPECT_EQ(problems[0].what, "unstable: gemm/fwd/fp16/m=64/n=32/k=16/ta=N/tb=N/batch=1: tuning probe 12.3 us vs "
                              "median 112.0 us (9.1x), twice");
  EXPECT_EQ(problems[0].fix.rfind("the rules allow 0 unstable case(s) in this run and it has 1: measure it again on an "
                                  "idle GPU", 0), 0u) << problems[0].fix;
}

TEST_F(BundleCheck, RulesThatNameATimingWantTheRunsTimingMode) {
  const fs::path rules = dir_.string() + "_graph_rules.yaml";  // beside the bundle: a bundle holds only its own files
  write(rules, std::regex_replace(read(kData / "rules.yaml"), std::regex("min_time_s: 0.01"),
                                  "min_time_s: 0.01\n  timing: graph"));
  const auto problems_under = [&](const fs::path& r) {
    std::string all;
    for (const auto& p : check_bundle(dir_.string(), r.string(), (kData / "shapes").string())) all += p.what + "\n";
    return all;
  };
  // The fixture is a results format 1 run: no timing_mode.
  EXPECT_NE(problems_under(rules).find("the run's context (run/results.jsonl line 1) states no timing_mode, the rules "
                                       "require graph (" + rules.string() + ")"),
            std::string::npos) << problems_under(rules);
  EXPECT_EQ(problems_under(kData / "rules.yaml"), "");  // rules without timing: either is fine
  edit(dir_ / "run/results.jsonl", R"("rules_version":"1")", R"("rules_version":"1","timing_mode":"eager")");
  edit(dir_ / "run/benchmark.json", R"("opmark_rules_version": "1")",
       R"("opmark_rules_version": "1", "opmark_timing_mode": "eager")");  // both raw files of the run say it
  repack();  // the context is in specs.csv
  EXPECT_NE(problems_under(rules).find("the run's timing_mode is 'eager' (run/results.jsonl line 1), the rules require "
                                       "graph"),
            std::string::npos) << problems_under(rules);
  edit(dir_ / "run/results.jsonl", R"("timing_mode":"eager")", R"("timing_mode":"graph")");
  edit(dir_ / "run/benchmark.json", R"("opmark_timing_mode": "eager")", R"("opmark_timing_mode": "graph")");
  repack();
  EXPECT_EQ(problems_under(rules), "");
  fs::remove(rules);
}

TEST_F(BundleCheck, ARunUnderAnEarlierVersionIsCheckedAgainstItsRulesOnlyWhenAskedFor) {
  // Rules version 2 beside version 1's file, as shapes/ keeps them.
  const fs::path rules_dir = dir_.string() + "_rules";
  fs::remove_all(rules_dir);
  fs::create_directories(rules_dir);
  std::string v2 = std::regex_replace(read(kData / "rules.yaml"), std::regex("rules_version: 1"), "rules_version: 2");
  v2 = std::regex_replace(v2, std::regex("min_time_s: 0.01"), "min_time_s: 0.01\n  noise_target: 0.01\n  timing: graph");
  write(rules_dir / "submission.yaml", v2);
  write(rules_dir / "submission_v1.yaml", read(kData / "rules.yaml"));
  const auto shapes = (kData / "shapes").string();
  // The newest apply, whatever the run claims: the mismatch (and version 2's timing) are problems.
  std::string all;
  for (const auto& p : check_bundle(dir_.string(), (rules_dir / "submission.yaml").string(), shapes)) all += p.what + "\n";
  EXPECT_NE(all.find("the run was made under rules version '1', these are version 2"), std::string::npos) << all;
  EXPECT_NE(all.find("states no timing_mode, the rules require graph"), std::string::npos) << all;
  // Asked for: checked against version 1's file, said once, no problem.
  const CheckReport report = check_bundle_report(dir_.string(), (rules_dir / "submission.yaml").string(), shapes, 1);
  std::string problems;
  for (const auto& p : report.problems) problems += p.what + "\n";
  EXPECT_EQ(problems, "");
  EXPECT_EQ(report.rules_path, (rules_dir / "submission_v1.yaml").string());
  EXPECT_EQ(report.rules_why, "asked for");
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0], "rules version 1 applied (asked for: " + (rules_dir / "submission_v1.yaml").string() + ")");
  fs::remove_all(rules_dir);
}

TEST(Noise, IsTheMedianAbsoluteDeviationOverTheMedian) {
  EXPECT_NEAR(relative_mad({25.48, 25.47, 48.86}), 0.01 / 25.48, 1e-12);  // one slow repetition barely counts
  EXPECT_DOUBLE_EQ(relative_mad({8.0, 9.5, 5.1}), 1.5 / 8.0);
  EXPECT_DOUBLE_EQ(relative_mad({4.0}), 0.0);
}

TEST(SystemYaml, WrittenFromTheContextAndReadBackWithLines) {
  const std::string text = system_yaml({{"gpu", "G"}, {"memory_gib", "79.178711"}, {"git", "abc"}},
                                       {"open", "V", "S", "W", "cuDNN 9.15 preview", "2026-01-01T00:00:00Z", 61});
  const auto fields = read_system_yaml(text, "system.yaml");
  EXPECT_EQ(fields.at("gpu.model").value, "G");
  EXPECT_EQ(fields.at("gpu.memory_gib").value, "79.2");
  EXPECT_EQ(fields.at("opmark.git").value, "abc");
  EXPECT_EQ(fields.at("division").value, "open");
  EXPECT_EQ(fields.at("modifications").value, "cuDNN 9.15 preview");
  EXPECT_EQ(fields.at("run.wall_s").value, "61");
  EXPECT_EQ(fields.at("format").line, 3);
}
