// Nothing measured is lost: each run reaches the results log as soon as Google Benchmark reports it, before the
// run ends, with opmark's status; the display still gets everything.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "bench/harness/results_log.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

class CountingDisplay : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override { seen += runs.size(); }
  std::size_t seen = 0;
};

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

benchmark::BenchmarkReporter::Run make_run(const std::string& name, double seconds, long iterations) {
  benchmark::BenchmarkReporter::Run r;
  r.run_name.function_name = name;
  r.run_type = benchmark::BenchmarkReporter::Run::RT_Iteration;
  r.iterations = iterations;
  r.repetitions = 1;  // one run, no aggregates: the console shows it (Google Benchmark 1.8 leaves this unset)
  r.real_accumulated_time = seconds * static_cast<double>(iterations);
  r.time_unit = benchmark::kMicrosecond;
  r.counters["tflops"] = benchmark::Counter(123.0);
  return r;
}

}  // namespace

TEST(ResultsLog, EachRunIsOnDiskBeforeTheRunEnds) {
  const std::string path = ::testing::TempDir() + "opmark_results_log_test.jsonl";
  Options options;
  Harness harness(options, std::nullopt, "test");
  const std::string name = "gemm/fwd/fp16/m=64/n=64/k=64/ta=N/tb=N/batch=1";
  harness.register_cases({core::parse_case_name(name)});
  auto display = std::make_unique<CountingDisplay>();
  CountingDisplay* display_ptr = display.get();
  ResultsLogReporter reporter(std::move(display), path, harness, {{"gpu", "test"}});
  reporter.ReportContext({});
  reporter.ReportRuns({make_run(name, 12.5e-6, 40)});

  // Before Finalize, as after a crash: the context and the run are already in the file.
  auto lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["type"], "context");
  EXPECT_EQ(lines[0]["context"]["gpu"], "test");
  EXPECT_EQ(lines[1]["name"], name);
  EXPECT_EQ(lines[1]["precision"], "fp16");
  // This harness never ran the case (no GPU), so the log must not claim a time for it.
  EXPECT_EQ(lines[1]["status"], "failed");
  EXPECT_FALSE(lines[1].contains("time_us"));
  EXPECT_EQ(display_ptr->seen, 1u);

  reporter.Finalize();
  reporter.append_summary();  // after the end-of-run re-time, which can make cases unstable
  lines = read_lines(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["type"], "summary");
  EXPECT_EQ(lines[2]["unstable"], 0);
  std::remove(path.c_str());
}
