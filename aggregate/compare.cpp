#include "aggregate/compare.h"

#include <algorithm>
#include <cmath>

namespace opmark::aggregate {
namespace {

double spread(const std::vector<double>& reps) {
  if (reps.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(reps.begin(), reps.end());
  return *hi - *lo;
}

}  // namespace

Comparison compare(const ResultSet& before, const ResultSet& after, double threshold) {
  Comparison out;
  double log_sum = 0;
  for (const auto& [name, b] : before.cases) {
    auto it = after.cases.find(name);
    if (it == after.cases.end() || !it->second.timed()) {
      if (b.timed()) out.only_before.push_back(name);
      continue;
    }
    if (!b.timed()) continue;
    const CaseResult& a = it->second;
    CaseComparison c;
    c.name = name;
    c.before_us = b.time_us;
    c.after_us = a.time_us;
    c.ratio = b.time_us > 0 ? a.time_us / b.time_us : 0;
    c.noise_us = std::max(spread(b.reps_us), spread(a.reps_us));
    c.unstable = b.unstable() && a.unstable() ? "before and after" : b.unstable() ? "before" : a.unstable() ? "after" : "";
    // An unstable time is in doubt by more than any threshold: neither a regression nor cleared of one.
    c.regression = c.unstable.empty() && c.ratio > 1.0 + threshold && (a.time_us - b.time_us) > c.noise_us;
    out.regressions += c.regression;
    out.unstable += !c.unstable.empty();
    if (c.ratio > 0) log_sum += std::log(c.ratio);
    out.cases.push_back(c);
  }
  for (const auto& [name, a] : after.cases)
    if (a.timed() && !before.cases.count(name)) out.only_after.push_back(name);
  out.geomean_ratio = out.cases.empty() ? 0 : std::exp(log_sum / static_cast<double>(out.cases.size()));
  return out;
}

}  // namespace opmark::aggregate
