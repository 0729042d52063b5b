#include "bench/harness/timing/measure_guard.h"

#include <cstdio>

#include "bench/harness/timing/regime.h"
#include "core/stats.h"

namespace opmark::bench {
namespace {

double repetition_span(const Measurement& m) { return core::span_of(repetition_seconds(m)); }
// Whether the repetitions span no more than the checker allows for their spread (core::allowed_span).
bool steady(const Measurement& m) { return repetition_span(m) <= core::allowed_span(m.noise); }

}  // namespace

void measure_with_guard(GuardedCase& c, double& probe_s, Measurement& m, Outcome& outcome, Regime regime,
                        double min_clock_fraction) {
  m = c.measure();
  const double first_span = repetition_span(m);
  const bool agree = times_agree(probe_s, m.median_s), first_steady = steady(m);
  if (agree && first_steady && regime == Regime::burst && m.median_s > probe_s * kSlowSpellFactor) {
    // No new tuning: the candidate was not in question, and choosing again could change it.
    const double first_median = m.median_s;
    Measurement again = c.measure();
    if (steady(again) && again.median_s < first_median) m = std::move(again);
    m.first_median_s = first_median;
  } else if (!agree || !first_steady) {
    const double first_probe = probe_s, first_median = m.median_s;
    probe_s = c.prepare_again();
    m = c.measure();
    m.first_median_s = first_median;
    // The checker rejects an ok case whose repetitions span more than their spread allows: measured twice, it is
    // unstable.
    if (!steady(m)) {
      outcome.status = Status::unstable;
      outcome.reason = "the repetitions spread: the slowest " + ratio_text(repetition_span(m), 1) +
                       " the fastest (first " + ratio_text(first_span, 1) +
                       "), more than four times their spread allows";
    } else if (!times_agree(probe_s, m.median_s)) {
      outcome.status = Status::unstable;
      outcome.reason = "the probe and the median disagree twice: probe " + us_text(first_probe) + " vs median " +
                       us_text(first_median) + " (" + ratio_text(first_probe, first_median) + "), then probe " +
                       us_text(probe_s) + " vs median " + us_text(m.median_s) + " (" +
                       ratio_text(probe_s, m.median_s) + ")";
    }
  }
  m.probe_s = probe_s;
  if (m.throttled && outcome.status == Status::ok) {
    outcome.status = Status::unstable;
    char why[256];
    std::snprintf(why, sizeof why,
                  "throttled: no sample within %.0f%% of the %.0f MHz the case ran at rested, nor at %.0f%% of the "
                  "maximum clock, after %.2f s of pauses; the time kept is the GPU's throttled one",
                  kRestedClockTolerance * 100, m.rested_mhz, min_clock_fraction * 100, m.recovery_s);
    outcome.reason = why;
  }
}

}  // namespace opmark::bench
