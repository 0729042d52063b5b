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
  std::string status = "ok";     // ok, skipped, failed
  double time_us = 0;            // by the statistic; 0 when not ok
  std::vector<double> reps_us;   // the repetitions' times, when the file has them
  std::string label, reason;
  std::string verification;      // the harness's check of the result (results.jsonl only)
};

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
