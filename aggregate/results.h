#pragma once
// Measured results as the aggregator reads them: opmark-bench's results log (results.jsonl) or Google
// Benchmark's JSON (benchmark.json), one time per case by the statistic asked for.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aggregate/files.h"
#include "core/result_record.h"

namespace opmark::aggregate {

enum class Statistic { median, mean, min };
Statistic parse_statistic(const std::string& name);  // throws opmark::Error naming the choices

// The median, mean or minimum of some times (0 for none).
double statistic_of(std::vector<double> values, Statistic statistic);

// One line of a case in results.jsonl as the checker compares them: the record (core/result_record.h) and where.
struct ResultLine : core::ResultRecord {
  int number = 0;  // 1-based line number in the file
};

// The times opmark accepts for one operation, in us: 1 ns to one hour. No GPU operation takes less than a
// nanosecond (a launch alone is microseconds; graph replays amortise to tens of ns), and none of a benchmark's
// cases takes an hour; a time outside is an edited or broken file.
inline constexpr double kMinTimeUs = 1e-3;
inline constexpr double kMaxTimeUs = 3.6e9;

// `t` where it is such a time; else throws opmark::Error naming `where` and the field `key` ("r.jsonl:12: field
// 'time_us': expected a time of one operation from 0.001 us (1 ns) to 3.6e9 us (an hour), got -40 us").
double checked_time_us(double t, const char* key, const std::string& where);

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
  std::vector<ResultLine> lines;  // every line of the case, in file order (results.jsonl only)
  // Where the case came from, as its lines name it (results.jsonl: the shape tables' `application:` and `model:`
  // of the rows naming the case); empty for benchmark.json and where the rows had none.
  std::set<std::string> applications, models;

  bool timed() const { return status == "ok" || status == "unstable"; }  // has a time
  bool unstable() const { return status == "unstable"; }
  // A counter, or `otherwise` where the case has none.
  double counter(const std::string& key, double otherwise = 0) const;
  bool has_counter(const std::string& key) const { return counters.count(key) > 0; }
};

// The time of the library's default choice beside the tuned one, in us: `default_us` (results format 2), or an
// older run's `heuristic_us` (gemm, conv) or `standard_algo_us` (rnn); negative where the case has none.
double default_time_us(const CaseResult& r);

// A context value as written; "" where it is missing.
inline std::string context_text(const std::map<std::string, std::string>& context, const std::string& key) {
  const auto it = context.find(key);
  return it == context.end() ? std::string() : it->second;
}

struct ResultSet {
  std::string path;
  std::map<std::string, std::string> context;  // gpu, driver, library versions, ...
  std::map<std::string, CaseResult> cases;     // by canonical case name
  std::vector<std::string> warnings;           // what was read with a caveat (a torn last line), to be shown
  int torn_line = 0;                           // results.jsonl's incomplete last line, left out (0: none)
  int context_lines = 0;                       // results.jsonl: how many context lines (one per run)
  int second_context_line = 0;                 // results.jsonl: the line of a second run's context (0: none)
  // results.jsonl: its summary lines (line number, counts by status) and the number of its last record, so the
  // checker can prove a whole run: one summary, last, counting what the lines hold.
  std::vector<std::pair<int, std::map<std::string, long long>>> summaries;
  int last_record_line = 0;
};

// Throws opmark::Error naming the file and the line where a second run begins: two runs in one results.jsonl (logs
// joined with cat) would be merged case by case into numbers neither run measured.
void require_one_run(const ResultSet& results);

// Throws opmark::Error naming the file and both lines where a case has two median lines (results.jsonl): a case
// measured twice in one run has no one time, and merging the two would give a number neither measured.
void require_each_case_once(const ResultSet& results);

// Called with every case line of results.jsonl ("run" and "aggregate") once it has been checked, with its number.
using LineVisitor = std::function<void(int number, const core::ResultRecord& line)>;

// A whole file, gzip-compressed or not (a bundle commits its raw files as .gz), within `limits` (files.h): a regular
// file, not a device; a symbolic link is followed (the command line's files are the user's choice). Throws
// opmark::Error naming the file when it cannot be read, is over the limits, is compressed but cut short, or is
// compressed and this build has no zlib.
std::string read_results_text(const std::string& path, const ReadLimits& limits = ReadLimits{});

// Reads results.jsonl or benchmark.json (by content), either gzip-compressed or not. Throws opmark::Error naming
// the file, the line (JSONL) and the field that is missing or malformed ("r.jsonl:12: field 'time_us': expected a
// number, got a string"), a status that is not one opmark writes, a time that is not a positive number of us in
// [kMinTimeUs, kMaxTimeUs] (benchmark.json: in ns, us, ms or s), or JSON nested deeper than limits.max_depth.
// results.jsonl's last line, cut off where the run was killed (no newline after it, not valid JSON), is left out
// with a warning (ResultSet::warnings, torn_line): everything before it is used.
// Lines::drop keeps no CaseResult::lines (what the checker reads; a reader of times alone, such as the database,
// needs none of them, and a large log's lines are most of its memory).
enum class Lines { keep, drop };
ResultSet load_results(const std::string& path, Statistic statistic, const ReadLimits& limits = ReadLimits{});
ResultSet parse_results(const std::string& text, const std::string& path, Statistic statistic,
                        const ReadLimits& limits = ReadLimits{}, const LineVisitor& visit = {},
                        Lines lines = Lines::keep);

// The results log a path names: the file itself, or in a folder its results.jsonl(.gz) or run/results.jsonl(.gz).
std::string results_log_of(const std::string& path);

}  // namespace opmark::aggregate
