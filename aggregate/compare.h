#pragma once
// Two result sets side by side (two GPUs, or before and after a driver update): per case ratio and the
// geometric mean. A case regressed when it is slower by more than the threshold and by more than the noise its
// repetitions show, so a CI job can fail on it.
#include <string>
#include <vector>

#include "aggregate/results.h"

namespace opmark::aggregate {

struct CaseComparison {
  std::string name;
  double before_us = 0, after_us = 0;
  double ratio = 0;       // after / before: above 1 is slower
  double noise_us = 0;    // the larger spread (max - min) of the two sets' repetitions
  bool regression = false;
};

struct Comparison {
  std::vector<CaseComparison> cases;  // the cases both sets measured, by name
  double geomean_ratio = 0;
  int regressions = 0;
  std::vector<std::string> only_before, only_after;
};

Comparison compare(const ResultSet& before, const ResultSet& after, double threshold);

}  // namespace opmark::aggregate
