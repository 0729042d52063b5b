#pragma once
// Reading YAML nodes with their source locations: shared by the shape-table and model-table readers and the
// aggregator's areas file.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

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

// A scalar that must be one of `allowed`; the error names the field and lists them.
inline std::string one_of(const std::string& path, const YAML::Node& node, const std::string& field,
                          const std::set<std::string>& allowed) {
  const std::string value = scalar(path, node, field);
  if (!allowed.count(value))
    throw TableError(where_of(path, node), field, "'" + value + "' is not one of " + join(allowed));
  return value;
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

// A finite number, non-negative, or positive where `positive` says so; an error names the field and the text.
// ("inf" would pass a sign test, and then a minimum time or a traced time is infinite.)
inline double number(const std::string& path, const YAML::Node& node, const std::string& field, bool positive = false) {
  const std::string text = scalar(path, node, field);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || !(positive ? v > 0 : v >= 0))
    throw TableError(where_of(path, node), field,
                     std::string("expected a ") + (positive ? "positive" : "non-negative") + " number, got '" + text + "'");
  return v;
}

// A flag: exactly `true` or `false` (YAML's y, on, yes, ... are refused, so a typo is not read as either).
inline bool boolean(const std::string& path, const YAML::Node& node, const std::string& field) {
  const std::string text = scalar(path, node, field);
  if (text != "true" && text != "false")
    throw TableError(where_of(path, node), field, "expected true or false, got '" + text + "'");
  return text == "true";
}

// One mapping's keys: each a plain name (a scalar), each once. yaml-cpp keeps a repeated key as a second entry (which
// one a lookup finds differs between versions) and hands a map or list key to readers that then fail with its
// "bad conversion", so both are errors here, at the key's position.
inline void check_mapping_keys(const std::string& path, const YAML::Node& map) {
  std::map<std::string, SourceLocation> first_seen;
  for (const auto& kv : map) {
    const YAML::Node& key = kv.first;
    if (!key.IsScalar())
      throw TableError(where_of(path, key), "", "keys must be plain names, not a map, a list or nothing");
    const SourceLocation at = where_of(path, key);
    const auto [it, inserted] = first_seen.emplace(key.Scalar(), at);
    if (!inserted)
      throw TableError(at, key.Scalar(),
                       "duplicate key (first at line " + std::to_string(it->second.line) + ", column " +
                           std::to_string(it->second.column) + ")");
  }
}

// check_mapping_keys on every mapping of the document. Iterative, and each node once (an alias names a node seen
// before, and may even name one of its own ancestors), so hostile nesting or aliases cannot exhaust the stack or
// loop. A node is known by its position in the text: distinct maps and lists start at distinct positions.
inline void check_document_keys(const std::string& path, const YAML::Node& root) {
  std::set<int> visited;  // YAML::Mark::pos
  std::vector<YAML::Node> pending = {root};
  while (!pending.empty()) {
    const YAML::Node node = pending.back();
    pending.pop_back();
    if (!node.IsMap() && !node.IsSequence()) continue;
    if (!visited.insert(node.Mark().pos).second) continue;
    if (node.IsMap()) {
      check_mapping_keys(path, node);
      for (const auto& kv : node) pending.push_back(kv.second);
    } else {
      for (const auto& item : node) pending.push_back(item);
    }
  }
}

// The document in `text`; invalid YAML is a TableError at the parser's position, and so are repeated keys and keys
// that are not plain names (check_document_keys).
inline YAML::Node parse(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw TableError({path, e.mark.line + 1, e.mark.column + 1}, "", "not valid YAML: " + e.msg);
  }
  check_document_keys(path, root);
  return root;
}

}  // namespace opmark::core::yaml
