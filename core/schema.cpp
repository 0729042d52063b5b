#include "core/schema.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace opmark::core {

std::string to_string(const FieldValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return std::get<std::string>(v);
}

const FieldSpec* Schema::find_field(const std::string& name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

int Schema::index_of(const std::string& name) const {
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

bool Schema::has_direction(const std::string& d) const {
  return std::find(directions.begin(), directions.end(), d) != directions.end();
}

bool Schema::has_precision(const std::string& p) const {
  return std::find(precisions.begin(), precisions.end(), p) != precisions.end();
}

std::string Schema::field_list() const {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + f.name;
  return out;
}

static std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string check_value(const FieldSpec& field, const FieldValue& value) {
  switch (field.kind) {
    case FieldKind::positive_int:
    case FieldKind::count: {
      const bool positive = field.kind == FieldKind::positive_int;
      const char* expected = positive ? "expected a positive integer" : "expected a non-negative integer";
      const auto* i = std::get_if<std::int64_t>(&value);
      if (!i) return std::string(expected) + ", got '" + std::get<std::string>(value) + "'";
      if (positive ? *i < 1 : *i < 0) return std::string(expected) + ", got " + std::to_string(*i);
      return "";
    }
    case FieldKind::choice: {
      std::string text = to_string(value);
      if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end())
        return "expected one of " + join(field.choices) + ", got '" + text + "'";
      return "";
    }
    case FieldKind::fraction: {
      const std::string text = to_string(value);
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= 0.0 && v < 1.0))
        return "expected a number in [0, 1), got '" + text + "'";
      return "";
    }
  }
  return "";
}

double fraction_of(const FieldValue& value) { return std::strtod(to_string(value).c_str(), nullptr); }

FieldValue canonical_value(const FieldSpec& field, const FieldValue& value) {
  if (field.kind != FieldKind::fraction) return value;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", fraction_of(value));
  return std::string(buf);
}

}  // namespace opmark::core
