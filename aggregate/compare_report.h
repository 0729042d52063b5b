#pragma once
// A comparison (compare.h) as people and tools read it: markdown (aligned columns), CSV (one row per case) or JSON
// (everything). Cases whose verdict is `same` are left out unless `all`; the markdown's summary says how many.
#include <string>

#include "aggregate/compare.h"

namespace opmark::aggregate {

struct CompareReportOptions {
  std::string before, after;  // what was compared (paths), for the title
  double threshold = kChangeFloor;  // the least change called (verdict.h)
  bool all = false;           // list the `same` cases too (and the cases only one run has)
  std::string areas_note;     // why there are no area lines, when there are none (the model tables did not load)
};

std::string compare_markdown(const Comparison& c, const CompareReportOptions& o);
std::string compare_csv(const Comparison& c, const CompareReportOptions& o);
std::string compare_json(const Comparison& c, const CompareReportOptions& o);

// A markdown table with every column padded to its widest cell, so it reads aligned as plain text too. `right`
// names the columns aligned right (numbers). A '|' in a cell is escaped.
std::string markdown_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right = {});

}  // namespace opmark::aggregate
