#pragma once
// Scoring a result set end to end (models, then areas) and its JSON form: one function for the command line's
// --format=json, a bundle's scores.json and the checker's recomputation of it, so the three cannot drift apart.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregate/scores.h"

namespace opmark::aggregate {

struct ScoreReport {
  std::vector<ModelScore> models;
  std::vector<AreaScore> areas;   // areas with at least one scored model
  std::vector<Area> area_defs;    // their definitions, in the same order
};

// `areas_file` may not exist (no areas then).
ScoreReport score_report(const ResultSet& results, const std::vector<core::ModelTable>& models,
                         const std::string& areas_file, const core::Symbols& inputs, const std::string& precision);

// {lower_is_better, unit, precision, results, gpu, models[], areas[]}; `results_label` names the results file.
nlohmann::json score_report_json(const ScoreReport& report, const ResultSet& results, const std::string& results_label,
                                 const std::string& precision);

}  // namespace opmark::aggregate
