#include "aggregate/results.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#ifdef OPMARK_HAVE_ZLIB
#include <zlib.h>
#endif

#include "core/error.h"

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
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {

// Whether a line's status carries a time (ok, or unstable: measured, but two measurements disagreed).
bool timed_status(const std::string& status) { return status == "ok" || status == "unstable"; }

const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw Error(where + ": missing key '" + key + "'");
  return j.at(key);
}

// opmark-bench's log: a context line, then per case its repetitions ("run") and aggregates, a summary line.
void parse_jsonl(const std::string& text, const std::string& path, Statistic statistic, ResultSet& out) {
  std::istringstream in(text);
  std::string line;
  std::map<std::string, std::map<std::string, double>> aggregates;
  std::set<std::string> median_counters;  // cases whose counters came from their median line
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw Error(where + ": not a JSON line (" + std::string(e.what()) + ")");
    }
    const std::string type = need(j, "type", where).get<std::string>();
    if (type == "context") {
      for (const auto& [k, v] : need(j, "context", where).items()) out.context[k] = v.is_string() ? v.get<std::string>() : v.dump();
      continue;
    }
    if (type != "run" && type != "aggregate") continue;
    const std::string name = need(j, "name", where).get<std::string>();
    CaseResult& r = out.cases[name];
    r.status = need(j, "status", where).get<std::string>();
    if (j.contains("label")) r.label = j["label"].get<std::string>();
    if (j.contains("reason")) r.reason = j["reason"].get<std::string>();
    if (j.contains("verification")) r.verification = j["verification"].get<std::string>();
    if (!timed_status(r.status)) continue;
    const double t = need(j, "time_us", where).get<double>();
    const std::string aggregate = type == "run" ? "" : need(j, "aggregate", where).get<std::string>();
    if (type == "run") r.reps_us.push_back(t);
    else aggregates[name][aggregate] = t;
    // The counters of the median line; until one comes, the latest repetition's. The end-of-run re-time's line
    // ("recheck", appended later) adds its own (recheck_us, the remeasured repetitions) over them.
    const bool recheck = aggregate == "recheck";
    if (j.contains("counters") &&
        (aggregate == "median" || recheck || (type == "run" && !median_counters.count(name)))) {
      const json& counters = j["counters"];
      if (!counters.is_object()) throw Error(where + ": 'counters' is not an object");
      if (!recheck) r.counters.clear();
      for (const auto& [k, v] : counters.items())
        if (v.is_number()) r.counters[k] = v.get<double>();
      if (aggregate == "median") median_counters.insert(name);
    }
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

// Google Benchmark's JSON: "context" and "benchmarks" (iterations with run_name, or aggregates).
void parse_benchmark_json(const json& root, const std::string& path, Statistic statistic, ResultSet& out) {
  if (root.contains("context"))
    for (const auto& [k, v] : root["context"].items())
      if (k.rfind("opmark_", 0) == 0) out.context[k.substr(7)] = v.is_string() ? v.get<std::string>() : v.dump();
  const json& benchmarks = need(root, "benchmarks", path);
  std::map<std::string, std::map<std::string, double>> aggregates;
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const json& b = benchmarks[i];
    const std::string where = path + ": benchmarks[" + std::to_string(i) + "]";
    std::string name = b.contains("run_name") ? b["run_name"].get<std::string>()
                                              : need(b, "name", where).get<std::string>();
    // Google Benchmark appends the timing mode to a manually timed case's name; opmark's case name has none.
    const std::string manual = "/manual_time";
    if (name.size() > manual.size() && name.compare(name.size() - manual.size(), manual.size(), manual) == 0)
      name.resize(name.size() - manual.size());
    CaseResult& r = out.cases[name];
    if (b.value("error_occurred", false) || b.value("skipped", false)) {
      const std::string message = b.value("error_message", b.value("skip_message", std::string()));
      r.status = message.rfind("SKIPPED", 0) == 0 ? "skipped" : "failed";
      r.reason = message;
      continue;
    }
    if (b.contains("label")) r.label = b["label"].get<std::string>();
    const std::string unit = b.value("time_unit", std::string("us"));
    const double scale = unit == "ns" ? 1e-3 : unit == "ms" ? 1e3 : unit == "s" ? 1e6 : 1.0;
    const double t = need(b, "real_time", where).get<double>() * scale;
    if (b.value("run_type", std::string("iteration")) == "aggregate")
      aggregates[name][b.value("aggregate_name", std::string())] = t;
    else
      r.reps_us.push_back(t);
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

ResultSet parse_results(const std::string& text, const std::string& path, Statistic statistic) {
  ResultSet out;
  out.path = path;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw Error(path + ": empty results file");
  // One JSON document (benchmark.json) or one per line (results.jsonl).
  json whole;
  bool single = false;
  try {
    whole = json::parse(text);
    single = whole.is_object() && whole.contains("benchmarks");
  } catch (const json::parse_error&) {
    // Google Benchmark writes a counter's undefined statistic (the cv of a constant) as a bare NaN, which JSON
    // has no word for: read it as null.
    if (text[first] == '{' && text.find("\"benchmarks\"") != std::string::npos) {
      whole = json::parse(nan_as_null(text));
      single = whole.is_object() && whole.contains("benchmarks");
    }
  }
  if (single) parse_benchmark_json(whole, path, statistic, out);
  else parse_jsonl(text, path, statistic, out);
  return out;
}

std::string read_results_text(const std::string& path) {
#ifdef OPMARK_HAVE_ZLIB
  // zlib reads a plain file as it is and inflates a compressed one.
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) throw Error(path + ": cannot open results file");
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  const bool failed = n < 0;
  gzclose(gz);
  if (failed) throw Error(path + ": not a readable gzip file");
  return out;
#else
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open results file");
  std::stringstream raw;
  raw << in.rdbuf();
  const std::string text = raw.str();
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
    throw Error(path + ": gzip-compressed, and this build has no zlib (install zlib1g-dev and re-run cmake, or gunzip it)");
  return text;
#endif
}

ResultSet load_results(const std::string& path, Statistic statistic) {
  return parse_results(read_results_text(path), path, statistic);
}

}  // namespace opmark::aggregate
