#include "aggregate/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/counters.h"
#include "core/stats.h"

namespace opmark::aggregate {

namespace counter = core::counter;

const char* name_of(Verdict v) {
  switch (v) {
    case Verdict::slower: return "slower";
    case Verdict::faster: return "faster";
    case Verdict::unclear: return "unclear";
    case Verdict::same: break;
  }
  return "same";
}

RunNoise run_noise_of(const CaseResult& r) {
  const auto usable = [](double v) { return std::isfinite(v) && v >= 0; };
  if (r.has_counter(counter::run_noise) && usable(r.counter(counter::run_noise)))
    return {r.counter(counter::run_noise), counter::run_noise};
  const double recheck = r.counter(counter::recheck_us, -1);
  if (recheck > 0 && r.time_us > 0) return {std::abs(recheck - r.time_us) / r.time_us, "re-time"};
  if (r.has_counter(counter::noise) && usable(r.counter(counter::noise)))
    return {r.counter(counter::noise), "repetitions"};
  if (r.reps_us.size() >= 2) return {core::relative_spread(r.reps_us), "repetitions"};
  return {-1, "none"};
}

namespace {

std::string percent(double fraction, bool sign = false) {
  char text[48];
  std::snprintf(text, sizeof text, sign ? "%+.2f%%" : "%.2f%%", 100 * fraction);
  return text;
}

// "1.20% (run_noise)", or where the floor replaced a smaller measure "1.00% (re-time 0.31%, floored)".
std::string noise_text(const RunNoise& n) {
  if (n.measured < 0) return percent(n.used()) + " (floor: none recorded)";
  if (n.measured < kNoiseFloor) return percent(n.used()) + " (" + n.source + " " + percent(n.measured) + ", floored)";
  return percent(n.used()) + " (" + n.source + ")";
}

bool compute_bound(const CaseResult& r) {
  return r.counter(counter::flops) > 0 && r.has_counter(counter::pct_peak) &&
         r.counter(counter::pct_peak) >= r.counter(counter::pct_peak_bw);
}

// same within the least change called, slower or faster beyond the limit, unclear between. Symmetric in log space:
// a ratio r and 1/r are changes of the same size.
Verdict verdict_on(double ratio, double change_floor, double limit) {
  const double size = std::exp(std::abs(std::log(ratio))) - 1;
  if (size <= change_floor) return Verdict::same;
  if (size <= limit) return Verdict::unclear;
  return ratio > 1 ? Verdict::slower : Verdict::faster;
}

}  // namespace

CaseVerdict case_verdict(const CaseResult& before, const CaseResult& after, double change_floor) {
  CaseVerdict v;
  v.noise_before = run_noise_of(before);
  v.noise_after = run_noise_of(after);
  v.clock_before = before.counter(counter::sm_clock_mhz);
  v.clock_after = after.counter(counter::sm_clock_mhz);
  v.basis = "time";
  if (!(before.time_us > 0 && after.time_us > 0)) {
    v.detail = "unclear: a run has no time for the case";
    return v;
  }
  v.time_ratio = v.ratio = after.time_us / before.time_us;
  const double a = v.noise_before.used(), b = v.noise_after.used();
  v.limit = std::max(change_floor, kNoiseMultiple * std::sqrt(a * a + b * b));
  char multiple[16];
  std::snprintf(multiple, sizeof multiple, "%g", kNoiseMultiple);
  const std::string limit_text = "the limit " + percent(v.limit) + " (" + multiple + " x the run-to-run noise " +
                                 noise_text(v.noise_before) + " before and " + noise_text(v.noise_after) +
                                 " after, combined; at least " + percent(change_floor) + ")";
  const bool clocks_differ = v.clock_before > 0 && v.clock_after > 0 &&
                             std::abs(v.clock_after / v.clock_before - 1) > kClockTolerance;
  char clocks[64];
  std::snprintf(clocks, sizeof clocks, "SM clock %.0f -> %.0f MHz", v.clock_before, v.clock_after);
  std::string change = percent(v.time_ratio - 1, true) + " in time";
  if (clocks_differ && compute_bound(before) && compute_bound(after)) {
    v.basis = "cycles";
    v.ratio = v.time_ratio * v.clock_after / v.clock_before;
    change += " and " + percent(v.ratio - 1, true) + " in cycles (compute bound, " + clocks + ")";
  } else if (clocks_differ) {
    change += " (memory bound: the " + std::string(clocks) + " does not set it)";
  }
  if (before.unstable() || after.unstable()) {
    v.verdict = Verdict::unclear;
    v.detail = std::string("unclear: measured unstable ") +
               (before.unstable() && after.unstable() ? "before and after" : before.unstable() ? "before" : "after") +
               " (" + change + ")";
    return v;
  }
  const Verdict by_time = verdict_on(v.time_ratio, change_floor, v.limit);
  const Verdict by_cycles = v.basis == "cycles" ? verdict_on(v.ratio, change_floor, v.limit) : by_time;
  // As nvbench's comparison does, a verdict in time stands only where the cycles confirm it: a compute-bound case
  // whose time changed with its clock is not called faster or slower, nor the same where its cycles changed.
  v.verdict = by_time == by_cycles ? by_time : Verdict::unclear;
  const std::string said = v.basis == "cycles" && by_time != by_cycles
                               ? std::string(": time and cycles disagree (") + name_of(by_time) + " in time, " +
                                     name_of(by_cycles) + " in cycles)"
                               : "";
  switch (v.verdict) {
    case Verdict::same: v.detail = "same: " + change + ", within the least change called, " + percent(change_floor); break;
    case Verdict::slower:
    case Verdict::faster: v.detail = std::string(name_of(v.verdict)) + ": " + change + ", beyond " + limit_text; break;
    case Verdict::unclear:
      v.detail = "unclear" + said + ": " + change + (said.empty() ? ", within " : "; ") + limit_text;
      break;
  }
  return v;
}

}  // namespace opmark::aggregate
