#pragma once
// opmark-aggregate RESULTS... --plots=DIR: the standalone SVG files (and a PNG beside each where rsvg-convert is
// installed), over every results file given: one roofline per precision and one operator chart per area with every
// file's cases in it (a colour, a marker shape and a legend entry naming the GPU each), and the area scores side by
// side. A chart with nothing to draw is not written; what was left out is said.
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/scores.h"
#include "core/expr.h"
#include "core/model_table.h"

namespace opmark::aggregate {

// One scored results file.
struct PlotSet {
  std::string name;  // the legend's: the GPU and the file
  ResultSet results;
  std::vector<core::ModelTable> models;
  std::vector<Area> areas;          // the areas' definitions
  std::vector<AreaScore> area_scores;
};

void write_plots(const std::string& dir, const std::vector<PlotSet>& sets, const core::Symbols& inputs,
                 const std::string& precision);

// An SVG file (never through a symbolic link) and, where rsvg-convert is installed, a PNG beside it.
void write_svg(const std::string& path, const std::string& svg);

}  // namespace opmark::aggregate
