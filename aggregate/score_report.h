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
// A model whose table has the traced model's graph_ms or kernel_ms (issue 17) also gets them, its score over the
// real time where the run's GPU is the table's (score_over_real, real_kind; graph_suspect: true where the tracer
// flagged graph_ms, and the kernel time stands in), and its per-family times (families:
// {family: {score_ms, traced_ms, traced_scored_ms, calls, scored_calls}}); older tables' entries are unchanged.
nlohmann::json score_report_json(const ScoreReport& report, const ResultSet& results, const std::string& results_label,
                                 const std::string& precision);

// One scored result set, for the validation below.
struct ScoredSet {
  std::string label;           // the results file
  const ResultSet* results;    // its context names the GPU and the L2 mode
  const ScoreReport* report;

  std::string gpu() const;     // the run's GPU, "" where its context names none
  std::string system() const;  // its GPU, else the results file: a column head or a block's name
};

// check_score, where a partial score (--allow-missing: a lower bound, no model's time) has no real time either.
ScoreCheck check_whole_score(const ModelScore& s, const std::string& gpu);

// The scores checked against the real models, as text: per model the score, the traced model's real time on the
// same GPU (CUDA-graph replay, else the profiler's kernel time) and their ratio, or why there is none; where the
// sets hold a hot-L2 and a cold-L2 run on the same GPU, both scores and whether the real time lies between them.
// per_set false leaves out the per-set tables (the side-by-side holds them) and keeps a hot/cold pair's. Empty where
// no model's table has the traced times (older tables).
std::string score_validation_text(const std::vector<ScoredSet>& sets, bool per_set = true);

// Per set and model, named by its system: opmark's time by family beside the traced kernel time of the same calls
// (a cold-L2 run's beside its hot one's), then the headroom. Where the table's kernel times were traced on another
// GPU than the set's, it says so and gives opmark's times alone, no ratio and no headroom.
std::string score_breakdown_text(const std::vector<ScoredSet>& sets);

}  // namespace opmark::aggregate
