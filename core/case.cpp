#include "core/case.h"

#include <cerrno>
#include <cstdlib>
#include <optional>

#include "core/families.h"
#include "core/precision.h"
#include "core/text.h"

namespace opmark::core {

std::int64_t Case::int_field(const std::string& name) const {
  int i = schema().index_of(name);
  if (i < 0) throw Error("case of family '" + family + "' has no field '" + name + "'");
  const auto* v = std::get_if<std::int64_t>(&values.at(i));
  if (!v) throw Error("field '" + name + "' of " + family + " is not an integer");
  return *v;
}

std::string Case::str_field(const std::string& name) const {
  int i = schema().index_of(name);
  if (i < 0) throw Error("case of family '" + family + "' has no field '" + name + "'");
  return to_string(values.at(i));
}

Case make_case(const std::string& family, const std::string& direction, const std::string& precision,
               const std::map<std::string, FieldValue>& given) {
  const Schema& schema = schema_for(family);
  if (!schema.has_direction(direction))
    throw Error(family + ": unknown direction '" + direction + "'");
  if (!schema.has_precision(precision))
    throw Error(family + ": precision '" + precision + "' is not one this family runs");
  for (const auto& [name, value] : given)
    if (!schema.find_field(name))
      throw Error(family + ": unknown field '" + name + "' (fields: " + schema.field_list() + ")");
  Case c;
  c.family = family;
  c.direction = direction;
  c.precision = precision;
  for (const auto& field : schema.fields) {
    auto it = given.find(field.name);
    FieldValue value;
    if (it != given.end()) value = it->second;
    else if (field.is_required()) throw Error(family + ": field '" + field.name + "' is required");
    else if (!field.default_from.empty()) value = c.values.at(schema.index_of(field.default_from));
    else value = *field.default_value;
    std::string problem = check_value(field, value);
    if (!problem.empty()) throw Error(family + ": field '" + field.name + "': " + problem);
    c.values.push_back(canonical_value(field, value));
  }
  if (schema.check) {
    std::string problem = schema.check(c);
    if (!problem.empty()) throw Error(family + ": " + problem);
  }
  return c;
}

bool field_at_default(const Case& c, std::size_t i) {
  const Schema& schema = c.schema();
  const FieldSpec& field = schema.fields[i];
  const FieldValue& value = c.values.at(i);
  if (!field.default_from.empty())
    return value == c.values.at(static_cast<std::size_t>(schema.index_of(field.default_from)));
  return field.default_value && value == canonical_value(field, *field.default_value);
}

std::string make_case_name(const Case& c) {
  const Schema& schema = c.schema();
  std::string name = c.family + "/" + c.direction + "/" + c.precision;
  for (std::size_t i = 0; i < schema.fields.size(); ++i)
    if (schema.fields[i].named_at_default || !field_at_default(c, i))
      name += "/" + schema.fields[i].name + "=" + to_string(c.values.at(i));
  return name;
}

std::string short_case_name(const Case& c) {
  const Schema& schema = c.schema();
  std::string name = c.family + "/" + c.direction + "/" + c.precision;
  for (std::size_t i = 0; i < schema.fields.size(); ++i)
    if (!field_at_default(c, i)) name += "/" + schema.fields[i].name + "=" + to_string(c.values.at(i));
  return name;
}

// An integer as make_case_name writes it (std::to_string: no sign but '-', no leading zeros or spaces), so every case
// has exactly one name; nullopt for anything else, a value past int64 included.
static std::optional<std::int64_t> canonical_integer(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || std::to_string(v) != text) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

Case parse_case_name(const std::string& name) {
  std::vector<std::string> parts = split(name, '/');
  if (parts.size() < 3) throw Error("case name '" + name + "': expected <family>/<direction>/<precision>/...");
  const Schema& schema = schema_for(parts[0]);
  std::size_t always_named = 0;  // the fields every name of the family spells; the others only away from default
  for (const auto& field : schema.fields) always_named += field.named_at_default ? 1 : 0;
  const std::size_t fewest = 3 + always_named, most = 3 + schema.fields.size();
  if (parts.size() < fewest || parts.size() > most)
    throw Error("case name '" + name + "': a " + schema.family + " name has " + std::to_string(fewest) +
                (most == fewest ? "" : " to " + std::to_string(most)) + " parts (fields " + schema.field_list() +
                "), got " + std::to_string(parts.size()));
  std::map<std::string, FieldValue> given;
  std::size_t at = 3;  // the next part to read
  for (const FieldSpec& field : schema.fields) {
    const std::string prefix = field.name + "=";
    const bool spelled = at < parts.size() && parts[at].compare(0, prefix.size(), prefix) == 0;
    if (!spelled && !field.named_at_default) continue;  // left out at its default
    if (!spelled)
      throw Error("case name '" + name + "': part " + std::to_string(at + 1) + " should be '" + field.name +
                  "=...', got '" + (at < parts.size() ? parts[at] : std::string()) + "'");
    std::string text = parts[at++].substr(prefix.size());
    if (field.kind == FieldKind::choice || field.kind == FieldKind::fraction) {
      given[field.name] = text;
    } else {
      const std::optional<std::int64_t> v = canonical_integer(text);
      // Range errors (past the field's maximum) come from make_case below, naming the field and its range.
      if (!v) throw Error("case name '" + name + "': field '" + field.name + "': expected an integer, got '" + text + "'");
      given[field.name] = *v;
    }
  }
  if (at != parts.size())
    throw Error("case name '" + name + "': part " + std::to_string(at + 1) + " ('" + parts[at] + "') is not the next " +
                schema.family + " field (fields " + schema.field_list() + ")");
  Case c;
  try {
    c = make_case(parts[0], parts[1], parts[2], given);
  } catch (const Error& e) {
    throw Error("case name '" + name + "': " + e.what());
  }
  // One name per case: a field named only away from its default is not spelled at it.
  for (std::size_t i = 0; i < schema.fields.size(); ++i)
    if (!schema.fields[i].named_at_default && given.count(schema.fields[i].name) && field_at_default(c, i))
      throw Error("case name '" + name + "': " + schema.fields[i].name + "=" + to_string(c.values[i]) +
                  " is the default, which " + schema.family + " names leave out");
  return c;
}

Work work_of(const Case& c) { return family_work(c); }

}  // namespace opmark::core
