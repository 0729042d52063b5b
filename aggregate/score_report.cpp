#include "aggregate/score_report.h"

#include <filesystem>

namespace opmark::aggregate {

ScoreReport score_report(const ResultSet& results, const std::vector<core::ModelTable>& models,
                         const std::string& areas_file, const core::Symbols& inputs, const std::string& precision) {
  ScoreReport r;
  for (const auto& m : models) r.models.push_back(score_model(m, inputs, precision, results));
  if (std::filesystem::exists(areas_file))
    for (const auto& area : load_areas(areas_file)) {
      AreaScore s = score_area(area, r.models);
      if (s.models.empty()) continue;
      r.areas.push_back(s);
      r.area_defs.push_back(area);
    }
  return r;
}

nlohmann::json score_report_json(const ScoreReport& report, const ResultSet& results, const std::string& results_label,
                                 const std::string& precision) {
  nlohmann::json j;
  j["lower_is_better"] = true;
  j["unit"] = "ms";
  j["precision"] = precision;
  j["results"] = results_label;
  if (results.context.count("gpu")) j["gpu"] = results.context.at("gpu");
  j["models"] = nlohmann::json::array();
  for (const auto& s : report.models) {
    nlohmann::json m = {{"name", s.name},         {"area", s.area},
                        {"score_ms", s.score_ms}, {"calls", s.calls},
                        {"coverage_calls", s.coverage_calls()}, {"missing", s.missing}};
    m["coverage_time"] = s.coverage_time() >= 0 ? nlohmann::json(s.coverage_time()) : nlohmann::json(nullptr);
    // Only where there are some: the scores.json of a run without unstable cases stays what it was.
    if (!s.unstable.empty()) m["unstable"] = s.unstable;
    if (s.measured_ms) {
      m["measured_ms"] = *s.measured_ms;
      m["measured_device"] = s.measured_device;
      m["score_over_measured"] = *s.measured_ms > 0 ? s.score_ms / *s.measured_ms : 0.0;
    }
    j["models"].push_back(m);
  }
  j["areas"] = nlohmann::json::array();
  for (const auto& a : report.areas) j["areas"].push_back({{"name", a.name}, {"score_ms", a.score_ms}, {"models", a.models}});
  return j;
}

}  // namespace opmark::aggregate
