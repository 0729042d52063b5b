#include "aggregate/benchmark_json.h"

#include "aggregate/results.h"
#include "core/error.h"
#include "core/json_fields.h"

namespace opmark::aggregate {
namespace {

using nlohmann::json;
using core::field_error;
using core::json_kind;
using core::optional_text;

bool flag_of(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return false;
  const json& v = j.at(key);
  if (!v.is_boolean()) field_error(where, key, "true or false", json_kind(v));
  return v.get<bool>();
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

// Google Benchmark appends the timing mode to a manually timed case's name; opmark's case name has none.
std::string case_name(std::string name) {
  const std::string manual = "/manual_time";
  if (name.size() > manual.size() && name.compare(name.size() - manual.size(), manual.size(), manual) == 0)
    name.resize(name.size() - manual.size());
  return name;
}

}  // namespace

BenchmarkJsonRecords records_from_benchmark_json(const json& root, const std::string& path) {
  BenchmarkJsonRecords out;
  out.context.kind = core::RecordKind::context;
  if (root.contains("context")) {
    const json& context = root["context"];
    if (!context.is_object()) field_error(path, "context", "an object", json_kind(context));
    for (const auto& [k, v] : context.items())
      if (k.rfind("opmark_", 0) == 0) out.context.context[k.substr(7)] = v;
  }
  const json& benchmarks = core::need(root, "benchmarks", path);
  if (!benchmarks.is_array()) field_error(path, "benchmarks", "a list", json_kind(benchmarks));
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const json& b = benchmarks[i];
    const std::string where = path + ": benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) throw Error(where + ": expected an object, got " + json_kind(b));
    core::ResultRecord r;
    r.name = case_name(b.contains("run_name") ? core::text_of(b, "run_name", where) : core::text_of(b, "name", where));
    const std::string run_type = optional_text(b, "run_type", where, "iteration");
    const std::string aggregate = optional_text(b, "aggregate_name", where);
    // Aggregates other than the median and mean (stddev, cv: 0, or NaN) are no times: not read.
    if (run_type == "aggregate" && aggregate != "median" && aggregate != "mean") continue;
    r.kind = run_type == "aggregate" ? core::RecordKind::aggregate : core::RecordKind::run;
    r.aggregate = r.kind == core::RecordKind::aggregate ? aggregate : "";
    if (flag_of(b, "error_occurred", where) || flag_of(b, "skipped", where)) {
      // opmark's harness reports a skipped case through Google Benchmark's error or skip with "SKIPPED " first.
      const std::string message = optional_text(b, "error_message", where, optional_text(b, "skip_message", where));
      r.status = message.rfind("SKIPPED", 0) == 0 ? core::CaseStatus::skipped : core::CaseStatus::failed;
      r.reason = message;
    } else {
      if (b.contains("label")) r.label = core::text_of(b, "label", where);
      const double scale = unit_scale(b, where);
      r.time_us =
          checked_time_us(core::number_value(core::need(b, "real_time", where), "real_time", where) * scale,
                          "real_time", where);
    }
    out.cases.emplace_back(where, std::move(r));
  }
  return out;
}

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

}  // namespace opmark::aggregate
