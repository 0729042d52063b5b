#include "core/result_record.h"

#include <array>
#include <chrono>
#include <ctime>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.h"
#include "core/json_fields.h"

namespace opmark::core {

using nlohmann::json;

const char* name_of(RecordKind kind) {
  switch (kind) {
    case RecordKind::context: return "context";
    case RecordKind::run: return "run";
    case RecordKind::aggregate: return "aggregate";
    case RecordKind::summary: return "summary";
    case RecordKind::other: return "other";
  }
  return "other";
}

const char* name_of(CaseStatus status) {
  switch (status) {
    case CaseStatus::ok: return "ok";
    case CaseStatus::skipped: return "skipped";
    case CaseStatus::failed: return "failed";
    case CaseStatus::unstable: return "unstable";
  }
  return "?";
}

std::optional<CaseStatus> parse_case_status(const std::string& name) {
  for (CaseStatus s : {CaseStatus::ok, CaseStatus::skipped, CaseStatus::failed, CaseStatus::unstable})
    if (name == name_of(s)) return s;
  return std::nullopt;
}

std::map<std::string, double> ResultRecord::finite_counters() const {
  std::map<std::string, double> finite;
  if (counters)
    for (const auto& [k, v] : *counters)
      if (std::isfinite(v)) finite[k] = v;
  return finite;
}

std::string context_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

namespace {

// The keys a case line (run, aggregate) has; anything else goes to `extra`. "aggregate" and "repetition" belong to
// one kind each: on the other they are unknown keys, kept as read.
const std::set<std::string> kCaseKeys = {"type", "name", "status", "family", "direction", "precision", "sets",
                                         "applications", "models", "iterations", "time_us", "counters", "reason",
                                         "verification", "label", "logged_at", "kernels", "regime"};

// A case line's optional text fields and lists of names, by key: read and written from one table.
template <class Record>
auto text_fields(Record& r) {
  return std::array{std::pair{"family", &r.family},       std::pair{"direction", &r.direction},
                    std::pair{"precision", &r.precision}, std::pair{"reason", &r.reason},
                    std::pair{"label", &r.label},         std::pair{"verification", &r.verification},
                    std::pair{"logged_at", &r.logged_at}, std::pair{"regime", &r.regime}};
}
template <class Record>
auto name_lists(Record& r) {
  return std::array{std::pair{"sets", &r.sets}, std::pair{"models", &r.models},
                    std::pair{"applications", &r.applications}, std::pair{"kernels", &r.kernels}};
}

std::optional<std::string> optional_field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return std::nullopt;
  return text_of(j, key, where);
}

// A list of names (sets, models, applications, kernels): an array of strings, where given.
std::optional<std::vector<std::string>> names_field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return std::nullopt;
  const json& v = j.at(key);
  if (!v.is_array()) field_error(where, key, "a list of names", json_kind(v));
  std::vector<std::string> names;
  for (const auto& item : v) {
    if (!item.is_string()) field_error(where, key, "a list of names", "a list holding " + json_kind(item));
    names.push_back(item.get<std::string>());
  }
  return names;
}

// A whole number from 0 below `limit`, or a field_error saying it expected `what`.
long long whole_field(const json& v, const char* key, const std::string& where, double limit, const char* what) {
  const double x = number_value(v, key, where);
  if (!(x >= 0 && x < limit && x == std::floor(x))) field_error(where, key, what, v.dump());
  return v.is_number_integer() ? v.get<long long>() : static_cast<long long>(x);
}

std::map<std::string, double> counters_field(const json& v, const std::string& where) {
  if (!v.is_object()) field_error(where, "counters", "an object", json_kind(v));
  std::map<std::string, double> counters;
  for (const auto& [k, value] : v.items()) {
    // The JSON library writes a NaN counter (a rate of nothing) as null: read back as NaN, it writes the same.
    if (value.is_null()) counters[k] = std::numeric_limits<double>::quiet_NaN();
    else if (value.is_number()) counters[k] = value.get<double>();
    else field_error(where, "counters", "numbers", json_kind(value) + " for '" + k + "'");
  }
  return counters;
}

void read_case(const json& j, const std::string& where, ResultRecord& r) {
  r.name = text_of(j, "name", where);
  if (r.name.empty()) field_error(where, "name", "a case name", "an empty string");
  const std::string status = text_of(j, "status", where);
  const auto parsed = parse_case_status(status);
  if (!parsed) field_error(where, "status", "ok, unstable, skipped or failed", "'" + status + "'");
  r.status = *parsed;
  for (const auto& [key, field] : text_fields(r)) *field = optional_field(j, key, where);
  for (const auto& [key, field] : name_lists(r)) *field = names_field(j, key, where);
  if (r.kind == RecordKind::aggregate) r.aggregate = text_of(j, "aggregate", where);
  if (r.kind == RecordKind::run && j.contains("repetition"))
    r.repetition = whole_field(j["repetition"], "repetition", where, 1e9, "a repetition number (0, 1, ...)");
  if (j.contains("iterations")) r.iterations = whole_field(j["iterations"], "iterations", where, 9e18, "a count");
  if (j.contains("time_us")) r.time_us = number_value(j["time_us"], "time_us", where);
  if (j.contains("counters")) r.counters = counters_field(j["counters"], where);
  const char* own = r.kind == RecordKind::aggregate ? "aggregate" : "repetition";
  for (const auto& [k, v] : j.items())
    if (!kCaseKeys.count(k) && k != own) r.extra[k] = v;
}

}  // namespace

ResultRecord from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw Error(where + ": expected a JSON object, got " + json_kind(j));
  ResultRecord r;
  const std::string type = text_of(j, "type", where);
  if (type == "context") {
    r.kind = RecordKind::context;
    const json& context = need(j, "context", where);
    if (!context.is_object()) field_error(where, "context", "an object", json_kind(context));
    r.context = context;
    for (const auto& [k, v] : j.items())
      if (k != "type" && k != "context") r.extra[k] = v;
  } else if (type == "run" || type == "aggregate") {
    r.kind = type == "run" ? RecordKind::run : RecordKind::aggregate;
    read_case(j, where, r);
  } else if (type == "summary") {
    // Not read for results (the cases' lines are): counts that are not whole numbers are kept as read.
    r.kind = RecordKind::summary;
    for (const auto& [k, v] : j.items()) {
      if (k == "type") continue;
      if (parse_case_status(k) && v.is_number_integer()) r.counts[k] = v.get<long long>();
      else r.extra[k] = v;
    }
  } else {
    r.kind = RecordKind::other;
    r.extra = j;
  }
  return r;
}

json to_json(const ResultRecord& r) {
  json j = r.extra;
  if (r.kind == RecordKind::other) return j;
  j["type"] = name_of(r.kind);
  switch (r.kind) {
    case RecordKind::context: j["context"] = r.context; return j;
    case RecordKind::summary:
      for (const auto& [status, n] : r.counts) j[status] = n;
      return j;
    default: break;
  }
  j["name"] = r.name;
  if (r.kind == RecordKind::aggregate) j["aggregate"] = r.aggregate;
  if (r.repetition) j["repetition"] = *r.repetition;
  j["status"] = name_of(r.status);
  for (const auto& [key, field] : text_fields(r))
    if (*field) j[key] = **field;
  for (const auto& [key, field] : name_lists(r))
    if (*field) j[key] = **field;
  if (r.iterations) j["iterations"] = *r.iterations;
  if (r.time_us) j["time_us"] = *r.time_us;
  if (r.counters) j["counters"] = *r.counters;
  return j;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace opmark::core
