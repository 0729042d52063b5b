// The run's parameters against the rules: each setting the rules hold (core/run_spec.cpp's table: RunSetting::rules)
// is read from the context's typed key as written, or from an older run's timing sentence (core::run_parameters_of),
// and held to the rules' value by core::rules_departures.
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "aggregate/check_problems.h"
#include "core/run_context.h"
#include "core/run_spec.h"

namespace opmark::aggregate::check_detail {
namespace {

using nlohmann::json;

// A typed key's text as the context wrote it: a number where it reads as one, else the word.
json as_written(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0' && std::isfinite(v)) return v;
  return text;
}

// What an older run's timing sentence states for `key`, where core read it there.
std::optional<json> sentence_value(const core::RunParameters& run, const std::string& key) {
  if (!run.from_sentence.count(key)) return std::nullopt;
  namespace k = core::run_key;
  if (key == k::regime && run.regime) return json(core::name_of(*run.regime));
  if (key == k::l2 && run.l2) return json(core::name_of(*run.l2));
  if (key == k::timing_mode && run.timing_mode) return json(core::name_of(*run.timing_mode));
  if (key == k::min_time_s && run.min_time_s) return json(*run.min_time_s);
  if (key == k::min_repetitions && run.min_repetitions) return json(*run.min_repetitions);
  if (key == k::max_repetitions && run.max_repetitions) return json(*run.max_repetitions);
  if (key == k::noise_target && run.noise_target) return json(*run.noise_target);
  return std::nullopt;
}

}  // namespace

void check_run_parameters(const ResultSet& results, const core::Suite& rules, Problems& p) {
  const auto& context = results.context;
  const core::RunParameters run = core::run_parameters_of(context);
  const std::string log = std::string(bundle_path::results) + " line 1";
  const std::string rerun = "run the suite with this opmark-bench (opmark-submit) under rules version " +
                            std::to_string(rules.rules_version);
  for (const auto& m : run.malformed)
    p.add("context", "the run's context (" + log + "): " + m, kKeepLog);
  for (const auto& d : run.disagreements)
    p.add("context", "the run's context (" + log + "): " + d + " (both are written from one value)", kKeepLog);
  const auto stated = [&](const std::string& key) -> std::optional<json> {
    const auto it = context.find(key);
    return it != context.end() ? std::optional<json>(as_written(it->second)) : sentence_value(run, key);
  };
  for (const core::RulesDeparture& d : core::rules_departures(stated, rules)) {
    const std::string where = run.from_sentence.count(d.setting->key) ? "the timing sentence in " + log : log;
    p.add("rules", d.what(where) + " (" + rules.path + ")", rerun + " (" + d.flag_text() + ")");
  }
}

}  // namespace opmark::aggregate::check_detail
