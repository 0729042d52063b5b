#pragma once
// Several systems' scores in one table, a column per system (as DeepBench's sheets put vendors side by side):
// per model and per area the score in ms and, after the first system, its ratio to the first.
#include <string>
#include <vector>

#include "aggregate/score_report.h"

namespace opmark::aggregate {

// Empty for fewer than two systems. A model or area a system did not score shows "-".
std::string side_by_side_text(const std::vector<ScoredSet>& systems);

}  // namespace opmark::aggregate
