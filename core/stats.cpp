#include "core/stats.h"

#include <algorithm>
#include <cmath>

namespace opmark::core {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double relative_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = median_of(values);
  if (!(m > 0)) return 0;
  std::vector<double> deviation;
  deviation.reserve(values.size());
  for (double v : values) deviation.push_back(std::fabs(v - m));
  return median_of(deviation) / m;
}

double span_of(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 ? *hi / *lo : 0;
}

double allowed_span(double spread, double noise_floor) { return 1.3 * (1 + 4 * std::max(spread, noise_floor)); }

}  // namespace opmark::core
