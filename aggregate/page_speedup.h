#pragma once
// The results page's predicted against measured speedup (speedup.h) as the page's data: every system scored as its
// bundle's scores.json scores it (the models and precision of the rules its run was made under), then each system
// against each other. The page's script only shows these numbers; the ratios, errors and bars are all here.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregate/results.h"
#include "aggregate/speedup.h"

namespace opmark::aggregate {

// One report as the page embeds it: {label_a, label_b, gpu_a, gpu_b, commits_note (where the runs' opmark commits
// differ), models[], areas[]}, each row {name, score_a, score_b, predicted, real_a, real_b, real, real_kind, error,
// why_not, models, models_with_real, missing_a, missing_b, partial, miss}. `miss`: the error is beyond kModelErrorBar (a model) or kAreaErrorBar (an area).
// predicted is null where a side has no score (none of the model's cases measured), real and error where the
// report has none; why_not then says why.
nlohmann::json speedup_json(const SpeedupReport& report);

// A system of the page: its label (the bundle's folder) and its run.
struct PageSystem {
  std::string label;
  const ResultSet* results;
};

// {"bars": {"model", "area"}, "pairs": pairs} where pairs[ref][i] is speedup_json of system i (B) against system
// ref (A): null on the diagonal, {"error": why} where either system could not be scored (its rules or model tables
// do not load). The rules at `rules_path` (or the run's earlier version beside them, as pack takes them) name the
// models, found in `shapes_dir`.
nlohmann::json page_speedups(const std::vector<PageSystem>& systems, const std::string& rules_path,
                             const std::string& shapes_dir);

}  // namespace opmark::aggregate
