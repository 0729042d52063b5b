#include "aggregate/results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "aggregate/benchmark_json.h"
#include "aggregate/case_line_reader.h"
#include "core/counters.h"
#include "core/error.h"
#include "core/json_fields.h"
#include "core/stats.h"

namespace opmark::aggregate {

namespace fs = std::filesystem;

using nlohmann::json;

double CaseResult::counter(const std::string& key, double otherwise) const {
  auto it = counters.find(key);
  return it == counters.end() ? otherwise : it->second;
}

double default_time_us(const CaseResult& r) {
  // heuristic_us and standard_algo_us: what results format 1 called the default's time.
  for (const char* key : {core::counter::default_us, "heuristic_us", "standard_algo_us"})
    if (r.has_counter(key)) return r.counter(key);
  return -1;
}

double statistic_of(std::vector<double> v, Statistic s) {
  if (v.empty()) return 0;
  switch (s) {
    case Statistic::min: return *std::min_element(v.begin(), v.end());
    case Statistic::mean: return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    case Statistic::median: break;
  }
  return core::median_of(std::move(v));
}

double checked_time_us(double t, const char* key, const std::string& where) {
  if (!(t >= kMinTimeUs && t <= kMaxTimeUs)) {
    char text[96];
    std::snprintf(text, sizeof text, "%g us", t);
    core::field_error(where, key, "a time of one operation from 0.001 us (1 ns) to 3.6e9 us (an hour)", text);
  }
  return t;
}

namespace {

// The first non-blank line of `text` closes every bracket it opens: one JSON value per line (results.jsonl).
bool first_line_balanced(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return true;
  const std::size_t end = text.find('\n', begin);
  const std::string_view line = text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  return scan_brackets(line, std::numeric_limits<int>::max()).depth == 0;
}

// A first line that closes every bracket it opens, with more after it: one JSON value per line (results.jsonl). No
// parse of the whole text can succeed there, so none is tried (two passes over a large log).
bool json_lines(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  const std::size_t end = begin == std::string_view::npos ? begin : text.find('\n', begin);
  return end != std::string_view::npos && text.find_first_not_of(" \t\r\n", end) != std::string_view::npos &&
         first_line_balanced(text);
}

std::string too_deep(const std::string& where, const ReadLimits& limits) {
  return where + ": JSON nested deeper than " + std::to_string(limits.max_depth) +
         " levels (opmark writes 3): not read";
}

// Case records gathered into a ResultSet, whichever file they came from (results.jsonl, or benchmark.json through
// benchmark_json.h): each case's last status, its repetitions' times and its aggregates', its counters.
class CaseGatherer {
 public:
  explicit CaseGatherer(ResultSet& out) : out_(out) {}

  void add_context(const core::ResultRecord& record) {
    for (const auto& [k, v] : record.context.items()) out_.context[k] = core::context_text(v);
  }

  // The case the record belongs to, with the record's status, time and counters gathered into it.
  CaseResult& add_case(const core::ResultRecord& record, const std::string& where) {
    // A case's lines come together: the last case found is looked up again by one comparison, not a map search.
    if (!last_case_ || last_name_ != record.name) {
      last_case_ = &out_.cases[record.name];
      last_name_ = record.name;
    }
    CaseResult& r = *last_case_;
    r.status = core::name_of(record.status);
    for (const auto& [from, into] : {std::pair{&record.applications, &r.applications}, {&record.models, &r.models}})
      if (*from) into->insert((*from)->begin(), (*from)->end());
    if (record.label) r.label = *record.label;
    if (record.reason) r.reason = *record.reason;
    if (record.verification) r.verification = *record.verification;
    if (record.timed()) {
      if (!record.time_us) throw Error(where + ": missing key 'time_us'");
      const double t = checked_time_us(*record.time_us, "time_us", where);
      if (record.kind == core::RecordKind::run) r.reps_us.push_back(t);
      else aggregates_[&r][record.aggregate] = t;
      if (record.counters) add_counters(record, r);
    }
    return r;
  }

  // Each timed case's time by `statistic`: over its repetitions, else its median or mean line (benchmark.json,
  // `median_for_min`: its median line for the minimum too).
  void finish(const std::string& path, Statistic statistic, bool median_for_min) {
    for (auto& [name, r] : out_.cases) {
      if (!r.timed()) continue;
      std::map<std::string, double>& aggregates = aggregates_[&r];
      const char* wanted = statistic == Statistic::mean ? "mean" : "median";
      if (!r.reps_us.empty()) r.time_us = statistic_of(r.reps_us, statistic);
      else if ((statistic != Statistic::min || median_for_min) && aggregates.count(wanted))
        r.time_us = aggregates[wanted];
      else throw Error(path + ": case " + name + " has no repetitions to take the " +
                       (statistic == Statistic::min && !median_for_min ? "min" : "statistic") + " of");
    }
  }

 private:
  // The counters of the median line; until one comes, the latest repetition's. The end-of-run re-time's line
  // ("recheck", appended later) adds its own (recheck_us, the remeasured repetitions) over them.
  void add_counters(const core::ResultRecord& record, CaseResult& r) {
    const bool recheck = record.aggregate == "recheck", median = record.aggregate == "median";
    if (!(median || recheck || (record.kind == core::RecordKind::run && !median_counters_.count(&r))))
      return;
    if (!recheck) r.counters.clear();
    for (const auto& [k, v] : *record.counters)
      if (std::isfinite(v)) r.counters[k] = v;  // a NaN counter: one the run could not compute
    if (median) median_counters_.insert(&r);
  }

  ResultSet& out_;
  CaseResult* last_case_ = nullptr;
  std::string last_name_;
  // By case (the cases' addresses in out_.cases, which stay put): a lookup on every line costs no name comparisons.
  std::unordered_map<const CaseResult*, std::map<std::string, double>> aggregates_;
  std::unordered_set<const CaseResult*> median_counters_;  // cases whose counters came from their median line
};

// One line of results.jsonl through the JSON library, every check made; nullopt for the last line cut off where a
// killed run stopped writing (not JSON, no newline after it): everything before it stands.
std::optional<core::ResultRecord> read_line_checked(std::string_view line, bool terminated, int number,
                                                    const std::string& where, const ReadLimits& limits,
                                                    ResultSet& out) {
  const BracketScan scan = scan_brackets(line, limits.max_depth);
  if (scan.too_deep_at != std::string_view::npos) throw Error(too_deep(where, limits));
  json j;
  try {
    j = json::parse(line);
  } catch (const json::parse_error& e) {
    if (!terminated) {
      out.torn_line = number;
      out.warnings.push_back(out.path + ": line " + std::to_string(number) +
                             " is incomplete: the run stopped there (its " + std::to_string(line.size()) +
                             " bytes are left out; everything before it is used)");
      return std::nullopt;
    }
    throw Error(where + ": not a JSON line (" + std::string(e.what()) + ")");
  } catch (const json::exception& e) {  // a number out of range (1e999)
    throw Error(where + ": not a JSON line (" + std::string(e.what()) + ")");
  }
  require_unique_keys(line, scan, j, where);
  return core::from_json(j, where);
}

// opmark-bench's log: a context line, then per case its repetitions ("run") and aggregates, a summary line. Case
// lines go through CaseLineReader first, which takes the well-formed ones only.
void parse_jsonl(std::string_view text, const std::string& path, Statistic statistic, const ReadLimits& limits,
                 const LineVisitor& visit, Lines lines, ResultSet& out) {
  CaseGatherer gather(out);
  CaseLineReader fast;
  const bool use_fast = limits.max_depth >= 2;  // a case line nests two deep (its counters, its lists)
  std::size_t pos = 0;
  std::string where;  // "path:line", for messages: one buffer, not a new string a line
  for (int number = 1; pos < text.size(); ++number) {
    const std::size_t newline = text.find('\n', pos);
    const bool terminated = newline != std::string_view::npos;
    std::string_view line = text.substr(pos, (terminated ? newline : text.size()) - pos);
    pos = terminated ? newline + 1 : text.size();
    where.assign(path).append(":").append(std::to_string(number));
    if (line.size() > limits.max_line_bytes)
      throw Error(where + ": a line of " + std::to_string(line.size()) + " bytes, over the limit of " +
                  std::to_string(limits.max_line_bytes) + " (opmark-bench writes about 1 KB per line)");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::optional<core::ResultRecord> record;
    const bool padded = line.data() + line.size() + CaseLineReader::kPadding <= text.data() + text.size();
    if (use_fast) record = fast.read(line, padded);
    if (!record) record = read_line_checked(line, terminated, number, where, limits, out);
    if (!record) break;
    out.last_record_line = number;
    if (record->kind == core::RecordKind::summary) out.summaries.emplace_back(number, record->counts);
    if (record->kind == core::RecordKind::context) {
      if (++out.context_lines == 2) out.second_context_line = number;
      gather.add_context(*record);
    }
    if (!record->is_case()) continue;
    CaseResult& r = gather.add_case(*record, where);
    if (visit) visit(number, *record);
    if (lines == Lines::keep) r.lines.push_back(ResultLine{std::move(*record), number});
  }
  gather.finish(path, statistic, false);
}

// Google Benchmark's JSON, as records (benchmark_json.h).
void parse_benchmark_json(const json& root, const std::string& path, Statistic statistic, ResultSet& out) {
  const BenchmarkJsonRecords records = records_from_benchmark_json(root, path);
  CaseGatherer gather(out);
  gather.add_context(records.context);
  for (const auto& [where, record] : records.cases) gather.add_case(record, where);
  gather.finish(path, statistic, true);
}

}  // namespace

Statistic parse_statistic(const std::string& name) {
  if (name == "median") return Statistic::median;
  if (name == "mean") return Statistic::mean;
  if (name == "min") return Statistic::min;
  throw Error("--statistic: expected median, mean or min, got '" + name + "'");
}

ResultSet parse_results(const std::string& text, const std::string& path, Statistic statistic,
                        const ReadLimits& limits, const LineVisitor& visit, Lines lines) {
  ResultSet out;
  out.path = path;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw Error(path + ": empty results file");
  if (text.size() > limits.max_bytes) throw Error(path + ": over the limit of " + std::to_string(limits.max_bytes) + " bytes");
  if (json_lines(text)) {
    parse_jsonl(text, path, statistic, limits, visit, lines, out);
    return out;
  }
  // One JSON document (benchmark.json) or one per line (results.jsonl). Nothing is parsed whole before its nesting
  // is known to be shallow: the JSON library would recurse into it and crash.
  const std::size_t deep = json_too_deep(text, limits.max_depth);
  if (deep != std::string::npos && !first_line_balanced(text))  // a document over several lines, too deep
    throw Error(too_deep(path + ":" + std::to_string(line_at(text, deep)), limits));
  json whole;
  bool single = false;
  if (deep == std::string::npos) {
    try {
      whole = json::parse(text);
      single = whole.is_object() && whole.contains("benchmarks");
    } catch (const json::out_of_range& e) {  // a number out of range (1e999): said by line where lines are JSON
      if (!first_line_balanced(text)) throw Error(path + ": not valid JSON (" + e.what() + ")");
    } catch (const json::parse_error&) {
      // Google Benchmark writes a counter's undefined statistic (the cv of a constant) as a bare NaN, which JSON
      // has no word for: read it as null.
      if (text[first] == '{' && text.find("\"benchmarks\"") != std::string::npos) {
        const std::string cleaned = nan_as_null(text);
        try {
          whole = json::parse(cleaned);
          single = whole.is_object() && whole.contains("benchmarks");
        } catch (const json::parse_error& e) {
          // A document over several lines (not one JSON value per line) that does not parse: say where.
          if (!first_line_balanced(text))
            throw Error(path + ":" + std::to_string(line_at(cleaned, e.byte)) + ": not valid JSON (" + e.what() + ")");
        } catch (const json::exception& e) {
          if (!first_line_balanced(text)) throw Error(path + ": not valid JSON (" + e.what() + ")");
        }
      }
    }
  }
  if (single) parse_benchmark_json(whole, path, statistic, out);
  else parse_jsonl(text, path, statistic, limits, visit, lines, out);
  return out;
}

void require_each_case_once(const ResultSet& results) {
  for (const auto& [name, r] : results.cases) {
    int first = 0;
    for (const auto& line : r.lines) {
      if (line.aggregate != "median") continue;
      if (first)
        throw Error(results.path + ":" + std::to_string(line.number) + ": " + name + " has a second median line (the "
                    "first at line " + std::to_string(first) + "): a case measured twice in one run has no one time");
      first = line.number;
    }
  }
}

void require_one_run(const ResultSet& results) {
  if (results.second_context_line > 0)
    throw Error(results.path + ":" + std::to_string(results.second_context_line) +
                ": a second run's context line: this file holds " + std::to_string(results.context_lines) +
                " runs (logs joined into one?); give each run's results.jsonl on its own");
}

std::string read_results_text(const std::string& path, const ReadLimits& limits) {
  return read_input_file(path, "results file", true, Links::follow, limits);
}

ResultSet load_results(const std::string& path, Statistic statistic, const ReadLimits& limits) {
  return parse_results(read_results_text(path, limits), path, statistic, limits);
}

std::string results_log_of(const std::string& path) {
  if (!fs::is_directory(path)) return path;
  for (const char* rel : {"results.jsonl", "results.jsonl.gz", "run/results.jsonl", "run/results.jsonl.gz"}) {
    const fs::path p = fs::path(path) / rel;
    if (fs::is_regular_file(p)) return p.string();
  }
  throw Error(path + ": a folder with no results log (looked for results.jsonl(.gz) and run/results.jsonl(.gz))");
}

}  // namespace opmark::aggregate
