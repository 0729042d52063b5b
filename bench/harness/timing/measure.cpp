#include "bench/harness/timing/measure.h"

#include <algorithm>
#include <cmath>

#include "bench/harness/gpu_state/gpu_monitor.h"

namespace opmark::bench {

StopReason stopping_decision(const std::vector<double>& reps, double spent_s, const StoppingRule& rule) {
  const int n = static_cast<int>(reps.size());
  if (n >= rule.min_repetitions && relative_spread(reps) <= rule.noise_target) return StopReason::steady;
  if (n >= std::max(rule.max_repetitions, 1)) return StopReason::max_repetitions;
  // The cap never cuts a case below its minimum: three repetitions are what the median and spread need.
  if (n >= rule.min_repetitions && spent_s >= rule.time_cap_s) return StopReason::time_cap;
  return StopReason::more;
}

const char* name_of(StopReason r) {
  switch (r) {
    case StopReason::more: return "more";
    case StopReason::steady: return "steady";
    case StopReason::max_repetitions: return "max_repetitions";
    case StopReason::time_cap: return "time_cap";
  }
  return "?";
}

bool times_agree(double a, double b, double factor) {
  if (!(a > 0) || !(b > 0)) return true;  // nothing to hold against
  return std::max(a, b) <= factor * std::min(a, b);
}

bool is_launch_bound(double eager_seconds, double graph_seconds) {
  return eager_seconds > 0 && graph_seconds > 0 && eager_seconds > kLaunchBoundFactor * graph_seconds;
}

}  // namespace opmark::bench
