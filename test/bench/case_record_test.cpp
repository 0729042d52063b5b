// The harness hands each finished case's record to its sink once, however often Google Benchmark calls the case,
// and the results log writes what it is handed; Google Benchmark's reporter keeps the display and progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "bench/harness/output/case_line.h"
#include "bench/harness/output/console_json_reporter.h"
#include "bench/harness/harness.h"
#include "bench/harness/output/results_log.h"
#include "../file_util.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

// A stand-in sink: keeps what each record said, and passes it on to the results log.
struct RecordingSink final : CaseSink {
  explicit RecordingSink(CaseSink& log) : log(log) {}
  void finished(const CaseRecord& r) override {
    finished_cases.push_back(&r.c);
    names.push_back(r.name);
    outcomes.push_back(r.outcome);
    measured.push_back(r.measurement.has_value());
    log.finished(r);
  }
  void retimed(const CaseRecord& r) override {
    ++retimed_count;
    log.retimed(r);
  }
  CaseSink& log;
  std::vector<const core::Case*> finished_cases;
  std::vector<std::string> names;
  std::vector<Outcome> outcomes;
  std::vector<bool> measured;
  int retimed_count = 0;
};

// Counts the runs Google Benchmark reports, and those whose record the sink had by then.
class CountingDisplay : public benchmark::BenchmarkReporter {
 public:
  explicit CountingDisplay(const RecordingSink& sink) : sink_(sink) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      ++seen;
      const std::string name = reported_case_name(run);
      handed_over_first += std::find(sink_.names.begin(), sink_.names.end(), name) != sink_.names.end();
    }
  }
  std::size_t seen = 0, handed_over_first = 0;

 private:
  const RecordingSink& sink_;
};

class HarnessRecords : public test::ScratchFolder {
 protected:
  // Google Benchmark's registry is the process's: start and end with it empty, so no other test's cases run.
  void SetUp() override {
    test::ScratchFolder::SetUp();
    benchmark::ClearRegisteredBenchmarks();
  }
  void TearDown() override {
    benchmark::ClearRegisteredBenchmarks();
    test::ScratchFolder::TearDown();
  }
};

}  // namespace

// On a machine without a GPU every case finishes skipped: each is one record, handed over before Google Benchmark
// reports it, and a second pass over the same cases hands over nothing more.
TEST_F(HarnessRecords, EachCaseHandsOneRecordToTheSinkAndTheLogWritesIt) {
  const std::vector<std::string> names = {"gemm/fwd/fp16/m=64/n=64/k=64/ta=N/tb=N/batch=1",
                                          "gemm/fwd/bf16/m=128/n=64/k=32/ta=N/tb=T/batch=1"};
  Harness harness(Options{}, std::nullopt, "test");
  harness.register_cases({core::parse_case_name(names[0]), core::parse_case_name(names[1])});
  const std::string path = (dir_ / "results.jsonl").string();
  ResultsLog log(path, {{"gpu", "test"}});
  RecordingSink sink(log);
  harness.set_case_sink(&sink);
  auto display = std::make_unique<CountingDisplay>(sink);
  CountingDisplay* display_ptr = display.get();
  ConsoleJsonReporter reporter(std::move(display));
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");  // Google Benchmark calls each case again
  harness.recheck();  // no GPU: nothing is re-timed
  log.append_summary();
  log.close();

  EXPECT_EQ(display_ptr->seen, 4u);  // the display shows every report
  EXPECT_EQ(display_ptr->handed_over_first, 4u);  // each case's record was in the sink before it was reported
  ASSERT_EQ(sink.names, names);      // the sink has each case once, in the order they ran
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(sink.finished_cases[i], &harness.cases()[i]);
    EXPECT_EQ(sink.outcomes[i].status, Status::skipped);
    EXPECT_EQ(sink.outcomes[i].reason, "no CUDA device: test");
    EXPECT_FALSE(sink.measured[i]);
  }
  EXPECT_EQ(sink.retimed_count, 0);

  std::istringstream in(test::read_file(path));
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0]["type"], "context");
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(lines[1 + i]["type"], "run");
    EXPECT_EQ(lines[1 + i]["name"], names[i]);
    EXPECT_EQ(lines[1 + i]["status"], "skipped");
    EXPECT_EQ(lines[1 + i]["reason"], "no CUDA device: test");
  }
  EXPECT_EQ(lines[3], nlohmann::json({{"type", "summary"}, {"ok", 0}, {"unstable", 0}, {"skipped", 2}, {"failed", 0}}));
}
