#include "aggregate/page_speedup.h"

#include <map>
#include <optional>

#include "aggregate/bundle.h"
#include "aggregate/score_report.h"
#include "core/model_table.h"
#include "core/suite.h"

namespace opmark::aggregate {
namespace {

using nlohmann::json;

json number_or_null(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json row_json(const SpeedupRow& r, double bar) {
  // A side with no measured case of the model scores 0: no ratio to show, rather than 0x or infinity.
  const bool scored = r.score_a > 0 && r.score_b > 0;
  return {{"name", r.name},
          {"score_a", r.score_a},
          {"score_b", r.score_b},
          {"predicted", scored ? json(r.predicted()) : json(nullptr)},
          {"real_a", number_or_null(r.real_a)},
          {"real_b", number_or_null(r.real_b)},
          {"real", number_or_null(r.real())},
          {"real_kind", r.real() ? r.real_kind : ""},
          {"error", number_or_null(r.error())},
          {"why_not", r.real() ? "" : r.why_not},
          {"models", r.models},
          {"models_with_real", r.models_with_real},
          {"missing_a", r.missing_a},
          {"missing_b", r.missing_b},
          {"partial", r.partial()},
          {"miss", r.misses(bar)}};
}

// A system scored as pack scores its bundle; the model tables are read once per rules file.
struct Scored {
  ScoreReport report;
  std::string error;  // where it could not be scored
};

Scored score_system(const ResultSet& results, const std::string& rules_path, const std::string& shapes_dir,
                    std::map<std::string, std::vector<core::ModelTable>>* tables) {
  Scored s;
  try {
    const core::Suite rules = rules_for_run(rules_path, results.context, nullptr);
    auto it = tables->find(rules.path);
    if (it == tables->end())
      it = tables->emplace(rules.path, core::load_models(rules.model_names, {shapes_dir}, rules.model_folder)).first;
    s.report = bundle_score_report(results, rules, it->second, shapes_dir);
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

}  // namespace

json speedup_json(const SpeedupReport& report) {
  json out = {{"label_a", report.label_a}, {"label_b", report.label_b}, {"gpu_a", report.gpu_a},
              {"gpu_b", report.gpu_b},     {"models", json::array()},   {"areas", json::array()}};
  if (const std::string note = commits_note(report); !note.empty()) out["commits_note"] = note;
  for (const auto& m : report.models) out["models"].push_back(row_json(m, kModelErrorBar));
  for (const auto& a : report.areas) out["areas"].push_back(row_json(a, kAreaErrorBar));
  return out;
}

json page_speedups(const std::vector<PageSystem>& systems, const std::string& rules_path,
                   const std::string& shapes_dir) {
  std::map<std::string, std::vector<core::ModelTable>> tables;
  std::vector<Scored> scored;
  for (const auto& s : systems) scored.push_back(score_system(*s.results, rules_path, shapes_dir, &tables));
  json pairs = json::array();
  for (std::size_t ref = 0; ref < systems.size(); ++ref) {
    json row = json::array();
    for (std::size_t i = 0; i < systems.size(); ++i) {
      if (i == ref) {
        row.push_back(nullptr);
      } else if (!scored[ref].error.empty() || !scored[i].error.empty()) {
        const std::size_t failed = scored[ref].error.empty() ? i : ref;
        row.push_back({{"error", systems[failed].label + " could not be scored: " + scored[failed].error}});
      } else {
        row.push_back(speedup_json(speedup_report({systems[ref].label, systems[ref].results, &scored[ref].report},
                                                  {systems[i].label, systems[i].results, &scored[i].report})));
      }
    }
    pairs.push_back(row);
  }
  return {{"bars", {{"model", kModelErrorBar}, {"area", kAreaErrorBar}}}, {"pairs", pairs}};
}

}  // namespace opmark::aggregate
