#pragma once
// The line-per-run results log (JSON Lines), written from the records the harness hands it (case_record.h): each
// case's lines (every repetition, the median and mean, opmark's own status) are appended at once as the case
// finishes, so a crash or kill later in the run keeps everything measured so far. Every write is checked: a failed
// write (a full disk) throws opmark::Error naming the file, which ends the run.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness/output/case_record.h"
#include "core/file_access.h"
#include "core/result_record.h"
#include "core/resume.h"

namespace opmark::bench {

class ResultsLog final : public CaseSink {
 public:
  // Opens the log at `path` and writes its context line. `path` empty: writes nothing (a rank that writes no files).
  // `resumed` (not null): the log at `path` goes on from it (appended to, its context line kept, its cases counted
  // in the summary) instead of starting anew.
  ResultsLog(const std::string& path, nlohmann::json context, const core::ResumeState* resumed = nullptr);

  // The case's lines: every repetition ("run"), then the median and the mean ("aggregate"); a case that did not run
  // is one line with its status and reason.
  void finished(const CaseRecord& record) override;
  // One more aggregate line ("recheck") carrying the case's status now and the re-time's numbers; readers take a
  // case's last status.
  void retimed(const CaseRecord& record) override;
  // The last line: the cases of the log counted by status (after the re-time, which can make cases unstable).
  void append_summary();
  // Flushes the results log to disk and closes it (after append_summary); throws naming the file on failure.
  void close();

 private:
  // One write for all of `lines`: a case's lines reach the file together.
  void append(const std::vector<nlohmann::json>& lines);
  std::unique_ptr<core::LogFile> log_;
  std::optional<nlohmann::json> regime_;  // the context's regime, which every case line repeats
  std::map<std::string, Status> status_of_;  // the cases written in this run, by name: their latest status
  std::map<std::string, std::string> resumed_status_;  // the cases a resumed log held, and their statuses
};

// One log line for one run (core/result_record.h, as JSON): the case (name, family, precision, sets, applications),
// the time in microseconds, the counters, and opmark's status with its reason and verification summary.
nlohmann::json run_record(const std::string& case_name, const core::Case* c, const Outcome* outcome,
                          bool is_aggregate, const std::string& aggregate_name, long long repetition,
                          long long iterations, double time_us, const std::map<std::string, double>& counters);

}  // namespace opmark::bench
