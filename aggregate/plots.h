#pragma once
// Plots as SVG, written by hand (no plotting library): OpBench's per-area operator chart, a roofline per family,
// and area scores across result sets.
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/scores.h"

namespace opmark::aggregate {

struct OperatorPoint {
  std::string label;        // the case name
  double mean_us = 0;       // x: the time of one call
  double calls_per_model = 0;  // y: calls over the area's models / number of models
};

// OpBench's chart for one area: x the time of one call, y the mean calls per model, marker area the weighted time
// (x times y), both axes logarithmic.
std::string operator_chart_svg(const std::string& title, const std::vector<OperatorPoint>& points);

// Achieved TFLOPS against arithmetic intensity (FLOPs per byte) for every measured case with FLOPs, one colour per
// family, with the compute roof (the context's peak for the precision) and the memory roof.
std::string roofline_svg(const ResultSet& results, const std::string& precision);

// Area scores of several result sets side by side (lower is better).
std::string area_bars_svg(const std::vector<std::string>& set_names,
                          const std::vector<std::vector<AreaScore>>& scores);

}  // namespace opmark::aggregate
