#pragma once
// Google Benchmark's side of a run's output: each case it reports is shown on the console (the display reporter it
// wraps), counted for progress, and written to Google Benchmark's JSON (benchmark.json). opmark writes that file
// itself, so it is opened without following a link and every write is checked: a failed write (a full disk) throws
// opmark::Error naming the file, which ends the run. The results log is no reporter: the harness hands it each
// case's record (case_record.h).
#include <benchmark/benchmark.h>

#include <memory>
#include <sstream>
#include <string>

#include "bench/harness/output/progress.h"
#include "core/file_access.h"

namespace opmark::bench {

class ConsoleJsonReporter final : public benchmark::BenchmarkReporter {
 public:
  // `json_path` not empty: Google Benchmark's JSON goes there too.
  explicit ConsoleJsonReporter(std::unique_ptr<benchmark::BenchmarkReporter> display,
                               const std::string& json_path = "");

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;
  // Shows "case i of N" as cases finish (null: no progress lines).
  void set_progress(Progress* progress) { progress_ = progress; }

 private:
  void write_json();  // what the JSON reporter wrote so far, into benchmark.json
  std::unique_ptr<benchmark::BenchmarkReporter> display_;
  std::unique_ptr<benchmark::BenchmarkReporter> json_;  // Google Benchmark's JSON reporter, into json_text_
  std::ostringstream json_text_;
  std::unique_ptr<core::LogFile> json_file_;
  Progress* progress_ = nullptr;
};

}  // namespace opmark::bench
