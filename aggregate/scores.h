#pragma once
// OpBench's scores (equations 1-4) from measured results and model operator tables. For a model, the score is
// the sum over its calls of calls x the measured time of the call's case: the model's lower-bound latency in ms
// (Benanza). For an area, W_i = N_i / N_models weights each case by its calls over the area's models, so the
// area's score is the mean of its models' scores. Lower is better.
#include <optional>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "core/model_table.h"

namespace opmark::aggregate {

struct ModelScore {
  std::string name, area;
  double score_ms = 0;                   // calls x time over the calls whose case was measured
  std::int64_t calls = 0, covered_calls = 0;  // all operator calls; those a measured case covers
  double traced_us = 0, covered_traced_us = 0;  // the table's traced GPU time (0: the table has none)
  std::vector<std::string> missing;      // cases a benchmarked family runs that the results lack or did not run
  std::vector<std::string> unstable;     // scored cases measured unstable (their time counts, but is in doubt)
  std::optional<double> measured_ms;     // the model's own GPU time, where its table records it
  std::string measured_device, measured_precision;

  double coverage_calls() const { return calls ? double(covered_calls) / double(calls) : 0.0; }
  // Share of the traced GPU time the covered calls account for; negative when the table has no traced times.
  double coverage_time() const { return traced_us > 0 ? covered_traced_us / traced_us : -1.0; }
};

ModelScore score_model(const core::ModelTable& model, const core::Symbols& inputs, const std::string& precision,
                       const ResultSet& results);

struct Area {
  std::string name, description;
  std::vector<std::string> models;
};
// shapes/areas.yaml: areas: {name: {description: ..., models: [a, b]}}. Throws TableError with file:line.
std::vector<Area> load_areas(const std::string& path);

struct AreaScore {
  std::string name;
  std::vector<std::string> models;
  double score_ms = 0;  // sum over cases of W_i C_i, W_i = calls over the area's models / number of models
};

AreaScore score_area(const Area& area, const std::vector<ModelScore>& scores);

}  // namespace opmark::aggregate
