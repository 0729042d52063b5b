#pragma once
// The anomaly guard around a case's measurement, apart from the GPU so that it runs on the CPU with a scripted case
// (test/bench/measure_guard_test.cpp): the tuner's probe of the chosen candidate (or the warm-up's estimate) and
// the measured median must agree within kAgreementFactor. If not, the case is prepared (tuned, warmed up) and
// measured once more; if they still disagree, it is unstable, with both numbers. In the burst regime a median that
// agrees but is more than kSlowSpellFactor slower than the probe is measured once more as it is, and the faster of
// the two kept. A case whose burst pauses ran out is unstable too: the time it kept is the throttled GPU's.
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/output/outcome.h"
#include "bench/harness/timing/regime.h"

namespace opmark::bench {

// What the guard needs of a case.
class GuardedCase {
 public:
  virtual ~GuardedCase() = default;
  // One measurement of the case (Measurer::measure on its timer).
  virtual Measurement measure() = 0;
  // After a disagreement: tune again where the case tunes (verifying a new choice), begin and warm up its timer
  // again; returns the new probe.
  virtual double prepare_again() = 0;
};

// Measures `c` into `m` (assigned before a second measure() call, which may read it), updating `probe_s` where the
// case was prepared again; sets m.probe_s and m.first_median_s, and turns `outcome` unstable with the reason where
// the guard or the throttle says so. `min_clock_fraction` is quoted in the throttle's reason.
void measure_with_guard(GuardedCase& c, double& probe_s, Measurement& m, Outcome& outcome, Regime regime,
                        double min_clock_fraction);

}  // namespace opmark::bench
