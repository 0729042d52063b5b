#include "core/suite.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "core/yaml_nodes.h"

namespace opmark::core {

namespace {

using yaml::where_of;

std::vector<std::string> string_list(const std::string& path, const YAML::Node& node, const std::string& key) {
  if (!node || !node.IsSequence() || node.size() == 0)
    throw TableError(where_of(path, node), key, "expected a non-empty list such as [train, inference_server]");
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(yaml::scalar(path, item, key));
  return out;
}

double positive_number(const std::string& path, const YAML::Node& node, const std::string& key) {
  return yaml::number(path, node, key, true);
}

// Rules count versions and repetitions: a million is past any, and bounds the value before it is cast to an int
// (a double past int's range converts with undefined behaviour).
constexpr double kMaxRuleCount = 1e6;
// A repetition's minimum GPU time: an hour, as --opmark_min_time allows.
constexpr double kMaxMinTimeSeconds = 3600;

int positive_int(const std::string& path, const YAML::Node& node, const std::string& key) {
  const double v = positive_number(path, node, key);
  if (v != std::floor(v) || v > kMaxRuleCount)
    throw TableError(where_of(path, node), key, "expected a whole number from 1 to 1000000");
  return static_cast<int>(v);
}

void only_keys(const std::string& path, const YAML::Node& map, const std::set<std::string>& allowed,
               const std::string& what) {
  if (!map.IsMap()) throw TableError(where_of(path, map), what, "expected a mapping");
  yaml::check_keys(path, map, allowed, what);
}

}  // namespace

Suite parse_suite(const std::string& yaml_text, const std::string& path) {
  const YAML::Node doc = yaml::parse(yaml_text, path);
  if (!doc.IsMap() || !doc["submission"]) throw TableError({path, 1, 1}, "submission", "expected a top-level 'submission:' mapping");
  only_keys(path, doc, {"submission"}, "the file");
  const YAML::Node s = doc["submission"];
  only_keys(path, s,
            {"rules_version", "repetitions", "min_time_s", "noise_target", "timing", "max_noise", "max_median_noise",
             "max_repetitions", "regime", "l2", "max_unstable_fraction", "tables", "models"},
            "submission");
  Suite suite;
  suite.path = path;
  for (const char* key : {"rules_version", "repetitions", "min_time_s", "max_noise", "max_median_noise", "tables", "models"})
    if (!s[key]) throw TableError(where_of(path, s), key, "missing");
  suite.rules_version = positive_int(path, s["rules_version"], "rules_version");
  suite.repetitions = positive_int(path, s["repetitions"], "repetitions");
  suite.min_time_s = positive_number(path, s["min_time_s"], "min_time_s");
  if (suite.min_time_s > kMaxMinTimeSeconds)
    throw TableError(where_of(path, s["min_time_s"]), "min_time_s", "expected at most 3600 seconds");
  if (s["noise_target"]) {  // optional: rules version 1 has none
    const YAML::Node n = s["noise_target"];
    const std::string text = yaml::scalar(path, n, "noise_target");
    char* end = nullptr;
    suite.noise_target = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(suite.noise_target > 0 && suite.noise_target < 1))
      throw TableError(where_of(path, n), "noise_target",
                       "expected a fraction between 0 and 1 (exclusive) such as 0.01, got '" + text + "'");
  }
  if (s["timing"]) {  // optional: unset, a run may time either way
    const YAML::Node t = s["timing"];
    const std::string timing = yaml::scalar(path, t, "timing");
    suite.timing = parse_timing_mode(timing);
    if (!suite.timing) throw TableError(where_of(path, t), "timing", "expected graph or eager, got '" + timing + "'");
  }
  if (s["max_repetitions"]) {  // optional (rules version 5): the most repetitions a case may take
    suite.max_repetitions = positive_int(path, s["max_repetitions"], "max_repetitions");
    if (suite.max_repetitions < suite.repetitions)
      throw TableError(where_of(path, s["max_repetitions"]), "max_repetitions", "expected at least `repetitions`");
  }
  if (s["regime"]) {  // optional (rules version 5): the timing regime a run must state
    const YAML::Node r = s["regime"];
    const std::string regime = yaml::scalar(path, r, "regime");
    suite.regime = parse_regime(regime);
    if (!suite.regime)
      throw TableError(where_of(path, r), "regime", "expected burst or sustained, got '" + regime + "'");
  }
  if (s["l2"]) {  // optional: hot and cold times are different measurements, not comparable as scores
    const YAML::Node n = s["l2"];
    const std::string l2 = yaml::scalar(path, n, "l2");
    suite.l2 = parse_l2_mode(l2);
    if (!suite.l2) throw TableError(where_of(path, n), "l2", "expected hot or cold, got '" + l2 + "'");
  }
  if (s["max_unstable_fraction"]) {  // optional (rules version 5)
    const YAML::Node n = s["max_unstable_fraction"];
    suite.max_unstable_fraction = positive_number(path, n, "max_unstable_fraction");
    if (suite.max_unstable_fraction >= 1)
      throw TableError(where_of(path, n), "max_unstable_fraction", "expected a fraction under 1, such as 0.01");
  }
  suite.max_noise = positive_number(path, s["max_noise"], "max_noise");
  suite.max_median_noise = positive_number(path, s["max_median_noise"], "max_median_noise");
  if (!s["tables"].IsSequence()) throw TableError(where_of(path, s["tables"]), "tables", "expected a list");
  for (const auto& entry : s["tables"]) {
    only_keys(path, entry, {"family", "sets", "precisions"}, "a tables entry");
    SuiteTables t;
    t.where = where_of(path, entry);
    t.selection.families.insert(yaml::scalar(path, entry["family"], "family"));
    for (const auto& v : string_list(path, entry["sets"], "sets")) t.selection.sets.insert(v);
    for (const auto& v : string_list(path, entry["precisions"], "precisions")) t.selection.precisions.insert(v);
    suite.tables.push_back(std::move(t));
  }
  const YAML::Node m = s["models"];
  only_keys(path, m, {"names", "precision", "folder"}, "models");
  suite.model_names = string_list(path, m["names"], "names");
  // The rules name models of their shapes folder: a name is a model's, never a path, and the folder stays inside.
  for (const std::string& name : suite.model_names) {
    if (name.empty() || name.find_first_of("/\\") != std::string::npos || name == "." || name == "..")
      throw TableError(where_of(path, m["names"]), "names",
                       "'" + name + "' is no model name (the rules name models of their shapes folder, not paths)");
  }
  suite.model_precision = yaml::scalar(path, m["precision"], "precision");
  if (m["folder"]) {
    suite.model_folder = yaml::scalar(path, m["folder"], "folder");
    const std::filesystem::path folder(suite.model_folder);
    bool climbs = folder.is_absolute() || suite.model_folder.empty();
    for (const auto& part : folder) climbs = climbs || part == "..";
    if (climbs)
      throw TableError(where_of(path, m["folder"]), "folder",
                       "'" + suite.model_folder + "' leaves the shapes folder: give a folder inside it");
  }
  return suite;
}

Suite load_suite(const std::string& path) { return parse_suite(read_text_file(path, "submission rules"), path); }

std::vector<Case> merge_cases(std::vector<Case> cases) {
  std::vector<Case> out;
  std::unordered_map<std::string, std::size_t> index;
  for (auto& c : cases) {
    auto [it, inserted] = index.emplace(make_case_name(c), out.size());
    if (inserted) {
      out.push_back(std::move(c));
      continue;
    }
    Case& kept = out[it->second];
    kept.sets.insert(c.sets.begin(), c.sets.end());
    kept.applications.insert(c.applications.begin(), c.applications.end());
    kept.models.insert(c.models.begin(), c.models.end());
    kept.sources.insert(kept.sources.end(), c.sources.begin(), c.sources.end());
  }
  return out;
}

std::vector<Case> suite_cases(const Suite& suite, const std::vector<Table>& tables,
                              const std::vector<ModelTable>& models) {
  std::vector<Case> all;
  for (const auto& entry : suite.tables) {
    const std::string& family = *entry.selection.families.begin();
    // Every set named must exist in the family's table with every precision named: a rule that matched nothing
    // would shrink the required suite without a word.
    for (const auto& set_name : entry.selection.sets) {
      bool found = false;
      for (const auto& t : tables)
        for (const auto& set : t.sets)
          if (t.family == family && set.name == set_name) {
            found = true;
            for (const auto& p : entry.selection.precisions)
              if (std::find(set.precisions.begin(), set.precisions.end(), p) == set.precisions.end())
                throw TableError(entry.where, "precisions",
                                 "set '" + set_name + "' of family '" + family + "' has no precision " + p);
          }
      if (!found) throw TableError(entry.where, "sets", "family '" + family + "' has no set '" + set_name + "'");
    }
    for (auto& c : expand_tables(tables, entry.selection)) all.push_back(std::move(c));
  }
  for (auto& c : model_cases(models, {}, {suite.model_precision})) all.push_back(std::move(c));
  return merge_cases(std::move(all));
}

}  // namespace opmark::core
