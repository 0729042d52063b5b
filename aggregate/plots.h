#pragma once
// Plots as SVG, written by hand (no plotting library): OpBench's per-area operator chart, a roofline per family,
// and area scores across result sets.
#include <string>
#include <utility>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/scores.h"

namespace opmark::aggregate {

// Text made safe inside SVG or HTML elements and attribute values.
std::string escape(const std::string& text);

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

// One result set on a roofline shared with others: its points and its own roofs.
struct RooflinePoint {
  std::string label;     // the case name
  double intensity = 0;  // FLOPs per byte
  double tflops = 0;     // achieved
};
struct RooflineSet {
  std::string name;  // legend: the system and GPU, say
  std::vector<RooflinePoint> points;
  std::vector<std::pair<std::string, double>> peak_tflops;  // (precision, TFLOPS): a compute roof each
  double peak_gb_per_s = 0;                                  // the memory roof; 0: none
};

// Several result sets on one roofline (one family's cases on several GPUs, say): achieved TFLOPS against FLOPs
// per byte, both logarithmic, one colour per set, each set under its own roofs (dashed, labelled by precision).
std::string roofline_sets_svg(const std::string& title, const std::vector<RooflineSet>& sets);

// Per-case time ratios of result sets against a reference set (above 1: slower than the reference).
struct RatioSeries {
  std::string name;
  std::vector<std::pair<std::string, double>> ratios;  // (case name, time / reference time)
  double geomean = 0;                                   // geometric mean of the ratios; 0: none
};

// One colour per series: x the series' cases sorted by ratio (as a share of its cases), y the ratio on a log2
// axis around 1, each series' geometric mean dashed across. Series s takes the colour roofline_sets_svg gives set
// s + 1 (set 0 being the reference), so one GPU keeps one colour across the charts.
std::string ratio_chart_svg(const std::string& title, const std::vector<RatioSeries>& series);

}  // namespace opmark::aggregate
