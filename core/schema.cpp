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

namespace {

std::string check_integer(const FieldSpec& field, const FieldValue& value) {
  const bool positive = field.kind == FieldKind::positive_int;
  const std::int64_t min = positive ? 1 : 0;
  const char* expected = positive ? "expected a positive integer" : "expected a non-negative integer";
  const auto* i = std::get_if<std::int64_t>(&value);
  if (!i) return std::string(expected) + ", got '" + std::get<std::string>(value) + "'";
  if (*i < min) return std::string(expected) + ", got " + std::to_string(*i);
  if (*i > field.max)
    return "expected an integer from " + std::to_string(min) + " to " + std::to_string(field.max) + ", got " +
           std::to_string(*i);
  return "";
}

// The text a fraction has in case names; -0 is named 0, as it equals 0.
std::string fraction_name(double v) {
  if (v == 0) v = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", kFractionDigits, v);
  return buf;
}

std::string check_fraction(const FieldValue& value) {
  const std::string text = to_string(value);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0.0 && v < 1.0)) return "expected a number in [0, 1), got '" + text + "'";
  // A value the name cannot tell apart from another (0.50000000001 is named 0.5) would merge two cases into one.
  const std::string name = fraction_name(v);
  if (std::strtod(name.c_str(), nullptr) != v)
    return "'" + text + "' and " + name + " would have the same case name (" + name + "): give at most " +
           std::to_string(kFractionDigits) + " significant digits";
  return "";
}

}  // namespace

std::string check_value(const FieldSpec& field, const FieldValue& value) {
  switch (field.kind) {
    case FieldKind::positive_int:
    case FieldKind::count:
      return check_integer(field, value);
    case FieldKind::choice: {
      std::string text = to_string(value);
      if (std::find(field.choices.begin(), field.choices.end(), text) == field.choices.end())
        return "expected one of " + join(field.choices) + ", got '" + text + "'";
      return "";
    }
    case FieldKind::fraction:
      return check_fraction(value);
  }
  return "";
}

FieldSpec symbol_spec(const std::string& name) {
  FieldSpec spec{name, FieldKind::positive_int, std::nullopt, {}, "", ""};
  spec.max = kMaxElements;
  return spec;
}

std::int64_t bounded_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t product = 1;
  for (std::int64_t f : factors)
    if (f < 0 || __builtin_mul_overflow(product, f, &product) || product > kMaxElements) return -1;
  return product;
}

static_assert(kMaxElements == std::int64_t{1} << 40, "check_tensor_size's message says 2^40");

std::string check_tensor_size(const std::string& tensor, const std::string& shape,
                              std::initializer_list<std::int64_t> factors) {
  if (bounded_product(factors) >= 0) return "";
  return tensor + " (" + shape + ") would hold more than 2^40 elements, past any GPU's memory";
}

std::string first_problem(std::initializer_list<std::string> problems) {
  for (const auto& p : problems)
    if (!p.empty()) return p;
  return "";
}

double fraction_of(const FieldValue& value) { return std::strtod(to_string(value).c_str(), nullptr); }

FieldValue canonical_value(const FieldSpec& field, const FieldValue& value) {
  if (field.kind != FieldKind::fraction) return value;
  return fraction_name(fraction_of(value));
}

}  // namespace opmark::core
