#pragma once
// What a family's table rows and case names may hold: fields with types, defaults and allowed values, the
// directions the family times, and the precisions it runs in. Every family declares one; names, tables and
// the aggregator all read it, so a field is spelled in exactly one place.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace opmark::core {

struct Case;

using FieldValue = std::variant<std::int64_t, std::string>;
std::string to_string(const FieldValue& v);

enum class FieldKind {
  positive_int,  // >= 1
  count,         // >= 0 (padding, for example)
  choice,        // one of `choices`
  fraction,      // a number in [0, 1), kept as its shortest text ("0.95"): sparsity, dropout
};

struct FieldSpec {
  std::string name;
  FieldKind kind = FieldKind::positive_int;
  std::optional<FieldValue> default_value;  // absent (and no default_from): the field is required
  std::vector<std::string> choices;         // for FieldKind::choice
  std::string help;
  std::string default_from;                 // when not given, take this earlier field's value (rnn: input = hidden)

  bool is_required() const { return !default_value && default_from.empty(); }
};

struct Schema {
  std::string family;
  std::string help;
  std::vector<FieldSpec> fields;        // in case-name order
  std::vector<std::string> directions;  // e.g. fwd; bwd_data; bwd_filter
  std::vector<std::string> precisions;  // those this family can run
  // Checks that need several fields (a convolution's output must not be empty, int8 runs forward only, ...):
  // returns what is wrong, or an empty string. Optional.
  std::string (*check)(const Case&) = nullptr;

  const FieldSpec* find_field(const std::string& name) const;
  int index_of(const std::string& name) const;  // -1 when absent
  bool has_direction(const std::string& d) const;
  bool has_precision(const std::string& p) const;
  std::string field_list() const;  // "m, n, k, ta, tb, batch" for messages
};

// Checks a value against a field's kind; returns an empty string when it is valid, else what is wrong
// ("expected a positive integer, got -3").
std::string check_value(const FieldSpec& field, const FieldValue& value);

// A valid value in its one canonical spelling, so equal values give equal case names ("0.950" -> "0.95").
FieldValue canonical_value(const FieldSpec& field, const FieldValue& value);

// A fraction field's number.
double fraction_of(const FieldValue& value);

// The registry of families (core/schemas.cpp). Throws opmark::Error naming the known families.
const Schema& schema_for(const std::string& family);
bool is_family(const std::string& family);
std::vector<std::string> known_families();

}  // namespace opmark::core
