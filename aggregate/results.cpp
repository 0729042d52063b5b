#include "aggregate/results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/stats.h"

namespace opmark::aggregate {
namespace {

using nlohmann::json;

}  // namespace

double CaseResult::counter(const std::string& key, double otherwise) const {
  auto it = counters.find(key);
  return it == counters.end() ? otherwise : it->second;
}

double default_time_us(const CaseResult& r) {
  for (const char* key : {"default_us", "heuristic_us", "standard_algo_us"})
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

namespace {

bool known_status(const std::string& status) {
  return status == "ok" || status == "unstable" || status == "skipped" || status == "failed";
}

// Field readers: every error names the place (file:line, or file: benchmarks[i]), the field and what was expected.
[[noreturn]] void field_error(const std::string& where, const std::string& key, const std::string& expected,
                              const std::string& got) {
  throw Error(where + ": field '" + key + "': expected " + expected + ", got " + got);
}

const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw Error(where + ": missing key '" + key + "'");
  return j.at(key);
}

std::string text_of(const json& j, const char* key, const std::string& where) {
  const json& v = need(j, key, where);
  if (!v.is_string()) field_error(where, key, "a string", json_kind(v));
  return v.get<std::string>();
}

// A text field that may be absent (then `otherwise`).
std::string optional_text(const json& j, const char* key, const std::string& where, const std::string& otherwise = "") {
  return j.contains(key) ? text_of(j, key, where) : otherwise;
}

double number_of(const json& v, const char* key, const std::string& where) {
  if (!v.is_number()) field_error(where, key, "a number", json_kind(v));
  return v.get<double>();
}

bool flag_of(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return false;
  const json& v = j.at(key);
  if (!v.is_boolean()) field_error(where, key, "true or false", json_kind(v));
  return v.get<bool>();
}

// A time in us (after `scale` from the file's unit): a finite number in [kMinTimeUs, kMaxTimeUs].
double time_of(const json& j, const char* key, const std::string& where, double scale = 1.0) {
  const double t = number_of(need(j, key, where), key, where) * scale;
  if (!(t >= kMinTimeUs && t <= kMaxTimeUs)) {
    char text[96];
    std::snprintf(text, sizeof text, "%g us", t);
    field_error(where, key, "a time of one operation from 0.001 us (1 ns) to 3.6e9 us (an hour)", text);
  }
  return t;
}

// A list of names (sets, models, applications): an array of strings, where given.
void check_names(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return;
  const json& v = j.at(key);
  if (!v.is_array()) field_error(where, key, "a list of names", json_kind(v));
  for (const auto& item : v)
    if (!item.is_string()) field_error(where, key, "a list of names", "a list holding " + json_kind(item));
}

// The first non-blank line of `text` closes every bracket it opens: one JSON value per line (results.jsonl).
bool first_line_balanced(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return true;
  const std::size_t end = text.find('\n', begin);
  const std::string_view line = text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
  return scan_brackets(line, std::numeric_limits<int>::max()).depth == 0;
}

std::string too_deep(const std::string& where, const ReadLimits& limits) {
  return where + ": JSON nested deeper than " + std::to_string(limits.max_depth) +
         " levels (opmark writes 3): not read";
}

// opmark-bench's log: a context line, then per case its repetitions ("run") and aggregates, a summary line.
void parse_jsonl(std::string_view text, const std::string& path, Statistic statistic, const ReadLimits& limits,
                 const LineVisitor& visit, ResultSet& out) {
  std::map<std::string, std::map<std::string, double>> aggregates;
  std::set<std::string> median_counters;  // cases whose counters came from their median line
  std::size_t pos = 0;
  for (int number = 1; pos < text.size(); ++number) {
    const std::size_t newline = text.find('\n', pos);
    const bool terminated = newline != std::string_view::npos;
    std::string_view line = text.substr(pos, (terminated ? newline : text.size()) - pos);
    pos = terminated ? newline + 1 : text.size();
    const std::string where = path + ":" + std::to_string(number);
    if (line.size() > limits.max_line_bytes)
      throw Error(where + ": a line of " + std::to_string(line.size()) + " bytes, over the limit of " +
                  std::to_string(limits.max_line_bytes) + " (opmark-bench writes about 1 KB per line)");
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (json_too_deep(line, limits.max_depth) != std::string_view::npos) throw Error(too_deep(where, limits));
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      // The last line without its newline: where a killed run stopped writing. Everything before it stands.
      if (!terminated) {
        out.torn_line = number;
        out.warnings.push_back(path + ": line " + std::to_string(number) + " is incomplete: the run stopped there (its " +
                               std::to_string(line.size()) + " bytes are left out; everything before it is used)");
        break;
      }
      throw Error(where + ": not a JSON line (" + std::string(e.what()) + ")");
    } catch (const json::exception& e) {  // a number out of range (1e999)
      throw Error(where + ": not a JSON line (" + std::string(e.what()) + ")");
    }
    if (!j.is_object()) throw Error(where + ": expected a JSON object, got " + json_kind(j));
    const std::string type = text_of(j, "type", where);
    if (type == "context") {
      const json& context = need(j, "context", where);
      if (!context.is_object()) field_error(where, "context", "an object", json_kind(context));
      ++out.context_lines;
      for (const auto& [k, v] : context.items()) out.context[k] = v.is_string() ? v.get<std::string>() : v.dump();
      continue;
    }
    if (type != "run" && type != "aggregate") continue;
    ResultLine record;
    record.number = number;
    record.type = type;
    const std::string name = text_of(j, "name", where);
    if (name.empty()) field_error(where, "name", "a case name", "an empty string");
    record.status = text_of(j, "status", where);
    if (!known_status(record.status))
      field_error(where, "status", "ok, unstable, skipped or failed", "'" + record.status + "'");
    for (const char* key : {"family", "direction", "precision", "reason"}) optional_text(j, key, where);
    for (const char* key : {"sets", "models", "applications"}) check_names(j, key, where);
    CaseResult& r = out.cases[name];
    r.status = record.status;
    for (const auto& [key, into] : {std::pair<const char*, std::set<std::string>*>{"applications", &r.applications},
                                    {"models", &r.models}})
      if (j.contains(key))
        for (const auto& item : j[key]) into->insert(item.get<std::string>());
    if (j.contains("label")) r.label = text_of(j, "label", where);
    if (j.contains("reason")) r.reason = text_of(j, "reason", where);
    if (j.contains("verification")) r.verification = record.verification = text_of(j, "verification", where);
    if (type == "aggregate") record.aggregate = text_of(j, "aggregate", where);
    if (type == "run" && j.contains("repetition")) {
      const double rep = number_of(j["repetition"], "repetition", where);
      if (!(rep >= 0 && rep < 1e9 && rep == static_cast<double>(static_cast<long long>(rep))))
        field_error(where, "repetition", "a repetition number (0, 1, ...)", j["repetition"].dump());
      record.repetition = static_cast<long long>(rep);
    }
    if (j.contains("iterations")) {
      record.iterations = number_of(j["iterations"], "iterations", where);
      if (!(record.iterations >= 0)) field_error(where, "iterations", "a count", j["iterations"].dump());
    }
    if (!record.timed()) {
      r.lines.push_back(std::move(record));
      if (visit) visit(number, j);
      continue;
    }
    const double t = record.time_us = time_of(j, "time_us", where);
    const std::string& aggregate = record.aggregate;
    if (type == "run") r.reps_us.push_back(t);
    else aggregates[name][aggregate] = t;
    if (j.contains("counters")) {
      const json& counters = j["counters"];
      if (!counters.is_object()) field_error(where, "counters", "an object", json_kind(counters));
      for (const auto& [k, v] : counters.items())
        if (v.is_number() && std::isfinite(v.get<double>())) record.counters[k] = v.get<double>();
      // The counters of the median line; until one comes, the latest repetition's. The end-of-run re-time's line
      // ("recheck", appended later) adds its own (recheck_us, the remeasured repetitions) over them.
      const bool recheck = aggregate == "recheck";
      if (aggregate == "median" || recheck || (type == "run" && !median_counters.count(name))) {
        if (!recheck) r.counters.clear();
        for (const auto& [k, v] : record.counters) r.counters[k] = v;
        if (aggregate == "median") median_counters.insert(name);
      }
    }
    r.lines.push_back(std::move(record));
    if (visit) visit(number, j);
  }
  for (auto& [name, r] : out.cases) {
    if (!r.timed()) continue;
    if (!r.reps_us.empty()) r.time_us = statistic_of(r.reps_us, statistic);
    else if (statistic == Statistic::median && aggregates[name].count("median")) r.time_us = aggregates[name]["median"];
    else if (statistic == Statistic::mean && aggregates[name].count("mean")) r.time_us = aggregates[name]["mean"];
    else throw Error(path + ": case " + name + " has no repetitions to take the " +
                     (statistic == Statistic::min ? "min" : "statistic") + " of");
  }
}

// Google Benchmark's time units, as the us they are.
double unit_scale(const json& b, const std::string& where) {
  const std::string unit = optional_text(b, "time_unit", where, "us");
  if (unit == "ns") return 1e-3;
  if (unit == "us") return 1.0;
  if (unit == "ms") return 1e3;
  if (unit == "s") return 1e6;
  field_error(where, "time_unit", "ns, us, ms or s", "'" + unit + "'");
}

// Google Benchmark's JSON: "context" and "benchmarks" (iterations with run_name, or aggregates).
void parse_benchmark_json(const json& root, const std::string& path, Statistic statistic, ResultSet& out) {
  if (root.contains("context")) {
    const json& context = root["context"];
    if (!context.is_object()) field_error(path, "context", "an object", json_kind(context));
    for (const auto& [k, v] : context.items())
      if (k.rfind("opmark_", 0) == 0) out.context[k.substr(7)] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  const json& benchmarks = need(root, "benchmarks", path);
  if (!benchmarks.is_array()) field_error(path, "benchmarks", "a list", json_kind(benchmarks));
  std::map<std::string, std::map<std::string, double>> aggregates;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const json& b = benchmarks[i];
    const std::string where = path + ": benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) throw Error(where + ": expected an object, got " + json_kind(b));
    std::string name = b.contains("run_name") ? text_of(b, "run_name", where) : text_of(b, "name", where);
    // Google Benchmark appends the timing mode to a manually timed case's name; opmark's case name has none.
    const std::string manual = "/manual_time";
    if (name.size() > manual.size() && name.compare(name.size() - manual.size(), manual.size(), manual) == 0)
      name.resize(name.size() - manual.size());
    const std::string run_type = optional_text(b, "run_type", where, "iteration");
    const std::string aggregate = optional_text(b, "aggregate_name", where);
    // Aggregates other than the median and mean (stddev, cv: 0, or NaN) are no times: not read.
    if (run_type == "aggregate" && aggregate != "median" && aggregate != "mean") continue;
    CaseResult& r = out.cases[name];
    if (flag_of(b, "error_occurred", where) || flag_of(b, "skipped", where)) {
      const std::string message = optional_text(b, "error_message", where, optional_text(b, "skip_message", where));
      r.status = message.rfind("SKIPPED", 0) == 0 ? "skipped" : "failed";
      r.reason = message;
      continue;
    }
    if (b.contains("label")) r.label = text_of(b, "label", where);
    const double t = time_of(b, "real_time", where, unit_scale(b, where));
    if (run_type == "aggregate") aggregates[name][aggregate] = t;
    else r.reps_us.push_back(t);
  }
  for (auto& [name, r] : out.cases) {
    if (r.status != "ok") continue;
    if (!r.reps_us.empty()) r.time_us = statistic_of(r.reps_us, statistic);
    else if (aggregates[name].count(statistic == Statistic::mean ? "mean" : "median"))
      r.time_us = aggregates[name][statistic == Statistic::mean ? "mean" : "median"];
    else throw Error(path + ": case " + name + " has no repetitions to take the statistic of");
  }
}

// Replaces the bare tokens NaN, -NaN, Infinity, -Infinity, inf, -inf outside strings with null.
std::string nan_as_null(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    if (c != '-' && c != 'N' && c != 'n' && c != 'I' && c != 'i') {  // no word starts otherwise: skip the search
      out += c;
      continue;
    }
    for (const char* word : {"-NaN", "NaN", "-nan", "nan", "-Infinity", "Infinity", "-inf", "inf"}) {
      const std::size_t n = std::char_traits<char>::length(word);
      if (text.compare(i, n, word) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

Statistic parse_statistic(const std::string& name) {
  if (name == "median") return Statistic::median;
  if (name == "mean") return Statistic::mean;
  if (name == "min") return Statistic::min;
  throw Error("--statistic: expected median, mean or min, got '" + name + "'");
}

ResultSet parse_results(const std::string& text, const std::string& path, Statistic statistic,
                        const ReadLimits& limits, const LineVisitor& visit) {
  ResultSet out;
  out.path = path;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw Error(path + ": empty results file");
  if (text.size() > limits.max_bytes) throw Error(path + ": over the limit of " + std::to_string(limits.max_bytes) + " bytes");
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
  else parse_jsonl(text, path, statistic, limits, visit, out);
  return out;
}

std::string read_results_text(const std::string& path, const ReadLimits& limits) {
  return read_input_file(path, "results file", true, Links::follow, limits);
}

ResultSet load_results(const std::string& path, Statistic statistic, const ReadLimits& limits) {
  return parse_results(read_results_text(path, limits), path, statistic, limits);
}

}  // namespace opmark::aggregate
