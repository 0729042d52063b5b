#pragma once
// Predicted against measured speedup between two scored systems A and B: per model and per area, the score ratio
// B/A (what opmark predicts), the real models' time ratio B/A where both GPUs have a measured entry (each side's
// real time as check_score takes it: graph_ms, or kernel_ms where the graph time is suspect or missing), and the
// error predicted / real - 1. Ratios are of times: below 1, B is faster.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/score_report.h"

namespace opmark::aggregate {

// How far a prediction may miss the real speedup (issue 40): 5% per model, 3% per area.
inline constexpr double kModelErrorBar = 0.05, kAreaErrorBar = 0.03;

struct SpeedupRow {
  std::string name;
  double score_a = 0, score_b = 0;       // ms: a model's scores, an area's scores (mean over its models)
  std::optional<double> real_a, real_b;  // ms: where both GPUs have real times (an area: means over those models)
  std::string real_kind;                 // "graph" or "kernel" (the same on both sides)
  std::string why_not;                   // where there is no real ratio
  // An area: its models, and those with both real times, whose scores give the ratio the error is taken on.
  std::size_t models = 0, models_with_real = 0;
  double score_a_with_real = 0, score_b_with_real = 0;
  // Cases the scores lack on each side (a model's, or the distinct ones of an area's models): a partial score
  // leaves out part of the model's time, and its ratio compares a different part on each side.
  std::size_t missing_a = 0, missing_b = 0;

  double predicted() const { return score_a > 0 ? score_b / score_a : 0.0; }
  std::optional<double> real() const;
  // predicted / real - 1, over the same models on both sides of the division.
  std::optional<double> error() const;
  bool partial() const { return missing_a > 0 || missing_b > 0; }
  // The error is beyond `bar` (kModelErrorBar, kAreaErrorBar).
  bool misses(double bar) const { return error() && std::abs(*error()) > bar; }
};

struct SpeedupReport {
  std::string label_a, label_b, gpu_a, gpu_b;
  std::string opmark_a, opmark_b;  // the runs' opmark commits (context "git"): two differ, their ratios hold opmark's change
  std::vector<SpeedupRow> models, areas;  // the models both sets scored, the areas both have
};

SpeedupReport speedup_report(const ScoredSet& a, const ScoredSet& b);

// A sentence where the two runs come from different opmark commits, else "".
std::string commits_note(const SpeedupReport& report);

// The report as a table, models then areas.
std::string speedup_text(const SpeedupReport& report);

}  // namespace opmark::aggregate
