#pragma once
// One line of opmark-bench's results log (results.jsonl), typed: what the writer (bench/harness/output/results_log.cpp)
// builds and every reader (the aggregator, the checker, the page) parses, so the format is defined once. The schema
// is documented in results/README.md ("results.jsonl, format 2"); bench/compare/opmark_results.py reads the same.
//
// A record round-trips: from_json then to_json gives the JSON value read, field for field. Keys this version does
// not know are kept in `extra` (a newer writer's fields, an older file's), so reading and writing a file loses
// nothing. Records are written with the JSON library's default (sorted) key order, as the log always was.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmark::core {

// The format the context line's `results_format` names. 2: graph timing, `iterations` counting the launches of all
// repetitions, a "recheck" aggregate line, typed context values (numbers as JSON numbers; files written before
// these were typed have every value as text). Logs without `results_format` are format 1.
// 3: the regime (context key and every case line's `regime`: burst or sustained), the run's parameters as typed
// context keys, the SM clock measured on the GPU, and energy from a window bounded by the energy counter's steps
// on every case (results/README.md).
inline constexpr int kResultsFormat = 3;

enum class RecordKind {
  context,    // the first line: the run's context
  run,        // one repetition of a case, or the one line of a case that did not run
  aggregate,  // a case's median, mean, or end-of-run re-time ("recheck")
  summary,    // the last line: cases counted by status
  other,      // a type this version does not know: kept whole in `extra`
};
const char* name_of(RecordKind kind);

// How a case ended (bench/harness/output/outcome.h decides it). ok and unstable cases have a time; an unstable one's
// measurements disagreed even after measuring again (`reason` says how).
enum class CaseStatus { ok, skipped, failed, unstable };
const char* name_of(CaseStatus status);
std::optional<CaseStatus> parse_case_status(const std::string& name);  // nullopt for any other text
inline bool is_timed(CaseStatus s) { return s == CaseStatus::ok || s == CaseStatus::unstable; }

struct ResultRecord {
  RecordKind kind = RecordKind::run;

  // context: the run's facts, values typed as written (text, or numbers since results format 2).
  nlohmann::json context = nlohmann::json::object();

  // run and aggregate: one case.
  std::string name;       // the canonical case name (core/case.h), never Google Benchmark's
  std::string aggregate;  // aggregate lines: median, mean or recheck
  std::optional<long long> repetition;  // run lines: 0, 1, ...
  std::optional<std::string> family, direction, precision;
  std::optional<std::vector<std::string>> sets, applications, models;
  CaseStatus status = CaseStatus::ok;
  // Run lines: the launches timed in the repetition; aggregate lines: those of all repetitions (format 2) or the
  // repetitions (format 1, Google Benchmark's aggregate).
  std::optional<long long> iterations;
  std::optional<double> time_us;  // the time of one launch: the writer gives it on ok and unstable lines
  // Named numbers (flops, tflops, joules_per_op, ...); a counter the run could not compute is NaN (null in JSON).
  std::optional<std::map<std::string, double>> counters;
  std::optional<std::string> reason, verification, label;
  // Aggregate lines of a traced case: the launch's kernels (demangled), in the order they start; counters
  // kernel0_us, kernel1_us, ... give each one's own time per launch, kernel_us their sum.
  std::optional<std::vector<std::string>> kernels;
  std::optional<std::string> logged_at;  // ISO 8601 UTC, when the line was written
  std::optional<std::string> regime;     // burst or sustained (format 3); the context's `regime` says the same

  // summary: the count of cases by status name (ok, skipped, failed, unstable).
  std::map<std::string, long long> counts;

  // Keys this version does not know, as read.
  nlohmann::json extra = nlohmann::json::object();

  bool is_case() const { return kind == RecordKind::run || kind == RecordKind::aggregate; }
  bool timed() const { return is_case() && is_timed(status); }
  // The counters with a value: a NaN one is a counter the run could not compute, no number to use.
  std::map<std::string, double> finite_counters() const;
};

nlohmann::json to_json(const ResultRecord& record);

// Parses one line's JSON object. Throws opmark::Error naming `where` (e.g. "r.jsonl:12") and the field: a missing
// or mistyped field ("r.jsonl:12: field 'time_us': expected a number, got a string"), a status opmark does not
// write, a repetition or count that is not a whole number. What a reader needs of a line beyond its schema (an ok
// case's time, and what time is plausible) is the reader's own check.
ResultRecord from_json(const nlohmann::json& line, const std::string& where);

// A context value as text, whichever way the file typed it: text as it is, a number as JSON writes it ("700",
// "0.01"), anything else as its JSON. Readers that want text use this, so old files (all text) and new ones read
// alike.
std::string context_text(const nlohmann::json& value);

// Now, as ISO 8601 UTC: each line's logged_at, a context's started_at, when a database stored a run.
std::string utc_now();

}  // namespace opmark::core
