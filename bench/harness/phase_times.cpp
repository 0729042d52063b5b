#include "bench/harness/phase_times.h"

#include <algorithm>
#include <cstdio>

namespace opmark::bench {

void PhaseTimes::add(const std::string& phase, double seconds) {
  for (auto& [name, s] : phases_)
    if (name == phase) {
      s += seconds;
      return;
    }
  phases_.emplace_back(phase, seconds);
}

std::string PhaseTimes::summary(double total_s) const {
  auto sorted = phases_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [name, s] : sorted) {
    if (!(total_s > 0) || s < 0.01 * total_s) continue;
    char part[160];
    std::snprintf(part, sizeof part, "%s%s %.0f s (%.0f%%)", out.empty() ? "" : ", ", name.c_str(), s,
                  100 * s / total_s);
    out += part;
  }
  return out;
}

}  // namespace opmark::bench
