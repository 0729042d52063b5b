#pragma once
// The console's line per case (--opmark_console=lines, the default): status, time, the kernels' own time, rate and
// % of peak, clock, power and energy per operation, then the name; a case that did not run gives its reason. Google
// Benchmark's table printed about 30 unlabelled counters a case, lines up to 1053 characters, and its header again
// with every change of counters (issue 38); it stays one flag away (--opmark_console=table).
#include <benchmark/benchmark.h>

#include <map>
#include <ostream>
#include <string>

#include "bench/harness/output/case_record.h"
#include "core/result_record.h"

namespace opmark::bench {

// What one line shows of a case. Counters read: kernel_us, tflops, gb_per_s, pct_peak, pct_peak_bw, sm_clock_mhz,
// power_w, joules_per_op (absent or 0: left blank).
struct CaseLine {
  std::string name;
  std::string status;  // ok, unstable, skipped, failed
  std::string reason;  // for a case that is not ok
  double time_us = 0;
  std::map<std::string, double> counters;
};

// The case's name as the results log writes it: Google Benchmark appends the timing mode ("/manual_time").
std::string reported_case_name(const benchmark::BenchmarkReporter::Run& run);

// The widest a case line gets where its short name allows (issue 38: a console a person can read).
constexpr std::size_t kCaseLineWidth = 160;

// The column heads, aligned with format_case_line's columns.
std::string case_line_header();
// One line, without a newline; a reason is cut to keep the line within kCaseLineWidth.
std::string format_case_line(const CaseLine& line);

// The line a case's record shows.
CaseLine case_line_of(const CaseRecord& record);
// The same line from what results.jsonl logged of the case: its median line (a timed case) or its one run line (a
// case that did not run), so a logged run's console can be printed again (the README's sample is held to it).
CaseLine case_line_of(const core::ResultRecord& logged);

// Prints the header, then format_case_line for each case the harness hands it, as it finishes (a CaseSink beside
// the results log: the line shows the record the log wrote, not a lookup by name).
class CaseLinePrinter final : public CaseSink {
 public:
  explicit CaseLinePrinter(std::ostream& out);
  void finished(const CaseRecord& record) override;
  void retimed(const CaseRecord&) override {}

 private:
  std::ostream& out_;
};

// Google Benchmark's display where the case lines are the console: it prints nothing of its own.
class SilentReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace opmark::bench
