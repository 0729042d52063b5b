#pragma once
// Two result sets side by side (two GPUs, or before and after a driver update): per case ratio and the
// geometric mean. A case regressed when it is slower by more than the threshold and by more than the noise its
// repetitions show, so a CI job can fail on it. A case measured unstable on either side (two of its measurements
// disagreed by more than 1.3x) gets no verdict: its ratio is listed and counted in the geometric mean, marked unsure.
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
  std::string unstable;   // "before", "after" or "before and after" where the case was unstable there; else empty
  // "regression", "unsure" (unstable: no verdict either way) or "ok" (not slower beyond threshold and noise).
  std::string verdict() const { return regression ? "regression" : !unstable.empty() ? "unsure" : "ok"; }
};

struct Comparison {
  std::vector<CaseComparison> cases;  // the cases both sets measured, by name
  double geomean_ratio = 0;
  int regressions = 0;
  int unstable = 0;  // cases with no verdict: unstable before or after
  std::vector<std::string> only_before, only_after;
};

Comparison compare(const ResultSet& before, const ResultSet& after, double threshold);

}  // namespace opmark::aggregate
