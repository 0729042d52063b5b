#pragma once
// Reading YAML nodes with their source locations: shared by the shape-table and model-table readers and the
// aggregator's areas file.
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <set>
#include <string>

#include "core/error.h"

namespace opmark::core::yaml {

inline SourceLocation where_of(const std::string& path, const YAML::Node& node) {
  if (!node) return {path, 0, 0};  // a missing key has no position (and Mark() would throw yaml-cpp's own error)
  const YAML::Mark m = node.Mark();
  return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

inline std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

inline std::string scalar(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (!node || !node.IsScalar()) throw TableError(where_of(path, node), field, "expected a single value");
  return node.Scalar();
}

// Every key of the mapping `node` must be one of `allowed`; `what` names the mapping in the error.
inline void check_keys(const std::string& path, const YAML::Node& node, const std::set<std::string>& allowed,
                       const std::string& what) {
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!allowed.count(key))
      throw TableError(where_of(path, kv.first), key, "unknown key in " + what + " (keys: " + join(allowed) + ")");
  }
}

// A number, non-negative, or positive where `positive` says so; an error names the field and the text.
inline double number(const std::string& path, const YAML::Node& node, const std::string& field, bool positive = false) {
  const std::string text = scalar(path, node, field);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(positive ? v > 0 : v >= 0))
    throw TableError(where_of(path, node), field,
                     std::string("expected a ") + (positive ? "positive" : "non-negative") + " number, got '" + text + "'");
  return v;
}

// The document in `text`; invalid YAML is a TableError at the parser's position.
inline YAML::Node parse(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw TableError({path, e.mark.line + 1, e.mark.column + 1}, "", "not valid YAML: " + e.msg);
  }
}

}  // namespace opmark::core::yaml
