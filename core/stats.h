#pragma once
// The statistics the harness stops on and the checker holds a bundle to: one definition, so a run that stopped as
// steady is judged by the same numbers.
#include <vector>

namespace opmark::core {

double median_of(std::vector<double> values);  // 0 for none

// Median absolute deviation over the median: robust to one repetition that a passing hiccup slowed, strict with a
// case whose times really spread. 0 for fewer than two values or a median that is not positive.
double relative_spread(const std::vector<double>& values);

// The slowest value over the fastest; 0 for none or a fastest that is not positive.
double span_of(const std::vector<double>& values);

// The widest span an ok case's repetitions may have: 1.3x (the harness's agreement bound) beyond four times their
// spread, the spread taken as at least `noise_floor`. One slow repetition is noise; 2.9x with a spread of 3% is two
// measurements of different things. The checker passes the rules' noise limit as the floor; the harness, which
// must never write what the checker rejects, passes none.
double allowed_span(double spread, double noise_floor = 0);

}  // namespace opmark::core
