#pragma once
// Measured results as the aggregator reads them: opmark-bench's results log (results.jsonl) or Google
// Benchmark's JSON (benchmark.json), one time per case by the statistic asked for.
#include <map>
#include <string>
#include <vector>

namespace opmark::aggregate {

enum class Statistic { median, mean, min };
Statistic parse_statistic(const std::string& name);  // throws opmark::Error naming the choices

// The median, mean or minimum of some times (0 for none).
double statistic_of(std::vector<double> values, Statistic statistic);

struct CaseResult {
  // ok, unstable, skipped, failed. An unstable case has a time like an ok one (two of its measurements disagreed
  // by more than 1.3x even after measuring again; `reason` says which): scores, spreadsheet, page and compare use
  // its time and mark it, the checker rejects it.
  std::string status = "ok";
  double time_us = 0;            // by the statistic; 0 when the case has no time (skipped, failed)
  std::vector<double> reps_us;   // the repetitions' times, when the file has them
  std::string label, reason;
  std::string verification;      // the harness's check of the result (results.jsonl only)
  // The median line's counters (flops, tflops, joules_per_op, ...), with those of a later "recheck" line (the
  // end-of-run re-time: recheck_us) over them; a case without a median line has its last repetition's. Empty for
  // benchmark.json. A case's status and reason are its last line's (a recheck line can make it unstable).
  std::map<std::string, double> counters;

  bool timed() const { return status == "ok" || status == "unstable"; }  // has a time
  bool unstable() const { return status == "unstable"; }
  // A counter, or `otherwise` where the case has none.
  double counter(const std::string& key, double otherwise = 0) const;
  bool has_counter(const std::string& key) const { return counters.count(key) > 0; }
};

// The time of the library's default choice beside the tuned one, in us: `default_us` (results format 2), or an
// older run's `heuristic_us` (gemm, conv) or `standard_algo_us` (rnn); negative where the case has none.
double default_time_us(const CaseResult& r);

struct ResultSet {
  std::string path;
  std::map<std::string, std::string> context;  // gpu, driver, library versions, ...
  std::map<std::string, CaseResult> cases;     // by canonical case name
};

// A whole file, gzip-compressed or not (a bundle commits its raw files as .gz). Throws opmark::Error naming the
// file when it cannot be read, or when it is compressed and this build has no zlib.
std::string read_results_text(const std::string& path);

// Reads results.jsonl or benchmark.json (by content), either gzip-compressed or not. Throws opmark::Error naming the file, the line (JSONL) and
// the key that is missing or malformed.
ResultSet load_results(const std::string& path, Statistic statistic);
ResultSet parse_results(const std::string& text, const std::string& path, Statistic statistic);

}  // namespace opmark::aggregate
