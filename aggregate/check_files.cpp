// The checker's file checks: a bundle holds exactly the files a submission writes, and its files agree with each
// other (benchmark.json's context, medians and counters are results.jsonl's; bench.log's closing count is the
// summary's). A file nobody reads could say anything.
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "aggregate/benchmark_json.h"
#include "aggregate/check_problems.h"
#include "aggregate/files.h"
#include "core/error.h"
#include "core/result_record.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace opmark::aggregate::check_detail {

namespace {

const char* kWrites = "a bundle holds only what opmark-submit writes (results/README.md lists the files): remove it";

}  // namespace

void check_known_files(const std::string& dir, Problems& p) {
  const fs::path root = dir;
  std::error_code ec;
  const auto list = [&](const fs::path& folder) {
    std::vector<std::string> names;
    for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::set<std::string> at_root = {bundle_path::system, bundle_path::scores, "run", bundle_path::spreadsheet};
  for (const auto& name : list(root))
    if (!at_root.count(name)) p.add("unknown files", name + " in " + dir + " is no file of a bundle", kWrites);
  // run/: each raw file once, plain or compressed, never both (a plain one beside the .gz would be read instead).
  const std::set<std::string> in_run = {"results.jsonl", "benchmark.json", "bench.log"};
  std::set<std::string> seen;
  if (fs::is_directory(fs::symlink_status(root / "run", ec)))
    for (const auto& name : list(root / "run")) {
      const bool gz = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
      const std::string base = gz ? name.substr(0, name.size() - 3) : name;
      if (!in_run.count(base))
        p.add("unknown files", "run/" + name + " in " + dir + " is no file of a bundle", kWrites);
      else if (!seen.insert(base).second)
        p.add("unknown files", "run/" + base + " and run/" + base + ".gz are both in " + dir +
                                   ": a bundle holds each raw file once",
              "keep the run's own file (opmark-submit compresses it) and remove the other");
    }
}

namespace {

// Google Benchmark's own fields of an entry; every other number is one of opmark's counters. ("repetitions" is
// both: Google Benchmark's count, and the counter opmark's harness sets to the same count where it repeats.)
const std::set<std::string>& benchmark_fields() {
  static const std::set<std::string> fields = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit", "aggregate_name",
      "aggregate_unit", "label", "error_occurred", "error_message", "skipped", "skip_message"};
  return fields;
}

// Two context values alike: the same text, or numbers within a part in a million (benchmark.json writes them as
// text rounded to 6 decimals, results.jsonl as JSON numbers).
bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *ea = nullptr, *eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  return !a.empty() && !b.empty() && *ea == '\0' && *eb == '\0' && std::isfinite(x) && std::isfinite(y) &&
         std::abs(x - y) <= 1e-6 * std::max({1.0, std::abs(x), std::abs(y)});
}

bool same_number(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max({1e-12, std::abs(a), std::abs(b)}); }

}  // namespace

void check_benchmark_json(const std::string& dir, const ResultSet& results, Problems& p) {
  const std::string rel = raw_file_rel(dir, bundle_path::benchmark_json);
  const std::string path = (fs::path(dir) / rel).string();
  const std::string keep = "keep both raw files of the same run, unedited";
  json doc;
  BenchmarkJsonRecords records;
  try {
    doc = parse_json_document(nan_as_null(bundle_file_text(dir, rel, "Google Benchmark's JSON", true,
                                                           bundle_results_limits())),
                              path);
    records = records_from_benchmark_json(doc, path);
  } catch (const Error& e) {
    p.add("benchmark.json", e.what(), "keep the run's own benchmark.json in the bundle");
    return;
  }
  // The context: opmark's keys in both, alike.
  std::map<std::string, std::string> theirs;
  for (const auto& [key, value] : records.context.context.items()) theirs[key] = core::context_text(value);
  for (const auto& [key, value] : results.context) {
    const auto it = theirs.find(key);
    if (it == theirs.end())
      p.add("raw files disagree", rel + "'s context has no opmark_" + key + " (" + bundle_path::results + " says '" +
                                      value + "')", keep);
    else if (!same_value(it->second, value))
      p.add("raw files disagree", rel + "'s context says opmark_" + key + " '" + it->second + "', " +
                                      bundle_path::results + " line 1 says '" + value + "'", keep);
  }
  for (const auto& [key, value] : theirs)
    if (!results.context.count(key))
      p.add("raw files disagree", rel + "'s context has opmark_" + key + " '" + value + "', which " +
                                      bundle_path::results + "'s context lacks", keep);
  // Per case: the median entry's time and counters are the median line's. A case whose repetitions opmark's harness
  // took itself has one entry (its median); one Google Benchmark repeated has a "median" aggregate.
  struct Entry {
    double time_us = 0;
    std::map<std::string, double> counters;
    int runs = 0;
    bool aggregate = false;
  };
  std::map<std::string, Entry> medians;
  for (const auto& [where, record] : records.cases) {
    if (!record.time_us || (record.kind == core::RecordKind::aggregate && record.aggregate != "median")) continue;
    Entry& e = medians[record.name];
    if (e.aggregate) continue;
    const bool aggregate = record.kind == core::RecordKind::aggregate;
    e.runs += !aggregate;
    if (!aggregate && e.runs > 1) continue;  // several repetitions and no median: the first stands, compared below
    const std::size_t open = where.rfind('[');
    const std::size_t index = std::strtoul(where.c_str() + open + 1, nullptr, 10);
    e.counters.clear();
    for (const auto& [key, value] : doc["benchmarks"][index].items())
      if (!benchmark_fields().count(key) && value.is_number()) e.counters[key] = value.get<double>();
    e.time_us = *record.time_us;
    e.aggregate = aggregate;
  }
  for (auto it = medians.begin(); it != medians.end();)
    it = !it->second.aggregate && it->second.runs > 1 ? medians.erase(it) : std::next(it);  // no one median entry
  for (const auto& [name, r] : results.cases) {
    if (!r.timed()) continue;
    const ResultLine* median = nullptr;
    for (const auto& l : r.lines)
      if (l.aggregate == "median") median = &l;
    const auto it = medians.find(name);
    if (it == medians.end()) {
      p.add("raw files disagree", rel + " has no median of the measured " + name, keep);
      continue;
    }
    if (!same_number(it->second.time_us, r.time_us))
      p.add("raw files disagree", name + ": median " + us(r.time_us) + " in " + bundle_path::results + " but " +
                                      us(it->second.time_us) + " in " + rel, keep);
    if (!median) continue;
    const std::map<std::string, double> ours = median->finite_counters();
    const std::map<std::string, double>& other = it->second.counters;
    for (const auto& [key, value] : ours) {
      const auto o = other.find(key);
      if (o == other.end() || !same_number(o->second, value)) {
        p.add("raw files disagree", name + ": counter " + key + " is " + number(value) + " on the median line (" +
                                        bundle_path::results + " line " + std::to_string(median->number) + ") but " +
                                        (o == other.end() ? std::string("missing") : number(o->second)) + " in " + rel,
              keep);
        break;
      }
    }
    for (const auto& [key, value] : other)
      if (!ours.count(key) && key != "repetitions") {
        p.add("raw files disagree", name + ": counter " + key + " is " + number(value) + " in " + rel +
                                        " but missing from the median line (" + bundle_path::results + " line " +
                                        std::to_string(median->number) + ")", keep);
        break;
      }
  }
}

void check_bench_log(const std::string& dir, const ResultSet& results, Problems& p) {
  const std::string rel = raw_file_rel(dir, "run/bench.log");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(fs::path(dir) / rel, ec))) return;  // optional: the run's terminal output
  std::string text;
  try {
    text = bundle_file_text(dir, rel, "the run's output", true, small_file_limits());
  } catch (const Error& e) {
    p.add("bench.log", e.what(), "keep the run's own output (opmark-submit writes it), or leave it out");
    return;
  }
  // Its closing count ("opmark: 4 ok, 0 skipped, 0 failed[, 0 unstable]") is the summary line's.
  std::istringstream in(text);
  std::string line, closing;
  while (std::getline(in, line))
    if (line.rfind("opmark: ", 0) == 0 && line.find(" ok, ") != std::string::npos) closing = line;
  if (closing.empty() || results.summaries.empty()) return;
  for (const char* status : {"ok", "skipped", "failed", "unstable"}) {
    const std::string word = std::string(" ") + status;
    const std::size_t at = closing.find(word);
    if (at == std::string::npos) continue;
    std::size_t start = closing.rfind(' ', at - 1);
    const long long said = std::strtoll(closing.c_str() + (start == std::string::npos ? 0 : start + 1), nullptr, 10);
    const auto& counts = results.summaries.back().second;
    const long long summary = counts.count(status) ? counts.at(status) : 0;
    if (said != summary) {
      p.add("raw files disagree", rel + " says '" + closing + "', the summary line of " + bundle_path::results +
                                      " counts " + std::to_string(summary) + " " + status,
            "keep the run's own output and results log, unedited");
      return;
    }
  }
}

}  // namespace opmark::aggregate::check_detail
