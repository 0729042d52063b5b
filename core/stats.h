#pragma once
// The statistics the harness stops on and the checker holds a bundle to: one definition, so a run that stopped as
// steady is judged by the same numbers.
#include <vector>

namespace opmark::core {

double median_of(std::vector<double> values);  // 0 for none

// Median absolute deviation over the median: robust to one repetition that a passing hiccup slowed, strict with a
// case whose times really spread. 0 for fewer than two values or a median that is not positive.
double relative_spread(const std::vector<double>& values);

}  // namespace opmark::core
