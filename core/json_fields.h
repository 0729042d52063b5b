#pragma once
// Reading fields of a JSON object with errors a user can act on: each names the place (file:line, or a file and an
// entry), the field, what was expected and what was there ("r.jsonl:12: field 'time_us': expected a number, got a
// string"), instead of the JSON library's "type must be number, but is string". Shared by core's result record and
// the aggregator's readers, so every results file says its errors the same way.
#include <string>

#include <nlohmann/json.hpp>

namespace opmark::core {

// "a string", "a number", "an object", "an array", "true or false", "null".
std::string json_kind(const nlohmann::json& value);

// Throws opmark::Error: "WHERE: field 'KEY': expected EXPECTED, got GOT".
[[noreturn]] void field_error(const std::string& where, const std::string& key, const std::string& expected,
                              const std::string& got);

// The field `key` of the object `j`; throws opmark::Error "WHERE: missing key 'KEY'" where it is absent.
const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& where);

// The value `v` of the field `key` as text or as a number, or a field_error naming what it was.
std::string text_value(const nlohmann::json& v, const char* key, const std::string& where);
double number_value(const nlohmann::json& v, const char* key, const std::string& where);

// A text field that must be there.
inline std::string text_of(const nlohmann::json& j, const char* key, const std::string& where) {
  return text_value(need(j, key, where), key, where);
}

// A text field that may be absent (then `otherwise`).
inline std::string optional_text(const nlohmann::json& j, const char* key, const std::string& where,
                                 const std::string& otherwise = "") {
  return j.contains(key) ? text_of(j, key, where) : otherwise;
}

}  // namespace opmark::core
