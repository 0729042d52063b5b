// The checker against copies of a committed bundle (results/nvidia-h100-80gb-hbm3, rules version 4, checked against
// version 4 on purpose: --rules-version 4), each edited as issue 21 found bundles passing that must not: every edit
// is named. The copy unedited is rejected for its power and energy only (power above the card's limit, J/op off
// power x time), and under the newest rules for its rules version too: what re-measuring must fix.
// The edits are made to run/results.jsonl (written plain beside the removed .gz; benchmark.json stays as committed).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../file_util.h"
#include "aggregate/bundle.h"
#include "aggregate/cli.h"
#include "aggregate/results.h"
#include "core/suite.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace opmark::aggregate;

namespace {

const fs::path kRoot = OPMARK_SOURCE_DIR;
// The H200 bundle (rules version 4): the edits below are held to its own rules.
const fs::path kCommitted = kRoot / "test" / "data" / "bundles" / "nvidia-h200-v4";
// A convolution resnet50's score needs (a required case of rules v1 and v2).
const std::string kConv = "conv/fwd/fp16/n=32/c=64/d=1/h=56/w=56/k=64/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/stride_d=1/"
                          "stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NCHW";

std::string read(const fs::path& p) { return opmark::test::read_file(p); }
void write(const fs::path& p, const std::string& text) { opmark::test::write_file(p, text); }

class CommittedCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("opmark_committed_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::copy(kCommitted, dir_, fs::copy_options::recursive);
    std::istringstream in(read_results_text((dir_ / "run/results.jsonl.gz").string()));
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes the (edited) lines as run/results.jsonl, in place of the compressed one.
  void save() const {
    std::string text;
    for (const auto& l : lines_) text += l + "\n";
    fs::remove(dir_ / "run/results.jsonl.gz");
    write(dir_ / "run/results.jsonl", text);
  }
  // Applies `change` to every case line (run or aggregate) whose case name passes `which`, and saves.
  void edit(const std::function<bool(const std::string&)>& which, const std::function<void(json&)>& change) {
    for (auto& l : lines_) {
      json j = json::parse(l);
      if ((j["type"] != "run" && j["type"] != "aggregate") || !which(j["name"].get<std::string>())) continue;
      change(j);
      l = j.dump();
    }
    save();
  }
  static std::function<bool(const std::string&)> named(const std::string& name) {
    return [name](const std::string& n) { return n == name; };
  }
  // The index in lines_ of the case's first line of `type` (and aggregate), for insertions.
  std::size_t index_of(const std::string& name, const std::string& type, const std::string& aggregate = "") const {
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const json j = json::parse(lines_[i]);
      if (j["type"] == type && j.value("name", "") == name && j.value("aggregate", "") == aggregate) return i;
    }
    ADD_FAILURE() << "no " << type << " " << aggregate << " line of " << name;
    return 0;
  }
  // The run lines (repetitions) of a case.
  int repetitions_of(const std::string& name) const {
    int n = 0;
    for (const auto& l : lines_) {
      const json j = json::parse(l);
      n += j["type"] == "run" && j.value("name", "") == name;
    }
    return n;
  }
  // Every problem of the copy under the repository's rules (the run's own version's file), one a line.
  std::string problems() const {
    const std::string shapes = (kRoot / "shapes").string();
    std::string all;
    for (const auto& p : check_bundle(dir_.string(), (kRoot / "shapes" / "submission.yaml").string(), shapes, 4))
      all += p.what + " -> " + p.fix + "\n";
    return all;
  }

  fs::path dir_;
  std::vector<std::string> lines_;
};

}  // namespace

// The classes of problem a bundle is rejected for, each once.
std::set<std::string> classes_of(const std::vector<Problem>& problems) {
  std::set<std::string> out;
  for (const auto& p : problems) out.insert(p.kind);
  return out;
}

// The H200 bundle was made under rules version 4 and reports power up to 1399 W on a 700 W card, J/op 14-51% above
// power x time: rejected for exactly that under version 4, and for its rules version under the newest (5).
TEST(CommittedBundles, TheV4BundleIsRejectedForPowerAndEnergyAndItsRulesVersionOnly) {
  const std::string shapes = (kRoot / "shapes").string(), rules = (kRoot / "shapes" / "submission.yaml").string();
  ASSERT_EQ(opmark::core::load_suite(rules).rules_version, 5);
  for (const char* bundle : {"test/data/bundles/nvidia-h200-v4"}) {
    const CheckReport v4 = check_bundle_report((kRoot / bundle).string(), rules, shapes, 4);
    EXPECT_EQ(v4.rules_path, (kRoot / "shapes" / "submission_v4.yaml").string()) << bundle;
    EXPECT_EQ(v4.rules_why, "asked for");
    EXPECT_EQ(classes_of(v4.problems), (std::set<std::string>{"power and energy"})) << bundle;
    const CheckReport newest = check_bundle_report((kRoot / bundle).string(), rules, shapes);
    EXPECT_EQ(newest.rules_why, "newest");
    EXPECT_EQ(classes_of(newest.problems), (std::set<std::string>{"power and energy", "rules"})) << bundle;
    std::string all;
    for (const auto& p : newest.problems) all += p.what + "\n";
    EXPECT_NE(all.find("the run was made under rules version '4', these are version 5"), std::string::npos) << all;
    EXPECT_NE(all.find("W, above the power limit 700 W plus 5%"), std::string::npos) << all;
    EXPECT_NE(all.find("but power_w x time_us gives"), std::string::npos) << all;
  }
}

// The H100 bundle, measured under rules version 5 (b011fef, no unstable case): it passes them; under version 4,
// which names no regime, it is rejected for its rules only. (A note for unstable cases within the allowance:
// check_tamper_test.)
TEST(CommittedBundles, TheV5BundlePassesItsRules) {
  const std::string shapes = (kRoot / "shapes").string(), rules = (kRoot / "shapes" / "submission.yaml").string();
  const std::string bundle = (kRoot / "results" / "nvidia-h100-80gb-hbm3").string();
  const CheckReport newest = check_bundle_report(bundle, rules, shapes);
  std::string all;
  for (const auto& p : newest.problems) all += p.what + "\n";
  EXPECT_TRUE(newest.problems.empty()) << all;
  EXPECT_EQ(classes_of(check_bundle_report(bundle, rules, shapes, 4).problems), (std::set<std::string>{"rules"}));
}

// The H200 bundle, measured under rules version 5 (b011fef, no unstable case): it passes them; under version 4,
// which names no regime, it is rejected for its rules only.
TEST(CommittedBundles, TheV5H200BundlePassesItsRules) {
  const std::string shapes = (kRoot / "shapes").string(), rules = (kRoot / "shapes" / "submission.yaml").string();
  const std::string bundle = (kRoot / "results" / "nvidia-h200").string();
  const CheckReport newest = check_bundle_report(bundle, rules, shapes);
  std::string all;
  for (const auto& p : newest.problems) all += p.what + "\n";
  EXPECT_TRUE(newest.problems.empty()) << all;
  EXPECT_EQ(classes_of(check_bundle_report(bundle, rules, shapes, 4).problems), (std::set<std::string>{"rules"}));
}

// A results format 2 run states its min time only in its timing sentence: core's legacy reader takes it from there,
// and the checker holds it to the rules' 0.01 s as it holds a typed one.
TEST_F(CommittedCopy, AnotherMinTimeInTheTimingSentenceIsRejected) {
  json context = json::parse(lines_.front());
  std::string timing = context["context"]["timing"];
  const std::string from = "at least 0.01 s of GPU time";
  ASSERT_NE(timing.find(from), std::string::npos) << timing;
  context["context"]["timing"] = timing.replace(timing.find(from), from.size(), "at least 0.002 s of GPU time");
  lines_.front() = context.dump();
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("the run's min_time_s is 0.002 (the timing sentence in run/results.jsonl line 1), the rules require "
                   "0.01"),
            std::string::npos) << p;
}

// A required case whose lines say "error", "crashed" or nothing and carry no time: the run's status words are
// ok, unstable, skipped and failed; anything else is no result (it passed, and resnet50's score dropped 5%).
TEST_F(CommittedCopy, ARequiredCaseWithAStatusOpmarkDoesNotWriteIsRejected) {
  const auto original = lines_;
  for (const std::string status : {"error", "crashed", ""}) {
    lines_ = original;
    edit(named(kConv), [&](json& j) {
      j["status"] = status;
      j.erase("time_us");
      j.erase("counters");
    });
    const std::string p = problems();
    EXPECT_NE(p.find("field 'status': expected ok, unstable, skipped or failed, got '" + status + "'"),
              std::string::npos) << p;
    EXPECT_EQ(p.find("bundle OK"), std::string::npos);
  }
  // With a time, the same.
  lines_ = original;
  edit(named(kConv), [](json& j) { j["status"] = "error"; });
  EXPECT_NE(problems().find("got 'error'"), std::string::npos);
}

// Times that are no times: negative or zero (written after pack --rederive, which now refuses them too), and the
// absurd 1e-300 and 1e300 us.
TEST_F(CommittedCopy, NonPositiveAndAbsurdTimesAreRejected) {
  const auto original = lines_;
  for (const double t : {-40.0, 0.0, 1e-300, 1e300}) {
    lines_ = original;
    edit(named(kConv), [&](json& j) {
      if (j["type"] == "run" && j["repetition"] == 2) j["time_us"] = t;
    });
    const std::string p = problems();
    EXPECT_NE(p.find("field 'time_us': expected a time of one operation from 0.001 us (1 ns) to 3.6e9 us (an hour)"),
              std::string::npos) << t << ": " << p;
    EXPECT_NE(p.find("run/results.jsonl:"), std::string::npos) << p;  // file and line named
  }
  // pack --rederive derives nothing from them.
  std::vector<std::string> args = {"pack", dir_.string(), "--rederive"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(pack_main(static_cast<int>(argv.size()), argv.data()), 2);
  EXPECT_EQ(read(dir_ / "scores.json"), read(kCommitted / "scores.json"));
}

// Google Benchmark's JSON in a unit it does not have.
TEST_F(CommittedCopy, AnAbsurdTimeUnitInBenchmarkJsonIsRejected) {
  std::string text = read_results_text((dir_ / "run/benchmark.json.gz").string());
  const std::string unit = "\"time_unit\": \"us\"";
  ASSERT_NE(text.find(unit), std::string::npos);
  text.replace(text.find(unit), unit.size(), "\"time_unit\": \"fortnights\"");
  fs::remove(dir_ / "run/benchmark.json.gz");
  write(dir_ / "run/benchmark.json", text);
  const std::string p = problems();
  EXPECT_NE(p.find("run/benchmark.json: benchmarks[0]: field 'time_unit': expected ns, us, ms or s, got 'fortnights'"),
            std::string::npos) << p;
}

// status ok, but the verification says the result was wrong.
TEST_F(CommittedCopy, AVerificationThatDoesNotStateSuccessIsRejected) {
  edit(named(kConv), [](json& j) { j["verification"] = "FAILED: 4096 of 6422528 elements wrong"; });
  const std::string p = problems();
  EXPECT_NE(p.find("case's verification does not state success in run/results.jsonl line"), std::string::npos) << p;
  EXPECT_NE(p.find(kConv + ": 'FAILED: 4096 of 6422528 elements wrong'"), std::string::npos) << p;
}

// More repetitions than the case had plus ten, all at 28 us, which move the median the scores take (the median
// line left as it was).
TEST_F(CommittedCopy, ExtraRepetitionsThatMoveTheMedianAreRejected) {
  const int n = repetitions_of(kConv), total = 2 * n + 10;
  const std::size_t at = index_of(kConv, "aggregate", "mean");
  json rep = json::parse(lines_[index_of(kConv, "run")]);
  std::vector<std::string> extra;
  for (int i = n; i < total; ++i) {
    rep["repetition"] = i;
    rep["time_us"] = 28.0;
    extra.push_back(rep.dump());
  }
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), extra.begin(), extra.end());
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("the median line of " + kConv), std::string::npos) << p;
  EXPECT_NE(p.find("the median of its " + std::to_string(total) + " repetitions is 28 us"), std::string::npos) << p;
  // v1 logs say "is over N repetitions", v2 logs "counts N repetitions": the count it holds is the same.
  EXPECT_NE(p.find(std::to_string(n) + " repetitions, the log holds " + std::to_string(total)), std::string::npos) << p;
}

// More repetitions than the run's maximum, even where the median stays.
TEST_F(CommittedCopy, RepetitionsBeyondTheMaximumAreRejected) {
  const std::size_t at = index_of(kConv, "aggregate", "mean");
  const json median = json::parse(lines_[index_of(kConv, "aggregate", "median")]);
  json rep = json::parse(lines_[index_of(kConv, "run")]);
  std::vector<std::string> extra;
  for (int i = repetitions_of(kConv); i < 31; ++i) {
    rep["repetition"] = i;
    rep["time_us"] = median["time_us"];
    extra.push_back(rep.dump());
  }
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), extra.begin(), extra.end());
  save();
  const std::string p = problems();
  EXPECT_NE(p.find(kConv + " has 31 repetitions, more than the run's maximum of 30"), std::string::npos) << p;
  EXPECT_EQ(p.find("the median line of " + kConv), std::string::npos) << p;  // that one still agrees
}

// Every GEMM 1000 times faster, its counters made to agree (79584% of the peak).
TEST_F(CommittedCopy, RatesAboveTheGpusPeakAreRejected) {
  edit([](const std::string& n) { return n.rfind("gemm/", 0) == 0; }, [](json& j) {
    if (!j.contains("time_us")) return;
    j["time_us"] = j["time_us"].get<double>() / 1000;
    for (const char* k : {"tflops", "gb_per_s", "pct_peak", "pct_peak_bw"})
      if (j["counters"].contains(k)) j["counters"][k] = j["counters"][k].get<double>() * 1000;
  });
  const std::string p = problems();
  EXPECT_NE(p.find("% of the peak 989.4 TFLOPS the run's context gives"), std::string::npos) << p;
  EXPECT_EQ(p.find("derived counters"), std::string::npos) << p;  // they agree: the peak is what tells
}

// 1.75 times faster, counters agreeing: a copy is then above the memory's peak; a gather over a table of 32768 rows
// with 655360 lookups is not, since rows looked up again may come from the L2 (what the new H200 gather path ran at
// 6339 GB/s by its bytes, 3.4 TB/s by those from memory).
TEST_F(CommittedCopy, OnlyBytesThatMustComeFromMemoryAreHeldToItsPeak) {
  const std::string gather = "gather/fwd/fp16/rows=655360/cols=128/table_rows=32768";
  const std::string copy = "pointwise/fwd/fp16/op=copy/rows=655360/cols=256/impl=opmark";
  edit([&](const std::string& n) { return n == gather || n == copy; }, [](json& j) {
    if (!j.contains("time_us")) return;
    j["time_us"] = j["time_us"].get<double>() / 1.75;
    for (const char* k : {"gb_per_s", "pct_peak_bw", "pct_copy_bw"})
      if (j["counters"].contains(k)) j["counters"][k] = j["counters"][k].get<double>() * 1.75;
  });
  const std::string p = problems();  // benchmark.json, left as committed, disagrees with both: not what is tested
  std::istringstream lines(p);
  bool copy_flagged = false, gather_flagged = false;
  for (std::string l; std::getline(lines, l);) {
    if (l.find("bytes from memory / median time") == std::string::npos) continue;
    copy_flagged |= l.rfind(copy + ": ", 0) == 0;
    gather_flagged |= l.find(gather) != std::string::npos;
  }
  EXPECT_TRUE(copy_flagged) << p;
  EXPECT_FALSE(gather_flagged) << p;
}

// tflops and pct_peak x100 on the median lines: they drive the page's rate column and roofline.
TEST_F(CommittedCopy, DerivedCountersThatDisagreeWithFlopsAndTimeAreRejected) {
  edit(named(kConv), [](json& j) {
    if (j.value("aggregate", "") != "median") return;
    j["counters"]["tflops"] = j["counters"]["tflops"].get<double>() * 100;
    j["counters"]["pct_peak"] = j["counters"]["pct_peak"].get<double>() * 100;
  });
  const std::string p = problems();
  EXPECT_NE(p.find(kConv + ": line "), std::string::npos) << p;
  EXPECT_NE(p.find(": tflops "), std::string::npos) << p;
  EXPECT_NE(p.find(", but flops / time give "), std::string::npos) << p;
}

// An all-reduce's share of the links is its bus bandwidth over the context's peak_link_gb_per_s: one edited to 99%
// is rejected (the committed cases ran on one GPU; here one is made to say it crossed links).
TEST_F(CommittedCopy, AnAllReducesShareOfTheLinksThatDisagreesWithItsBusBandwidthIsRejected) {
  json context = json::parse(lines_.front());
  context["context"]["peak_link_gb_per_s"] = 450.0;
  lines_.front() = context.dump();
  std::string name;
  edit([&](const std::string& n) { return n.rfind("allreduce/", 0) == 0 && (name.empty() || n == name); },
       [&](json& j) {
         name = j["name"];
         if (j.value("aggregate", "") != "median") return;
         j["counters"]["busbw_factor"] = 1.0;
         j["counters"]["pct_link_bw"] = 99.0;
       });
  const std::string p = problems();
  EXPECT_NE(p.find(name + ": line "), std::string::npos) << p;
  EXPECT_NE(p.find(": pct_link_bw 99, but bytes / time x busbw_factor / the context's peak_link_gb_per_s give "),
            std::string::npos) << p;
}

// An edited median line, which the page's case details show.
TEST_F(CommittedCopy, AMedianLineThatIsNotTheMedianOfItsRepetitionsIsRejected) {
  edit(named(kConv), [](json& j) {
    if (j.value("aggregate", "") == "median") j["time_us"] = 40.0;
  });
  const std::string p = problems();
  EXPECT_NE(p.find("the median line of " + kConv), std::string::npos) << p;
  EXPECT_NE(p.find(") says 40 us, the median of its " + std::to_string(repetitions_of(kConv)) + " repetitions is "),
            std::string::npos) << p;
}

// A failed line followed by ok lines for the same case: the reader takes the last status; the checker the conflict.
TEST_F(CommittedCopy, AFailedLineFollowedByOkLinesIsRejected) {
  const std::size_t at = index_of(kConv, "run");
  json failed = {{"type", "run"}, {"name", kConv}, {"status", "failed"}, {"repetition", 0},
                 {"reason", "wrong result: 4096 of 6422528 elements wrong"}};
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), failed.dump());
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("conflicting status lines for " + kConv + ": line " + std::to_string(at + 1) + " says failed, line " +
                   std::to_string(at + 2) + " says ok"),
            std::string::npos) << p;
}

// Allowed: ok lines, then the end-of-run re-time's "recheck" line saying unstable: rejected as unstable, no conflict.
TEST_F(CommittedCopy, OkLinesThenAnUnstableRecheckIsUnstableNotAConflict) {
  json recheck = json::parse(lines_[index_of(kConv, "aggregate", "median")]);
  recheck["aggregate"] = "recheck";
  recheck["status"] = "unstable";
  recheck["reason"] = "re-timed at the end of the run at 120 us against a median of 56.0 us (2.1x)";
  lines_.insert(lines_.end() - 1, recheck.dump());
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("unstable: " + kConv + ": re-timed at the end of the run"), std::string::npos) << p;
  EXPECT_EQ(p.find("conflicting"), std::string::npos) << p;
}

// A bundle made entirely of links into another bundle.
TEST_F(CommittedCopy, ABundleOfSymbolicLinksIsRejected) {
  const fs::path links = dir_.string() + "_links";
  fs::remove_all(links);
  fs::create_directories(links / "run");
  fs::create_directories(links / "spreadsheet");
  for (const auto& entry : fs::recursive_directory_iterator(kCommitted))
    if (entry.is_regular_file()) fs::create_symlink(entry.path(), links / entry.path().lexically_relative(kCommitted));
  std::string p;
  for (const auto& problem : check_bundle(links.string(), (kRoot / "shapes" / "submission.yaml").string(),
                                          (kRoot / "shapes").string()))
    p += problem.what + "\n";
  fs::remove_all(links);
  EXPECT_NE(p.find("system.yaml is a symbolic link (to " + (kCommitted / "system.yaml").string() +
                   "): a bundle holds its own files"),
            std::string::npos) << p;
  EXPECT_NE(p.find("run/results.jsonl.gz is a symbolic link"), std::string::npos) << p;
  EXPECT_NE(p.find("run/results.jsonl.gz: a symbolic link, not read"), std::string::npos) << p;
}

// A killed run's torn last line reads (everything before it is used) but is no whole submission.
TEST_F(CommittedCopy, ATornLastLineIsNamed) {
  lines_.pop_back();  // the summary
  std::string text;
  for (const auto& l : lines_) text += l + "\n";
  text.resize(text.size() - 300);  // the last line cut, no newline after it
  fs::remove(dir_ / "run/results.jsonl.gz");
  write(dir_ / "run/results.jsonl", text);
  const std::string p = problems();
  EXPECT_NE(p.find("run/results.jsonl: line " + std::to_string(lines_.size()) +
                   " is incomplete: the run stopped there"),
            std::string::npos) << p;
}

// A compressed results log cut short (at a line boundary: the text reads, the gzip stream has no end).
TEST_F(CommittedCopy, ACutCompressedFileIsAnError) {
  std::string gz = read(kCommitted / "run/results.jsonl.gz");
  gz.resize(gz.size() / 2);
  write(dir_ / "run/results.jsonl.gz", gz);
  const std::string p = problems();
  EXPECT_NE(p.find("run/results.jsonl.gz: the compressed results file stops short of its end"), std::string::npos) << p;
  gz = read(kCommitted / "run/results.jsonl.gz");
  gz.resize(gz.size() - 8);  // only the trailer (checksum and length) gone: every line is there
  write(dir_ / "run/results.jsonl.gz", gz);
  EXPECT_NE(problems().find("stops short of its end"), std::string::npos);
}

// JSON nested 100 000 deep: no crash, one problem naming the line.
TEST_F(CommittedCopy, DeeplyNestedJsonIsRejectedNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  lines_[0].insert(lines_[0].find("\"command\""), "\"deep\":" + deep + ",");
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("run/results.jsonl:1: JSON nested deeper than 64 levels"), std::string::npos) << p;
}

// The committed bundle's peaks say they are opmark's datasheet of its GPU: a peak raised beside that claim, or a power
// limit above the board's largest, is rejected (core/datasheet.h).
TEST_F(CommittedCopy, ARaisedPeakOrAPowerLimitAboveTheBoardsIsRejected) {
  json context = json::parse(lines_.front());
  ASSERT_EQ(context["context"]["peaks"], "datasheet: NVIDIA H200 SXM");
  context["context"]["peak_tflops_fp16"] = 2000.0;
  context["context"]["power_limit_w"] = 2000.0;
  lines_.front() = context.dump();
  save();
  const std::string p = problems();
  EXPECT_NE(p.find("the run's peak_tflops_fp16 is 2000 (run/results.jsonl line 1), but its peaks are 'datasheet: "
                   "NVIDIA H200 SXM', whose figure is 989.4"),
            std::string::npos) << p;
  EXPECT_NE(p.find("the run's power_limit_w 2000 W (run/results.jsonl line 1) is above the NVIDIA H200 SXM's "
                   "largest, 700 W"),
            std::string::npos) << p;
}
