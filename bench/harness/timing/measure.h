#pragma once
// The measuring decisions, apart from the GPU so they are tested on the CPU: when to stop repeating and when two
// measurements of one case disagree (a throttled sample's rule is the regime's: regime.h).
#include <cstdint>
#include <string>
#include <vector>

#include "core/run_spec.h"
#include "core/stats.h"

namespace opmark::bench {

// The median and the spread (median absolute deviation over the median), as the checker computes them.
using core::median_of;
using core::relative_spread;

// Repetitions go on until their spread is at most `noise_target`, with at least `min_repetitions`, and stop at
// `max_repetitions` or once the case has spent `time_cap_s` measuring, whichever comes first.
// The defaults are the run's (core/run_spec.h).
struct StoppingRule {
  int min_repetitions = core::kDefaultMinRepetitions;
  int max_repetitions = core::kDefaultMaxRepetitions;
  double noise_target = core::kDefaultNoiseTarget;
  double time_cap_s = core::kDefaultCaseTimeCapSeconds;
};
enum class StopReason { more, steady, max_repetitions, time_cap };
StopReason stopping_decision(const std::vector<double>& repetition_seconds, double spent_s, const StoppingRule& rule);
const char* name_of(StopReason r);

// Two times of the same launch agree when neither is more than `factor` times the other. The harness holds the
// tuner's probe of the chosen candidate against the final median, and the end-of-run re-time against the median.
constexpr double kAgreementFactor = 1.3;
bool times_agree(double a_seconds, double b_seconds, double factor = kAgreementFactor);

// In the burst regime a median this much slower than the probe, where the two otherwise agree, met a slow spell of
// the machine (kernels as long as ever, the gaps between them longer for a fraction of a second): the case is
// measured again at once and the faster median kept. Not in the sustained regime, whose median runs at the power
// limit and the probe does not.
constexpr double kSlowSpellFactor = 1.08;

// Whether eager launches from the host (what an eager framework pays) are slow enough against the graph replay's
// GPU time that the host's launch rate, not the GPU, bounds the case.
constexpr double kLaunchBoundFactor = 1.1;
bool is_launch_bound(double eager_seconds, double graph_seconds);

}  // namespace opmark::bench
