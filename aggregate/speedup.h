#pragma once
// Predicted against measured speedup between two scored systems A and B: per model and per area, the score ratio
// B/A (what opmark predicts), the real models' time ratio B/A where both GPUs have a measured entry (each side's
// real time as check_score takes it: graph_ms, or kernel_ms where the graph time is suspect or missing), and the
// error predicted / real - 1. Ratios are of times: below 1, B is faster.
#include <optional>
#include <string>
#include <vector>

#include "aggregate/score_report.h"

namespace opmark::aggregate {

struct SpeedupRow {
  std::string name;
  double score_a = 0, score_b = 0;       // ms: a model's scores, an area's scores (mean over its models)
  std::optional<double> real_a, real_b;  // ms: where both GPUs have real times (an area: means over those models)
  std::string real_kind;                 // "graph" or "kernel" (the same on both sides)
  std::string why_not;                   // where there is no real ratio
  // An area: its models, and those with both real times, whose scores give the ratio the error is taken on.
  std::size_t models = 0, models_with_real = 0;
  double score_a_with_real = 0, score_b_with_real = 0;

  double predicted() const { return score_a > 0 ? score_b / score_a : 0.0; }
  std::optional<double> real() const;
  // predicted / real - 1, over the same models on both sides of the division.
  std::optional<double> error() const;
};

struct SpeedupReport {
  std::string label_a, label_b, gpu_a, gpu_b;
  std::vector<SpeedupRow> models, areas;  // the models both sets scored, the areas both have
};

SpeedupReport speedup_report(const ScoredSet& a, const ScoredSet& b);

// The report as a table, models then areas.
std::string speedup_text(const SpeedupReport& report);

}  // namespace opmark::aggregate
