#pragma once
// The standalone plots of --plots as SVG, written by hand (no plotting library): OpBench's per-area operator chart,
// a roofline per precision, and area scores across result sets. (The results page draws its own charts in the
// browser: aggregate/page/charts.js.)
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
// One results file's points (one GPU's, say), named in the legend.
struct OperatorSeries {
  std::string name;
  std::vector<OperatorPoint> points;
};

// OpBench's chart for one area: x the time of one call, y the mean calls per model, marker area the weighted time
// (x times y), both axes logarithmic; each series in its colour and marker shape, named in the legend.
std::string operator_chart_svg(const std::string& title, const std::vector<OperatorSeries>& series);

// A results file and the name its legend entry gives it (the GPU, say).
struct NamedResults {
  std::string name;
  const ResultSet* results = nullptr;
};

// Achieved TFLOPS against arithmetic intensity (FLOPs per byte) for every measured case of `precision` with FLOPs,
// every results file on one chart (a colour and marker shape each, named in the legend) under its own compute roof
// (the context's peak for the precision) and memory roof. Empty when no case of the precision has FLOPs.
std::string roofline_svg(const std::vector<NamedResults>& sets, const std::string& precision);

// Area scores of several result sets side by side (lower is better). Areas differ a hundredfold, so each area's
// bars are scaled to its own highest score, every bar labelled with its milliseconds.
std::string area_bars_svg(const std::vector<std::string>& set_names,
                          const std::vector<std::vector<AreaScore>>& scores);

// A case's time over runs (opmark-aggregate db history --svg): x the runs in order of their start, each labelled,
// y the time on a linear axis from 0; a line and markers per case (its colour and shape, named in the legend), a gap
// where a run did not time it.
struct HistoryPoint {
  std::size_t run = 0;  // index into the chart's runs
  double time_us = 0;
};
struct HistorySeries {
  std::string name;  // the case
  std::vector<HistoryPoint> points;
};
// y_label and unit: what the points' time_us holds (a family's time over its first run, say).
std::string history_svg(const std::string& title, const std::vector<std::string>& run_labels,
                        const std::vector<HistorySeries>& series, const std::string& y_label = "time (us)",
                        const std::string& unit = "us");

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
// per byte, both logarithmic, a colour and a half-transparent marker shape per set (so one set's points do not hide
// another's), each set under its own roofs (dashed, labelled by precision).
std::string roofline_sets_svg(const std::string& title, const std::vector<RooflineSet>& sets);

}  // namespace opmark::aggregate
