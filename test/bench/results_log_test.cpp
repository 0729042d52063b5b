// The results log writes from the records the harness hands it: a case's lines carry that record's numbers, they
// reach the file as the case finishes (before the run ends, as after a crash), and a killed log resumes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench/harness/output/results_log.h"
#include "core/resume.h"
#include "../file_util.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

class ResultsLogFile : public test::ScratchFolder {
 protected:
  std::string path() const { return (dir_ / "results.jsonl").string(); }
  std::vector<nlohmann::json> lines() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(test::read_file(dir_ / "results.jsonl"));
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
};

const std::string kGemm = "gemm/fwd/fp16/m=64/n=64/k=64/ta=N/tb=N/batch=1";
const std::string kWide = "gemm/fwd/fp16/m=4096/n=64/k=64/ta=N/tb=N/batch=1";

// What the harness measured for a case: three repetitions, each its own time, launches and clock.
Measurement three_repetitions() {
  Measurement m;
  m.reps = {{10e-6, 0, 400, 1980, 1950, 4, 0, 0},  // seconds per launch, -, launches, clock, slowest clock, reasons
            {12e-6, 0, 300, 1965, 1900, 0, 1, 0},  // one sample dropped
            {11e-6, 0, 350, 1970, 0, 0, 0, 0}};    // its slowest clock not read
  summarize_repetitions(m);
  return m;
}

Outcome ok_outcome() {
  Outcome o;
  o.status = Status::ok;
  o.verification = "all 4096 elements within tolerance";
  o.label = "cublasLt algo 3";
  o.counters = {{"tflops", 48.5}, {"sm_clock_mhz", 1970}};
  o.kernels = {"sm90_xmma_gemm"};
  return o;
}

}  // namespace

TEST_F(ResultsLogFile, ACasesLinesAreItsRecordsNumbersOnDiskAsItFinishes) {
  core::Case c = core::parse_case_name(kGemm);
  c.sets = {"train"};
  ResultsLog log(path(), {{"gpu", "test"}, {"regime", "burst"}});
  log.finished({c, kGemm, ok_outcome(), three_repetitions(), true});

  // Before the summary, as after a kill: the context and every line of the case are in the file.
  const auto l = lines();
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(l[0]["type"], "context");
  EXPECT_EQ(l[0]["context"]["gpu"], "test");
  EXPECT_FALSE(l[0].contains("regime"));  // the context says it once; each case line repeats it
  const double time_us[] = {10, 12, 11};
  const long long launches[] = {400, 300, 350};
  for (int i = 0; i < 3; ++i) {
    const nlohmann::json& run = l[1 + i];
    EXPECT_EQ(run["type"], "run");
    EXPECT_EQ(run["name"], kGemm);
    EXPECT_EQ(run["repetition"], i);
    EXPECT_EQ(run["iterations"], launches[i]);
    EXPECT_DOUBLE_EQ(run["time_us"].get<double>(), time_us[i]);
    EXPECT_EQ(run["status"], "ok");
    EXPECT_EQ(run["regime"], "burst");
    EXPECT_EQ(run["sets"], nlohmann::json({"train"}));
    EXPECT_EQ(run["label"], "cublasLt algo 3");
    EXPECT_FALSE(run.contains("kernels"));  // the aggregates name the kernels
    EXPECT_TRUE(run["counters"].contains("clock_event_reasons"));
  }
  EXPECT_EQ(l[1]["counters"], nlohmann::json({{"discarded_samples", 0}, {"sm_clock_mhz", 1980},
                                              {"sm_clock_min_mhz", 1950}, {"clock_event_reasons", 4}}));
  EXPECT_EQ(l[2]["counters"]["discarded_samples"], 1);
  EXPECT_FALSE(l[3]["counters"].contains("sm_clock_min_mhz"));  // not read: no number
  const Measurement m = three_repetitions();
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json& agg = l[4 + i];
    EXPECT_EQ(agg["type"], "aggregate");
    EXPECT_EQ(agg["aggregate"], i == 0 ? "median" : "mean");
    EXPECT_EQ(agg["iterations"], 1050);  // the launches of all repetitions
    EXPECT_DOUBLE_EQ(agg["time_us"].get<double>(), (i == 0 ? m.median_s : m.mean_s) * 1e6);
    EXPECT_EQ(agg["counters"], nlohmann::json({{"tflops", 48.5}, {"sm_clock_mhz", 1970}}));
    EXPECT_EQ(agg["kernels"], nlohmann::json({"sm90_xmma_gemm"}));
    EXPECT_EQ(agg["verification"], "all 4096 elements within tolerance");
  }

  // Without NVML's readings a repetition's clock-event reasons are no number to write.
  const core::Case wide = core::parse_case_name(kWide);
  log.finished({wide, kWide, ok_outcome(), three_repetitions(), false});
  EXPECT_EQ(lines()[6]["name"], kWide);
  EXPECT_FALSE(lines()[6]["counters"].contains("clock_event_reasons"));
}

TEST_F(ResultsLogFile, ACaseThatDidNotRunIsOneLineAndTheReTimeAndSummaryFollowTheRecords) {
  const core::Case gemm = core::parse_case_name(kGemm), wide = core::parse_case_name(kWide);
  ResultsLog log(path(), {{"gpu", "test"}});
  log.finished({wide, kWide, Outcome{Status::skipped, "out of memory: 24 GiB asked, 8 GiB free", "", "", {}, {}},
                std::nullopt, true});
  log.finished({gemm, kGemm, ok_outcome(), three_repetitions(), true});

  // The re-time's record: measured again, and the measurements still disagree.
  Outcome unstable = ok_outcome();
  unstable.status = Status::unstable;
  unstable.reason = "re-timed at the end of the run at 15 us and measured again at 16 us, against a median of 11 us";
  unstable.counters["recheck_us"] = 15;
  Measurement m = three_repetitions();
  m.recheck_s = 15e-6;
  m.remeasured_s = 16e-6;
  m.recheck_reps_s = {16e-6, 17e-6};
  log.retimed({gemm, kGemm, unstable, m, true});
  log.append_summary();
  log.close();

  const auto l = lines();
  ASSERT_EQ(l.size(), 1u + 1 + 5 + 1 + 1);
  EXPECT_EQ(l[1]["type"], "run");
  EXPECT_EQ(l[1]["name"], kWide);
  EXPECT_EQ(l[1]["status"], "skipped");
  EXPECT_EQ(l[1]["reason"], "out of memory: 24 GiB asked, 8 GiB free");
  EXPECT_FALSE(l[1].contains("time_us"));  // a case that did not run never reports a time
  const nlohmann::json& recheck = l[7];
  EXPECT_EQ(recheck["aggregate"], "recheck");
  EXPECT_EQ(recheck["status"], "unstable");
  EXPECT_EQ(recheck["reason"], unstable.reason);
  // The case's median, beside the re-time's numbers.
  EXPECT_DOUBLE_EQ(recheck["time_us"].get<double>(), m.median_s * 1e6);
  EXPECT_DOUBLE_EQ(recheck["counters"]["recheck_us"].get<double>(), 15);
  EXPECT_DOUBLE_EQ(recheck["counters"]["remeasured_rep0_us"].get<double>(), 16);
  EXPECT_DOUBLE_EQ(recheck["counters"]["remeasured_rep1_us"].get<double>(), 17);
  EXPECT_EQ(l[8],
            nlohmann::json({{"type", "summary"}, {"ok", 0}, {"unstable", 1}, {"skipped", 1}, {"failed", 0}}));
}

// A log killed after its first case goes on from what it holds: no second context line, the earlier case kept and
// counted in the summary, and the whole log resumes again.
TEST_F(ResultsLogFile, AKilledLogResumesFromTheRecordsItHolds) {
  const core::Case gemm = core::parse_case_name(kGemm), wide = core::parse_case_name(kWide);
  {
    ResultsLog first(path(), {{"gpu", "test"}});
    first.finished({gemm, kGemm, ok_outcome(), three_repetitions(), true});
  }  // killed: no summary
  const core::ResumeState resumed = core::read_resume_state(path());
  EXPECT_EQ(resumed.done, std::set<std::string>{kGemm});
  core::write_file_atomically(path(), resumed.kept_text);
  ResultsLog rest(path(), {{"gpu", "test"}}, &resumed);
  rest.finished({wide, kWide, Outcome{Status::failed, "wrong result: 1 of 512 elements wrong", "", "", {}, {}},
                 std::nullopt, true});
  rest.append_summary();
  rest.close();

  const auto l = lines();
  ASSERT_EQ(l.size(), 1u + 5 + 1 + 1);
  EXPECT_EQ(l[0]["type"], "context");
  EXPECT_EQ(l[6]["name"], kWide);
  EXPECT_EQ(l[7], nlohmann::json({{"type", "summary"}, {"ok", 1}, {"unstable", 0}, {"skipped", 0}, {"failed", 1}}));
  const core::ResumeState again = core::read_resume_state(path());
  EXPECT_EQ(again.done, (std::set<std::string>{kGemm, kWide}));
  EXPECT_EQ(again.counts(), (std::map<std::string, int>{{"ok", 1}, {"failed", 1}}));
}

// A log killed in its end-of-run re-time: the resumed part re-times the case that lacks its re-time line, and the
// summary counts that case once, with the re-time's verdict.
TEST_F(ResultsLogFile, AResumedReTimeCountsItsCaseOnce) {
  const core::Case gemm = core::parse_case_name(kGemm), wide = core::parse_case_name(kWide);
  {
    ResultsLog first(path(), {{"gpu", "test"}, {"recheck", "on"}});
    first.finished({gemm, kGemm, ok_outcome(), three_repetitions(), true});
    first.finished({wide, kWide, ok_outcome(), three_repetitions(), true});
    first.retimed({gemm, kGemm, ok_outcome(), three_repetitions(), true});
  }  // killed before wide's re-time
  const core::ResumeState resumed = core::read_resume_state(path());
  EXPECT_EQ(resumed.to_retime.size(), 1u);
  EXPECT_EQ(resumed.to_retime.count(kWide), 1u);
  core::write_file_atomically(path(), resumed.kept_text);
  ResultsLog rest(path(), {{"gpu", "test"}, {"recheck", "on"}}, &resumed);
  Outcome moved = ok_outcome();
  moved.status = Status::unstable;
  moved.reason = "re-timed at the end of the run at 20 us";
  rest.retimed({wide, kWide, moved, three_repetitions(), true});
  rest.append_summary();
  rest.close();
  const auto l = lines();
  EXPECT_EQ(l.back(), nlohmann::json({{"type", "summary"}, {"ok", 1}, {"unstable", 1}, {"skipped", 0}, {"failed", 0}}));
  const core::ResumeState again = core::read_resume_state(path());
  EXPECT_TRUE(again.whole);
  EXPECT_EQ(again.status.at(kWide), "unstable");
}
