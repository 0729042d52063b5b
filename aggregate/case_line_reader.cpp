#include "aggregate/case_line_reader.h"

#include <cmath>
#include <cstdint>
#include <limits>

#ifdef OPMARK_HAVE_SIMDJSON
#include <simdjson.h>
#endif

namespace opmark::aggregate {

#ifdef OPMARK_HAVE_SIMDJSON

struct CaseLineReader::Parser {
  simdjson::dom::parser dom;
};

const std::size_t CaseLineReader::kPadding = simdjson::SIMDJSON_PADDING;

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Each reader below is false where core::from_json would not take the value as it is (it throws there).
bool read_text(element v, std::string& out) {
  std::string_view s;
  if (v.get_string().get(s)) return false;
  out.assign(s.data(), s.size());
  return true;
}

bool read_text(element v, std::optional<std::string>& out) { return read_text(v, out.emplace()); }

bool read_names(element v, std::optional<std::vector<std::string>>& out) {
  simdjson::dom::array list;
  if (v.get_array().get(list)) return false;
  auto& names = out.emplace();
  names.reserve(list.size());
  for (element item : list)
    if (!read_text(item, names.emplace_back())) return false;
  return true;
}

// JSON's numbers as the JSON library gives them as double (core::number_value).
bool read_number(element v, double& out) {
  switch (v.type()) {
    case element_type::INT64: out = static_cast<double>(v.get_int64().value_unsafe()); return true;
    case element_type::UINT64: out = static_cast<double>(v.get_uint64().value_unsafe()); return true;
    case element_type::DOUBLE: out = v.get_double().value_unsafe(); return true;
    default: return false;
  }
}

// A whole number from 0 below `limit` written as an integer (core's whole_field; a whole number written with a
// fraction or exponent is left to it).
bool read_whole(element v, double limit, std::optional<long long>& out) {
  if (v.type() != element_type::INT64) return false;
  const std::int64_t n = v.get_int64().value_unsafe();
  const double x = static_cast<double>(n);
  if (!(x >= 0 && x < limit)) return false;
  out = n;
  return true;
}

bool read_counters(element v, std::optional<std::map<std::string, double>>& out) {
  simdjson::dom::object object;
  if (v.get_object().get(object)) return false;
  auto& counters = out.emplace();
  for (const auto field : object) {
    double value = std::numeric_limits<double>::quiet_NaN();  // null: a counter the run could not compute
    if (!field.value.is_null() && !read_number(field.value, value)) return false;
    if (!counters.emplace(std::string(field.key), value).second) return false;  // a repeated key
  }
  return true;
}

// The case line's keys (core/result_record.cpp's kCaseKeys, with its kind's own "aggregate" or "repetition"), each
// with the bit that marks it seen.
enum Key : std::uint32_t {
  kType = 1u << 0, kName = 1u << 1, kStatus = 1u << 2, kFamily = 1u << 3, kDirection = 1u << 4,
  kPrecision = 1u << 5, kSets = 1u << 6, kApplications = 1u << 7, kModels = 1u << 8, kIterations = 1u << 9,
  kTimeUs = 1u << 10, kCounters = 1u << 11, kReason = 1u << 12, kVerification = 1u << 13, kLabel = 1u << 14,
  kLoggedAt = 1u << 15, kKernels = 1u << 16, kRegime = 1u << 17, kAggregate = 1u << 18, kRepetition = 1u << 19,
};

Key key_of(std::string_view k) {
  // By first letter, then the word: most lines have 17 keys, each looked up here.
  const auto is = [&](std::string_view name, Key key) { return k == name ? key : Key{0}; };
  if (k.empty()) return Key{0};
  switch (k[0]) {
    case 'a': return k.size() == 9 ? is("aggregate", kAggregate) : is("applications", kApplications);
    case 'c': return is("counters", kCounters);
    case 'd': return is("direction", kDirection);
    case 'f': return is("family", kFamily);
    case 'i': return is("iterations", kIterations);
    case 'k': return is("kernels", kKernels);
    case 'l': return k.size() == 5 ? is("label", kLabel) : is("logged_at", kLoggedAt);
    case 'm': return is("models", kModels);
    case 'n': return is("name", kName);
    case 'p': return is("precision", kPrecision);
    case 'r': return k.size() == 6 ? (k[2] == 'g' ? is("regime", kRegime) : is("reason", kReason))
                                   : is("repetition", kRepetition);
    case 's': return k.size() == 4 ? is("sets", kSets) : is("status", kStatus);
    case 't': return k.size() == 4 ? is("type", kType) : is("time_us", kTimeUs);
    case 'v': return is("verification", kVerification);
    default: return Key{0};
  }
}

bool read_field(Key key, element v, core::ResultRecord& r) {
  switch (key) {
    case kName: return read_text(v, r.name) && !r.name.empty();
    case kStatus: {
      std::string_view s;
      if (v.get_string().get(s)) return false;
      const auto status = core::parse_case_status(std::string(s));
      if (!status) return false;
      r.status = *status;
      return true;
    }
    case kFamily: return read_text(v, r.family);
    case kDirection: return read_text(v, r.direction);
    case kPrecision: return read_text(v, r.precision);
    case kReason: return read_text(v, r.reason);
    case kVerification: return read_text(v, r.verification);
    case kLabel: return read_text(v, r.label);
    case kLoggedAt: return read_text(v, r.logged_at);
    case kRegime: return read_text(v, r.regime);
    case kSets: return read_names(v, r.sets);
    case kApplications: return read_names(v, r.applications);
    case kModels: return read_names(v, r.models);
    case kKernels: return read_names(v, r.kernels);
    case kIterations: return read_whole(v, 9e18, r.iterations);
    case kRepetition: return read_whole(v, 1e9, r.repetition);
    case kTimeUs: return read_number(v, r.time_us.emplace());
    case kCounters: return read_counters(v, r.counters);
    case kAggregate: return read_text(v, r.aggregate);
    default: return false;
  }
}

}  // namespace

std::optional<core::ResultRecord> CaseLineReader::read(std::string_view line, bool padded) {
  element root;
  if (parser_->dom.parse(line.data(), line.size(), !padded).get(root)) return std::nullopt;
  simdjson::dom::object object;
  if (root.get_object().get(object)) return std::nullopt;
  std::string_view type;
  if (object.at_key("type").get_string().get(type)) return std::nullopt;
  core::ResultRecord r;
  if (type == "run") r.kind = core::RecordKind::run;
  else if (type == "aggregate") r.kind = core::RecordKind::aggregate;
  else return std::nullopt;
  const Key own = r.kind == core::RecordKind::run ? kRepetition : kAggregate;
  std::uint32_t seen = 0;
  for (const auto field : object) {
    const Key key = key_of(field.key);
    if (key == 0 || (seen & key) || ((key == kAggregate || key == kRepetition) && key != own)) return std::nullopt;
    seen |= key;
    if (key != kType && !read_field(key, field.value, r)) return std::nullopt;
  }
  if (!(seen & kName) || !(seen & kStatus) || (r.kind == core::RecordKind::aggregate && !(seen & kAggregate)))
    return std::nullopt;
  return r;
}

bool CaseLineReader::available() { return true; }

#else

struct CaseLineReader::Parser {};
const std::size_t CaseLineReader::kPadding = 0;
std::optional<core::ResultRecord> CaseLineReader::read(std::string_view, bool) { return std::nullopt; }
bool CaseLineReader::available() { return false; }

#endif

CaseLineReader::CaseLineReader() : parser_(std::make_unique<Parser>()) {}
CaseLineReader::~CaseLineReader() = default;

}  // namespace opmark::aggregate
