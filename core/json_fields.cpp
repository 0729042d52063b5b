#include "core/json_fields.h"

#include "core/error.h"

namespace opmark::core {

std::string json_kind(const nlohmann::json& value) {
  if (value.is_string()) return "a string";
  if (value.is_number()) return "a number";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_boolean()) return "true or false";
  if (value.is_null()) return "null";
  return "something else";
}

void field_error(const std::string& where, const std::string& key, const std::string& expected,
                 const std::string& got) {
  throw Error(where + ": field '" + key + "': expected " + expected + ", got " + got);
}

const nlohmann::json& need(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw Error(where + ": missing key '" + key + "'");
  return j.at(key);
}

std::string text_value(const nlohmann::json& v, const char* key, const std::string& where) {
  if (!v.is_string()) field_error(where, key, "a string", json_kind(v));
  return v.get<std::string>();
}

double number_value(const nlohmann::json& v, const char* key, const std::string& where) {
  if (!v.is_number()) field_error(where, key, "a number", json_kind(v));
  return v.get<double>();
}

}  // namespace opmark::core
