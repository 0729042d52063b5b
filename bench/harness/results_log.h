#pragma once
// The line-per-run results log (JSON Lines). It wraps the console reporter: every case Google Benchmark reports is
// shown as usual and the harness's record of it (each repetition, the median and mean, opmark's own status) is
// appended to the log at once, so a crash or kill later in the run keeps everything measured so far. It also writes
// Google Benchmark's JSON (benchmark.json) itself, so that file too is opened without following a link and every
// write to either is checked: a failed write (a full disk) throws opmark::Error naming the file, which ends the run.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/harness/harness.h"
#include "bench/harness/progress.h"
#include "core/file_access.h"
#include "core/result_record.h"
#include "core/resume.h"

namespace opmark::bench {

class ResultsLogReporter : public benchmark::BenchmarkReporter {
 public:
  // `path` empty: only forwards to `display`. `json_path` not empty: Google Benchmark's JSON goes there too.
  // `resumed` (not null): the log at `path` goes on from it (appended to, its context line kept, its cases counted
  // in the summary) instead of starting anew.
  ResultsLogReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, const std::string& path,
                     const Harness& harness, nlohmann::json context, const std::string& json_path = "",
                     const core::ResumeState* resumed = nullptr);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  // Shows "case i of N" as cases finish (null: no progress lines).
  void set_progress(Progress* progress) { progress_ = progress; }
  // Appends a case's end-of-run re-time (Harness::recheck).
  void append_recheck(const std::string& case_name);
  // The last line: counts by status (after the re-time, which can make cases unstable).
  void append_summary();
  // Flushes the results log to disk and closes it (after append_summary); throws naming the file on failure.
  void close();

 private:
  void append(const nlohmann::json& line);
  void append(const core::ResultRecord& line);
  void append_case(const std::string& case_name);
  void write_json();  // what the JSON reporter wrote so far, into benchmark.json
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::unique_ptr<core::LogFile> log_;
  std::unique_ptr<benchmark::BenchmarkReporter> json_;  // Google Benchmark's JSON reporter, into json_text_
  std::ostringstream json_text_;
  std::unique_ptr<core::LogFile> json_file_;
  const Harness& harness_;
  nlohmann::json context_;
  std::map<std::string, int> resumed_counts_;  // the cases a resumed log held, by status
  bool resuming_ = false;
  std::set<std::string> not_run_logged_;
  Progress* progress_ = nullptr;  // skipped or failed cases already in the log
};

// Now, as ISO 8601 UTC (each line's logged_at, the context's started_at).
std::string utc_now();

// One log line for one run (core/result_record.h, as JSON): the case (name, family, precision, sets, applications),
// the time in microseconds, the counters, and opmark's status with its reason and verification summary.
nlohmann::json run_record(const std::string& case_name, const core::Case* c, const Outcome* outcome,
                          bool is_aggregate, const std::string& aggregate_name, long long repetition,
                          long long iterations, double time_us, const std::map<std::string, double>& counters);

}  // namespace opmark::bench
