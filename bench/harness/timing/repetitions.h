#pragma once
// The burst regime's repetition loop, apart from the GPU and the host's clock so that it runs on the CPU with
// scripted samples (test/bench/repetitions_test.cpp): repetitions of timed samples until the stopping rule says
// steady, a sample taken on a throttled GPU dropped and taken again after an idle pause (regime.h). In a
// multi-process run every decision is taken from values all ranks agree on (the mean time, whether any rank
// throttled, the longest time spent), so every rank makes the same samples and the same collective calls.
#include <cstdint>
#include <functional>
#include <vector>

#include "bench/harness/timing/measure.h"
#include "bench/harness/process_group.h"
#include "bench/harness/timing/regime.h"
#include "bench/harness/timing/timer.h"

namespace opmark::bench {

// One repetition: samples (timed batches) until it holds at least the minimum GPU time.
struct Repetition {
  double seconds_per_launch = 0;  // in a multi-process run, the mean over the ranks
  double slowest_rank_seconds_per_launch = 0;
  long long launches = 0;
  double sm_clock_mhz = 0;      // median over its samples (measured on the GPU); 0 unknown
  double min_sm_clock_mhz = 0;  // the slowest of its samples
  std::uint64_t reasons = 0;    // clock-event reasons seen (or'ed)
  int discarded = 0;            // samples dropped (throttled) and taken again after a pause
  double host_seconds = 0;      // wall time of the repetition
};

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual Sample sample() = 0;
};

struct BurstRule {
  StoppingRule stop;
  double min_time_s = 0.005;
  double max_mhz = 0;  // the GPU's maximum SM clock; 0 unknown
  double min_clock_fraction = kMinClockFraction;
  RecoveryRule recovery;
  double rest_s = 0;  // idle before the first sample, which counts as rested if this is a recovery pause's length
};

// The host's clock and sleep (a test scripts both).
struct HostTime {
  std::function<double()> now_s;
  std::function<void(double)> sleep_s;
};
HostTime real_host_time();

struct BurstRepetitions {
  std::vector<Repetition> reps;
  StopReason stop = StopReason::more;
  double recovery_s = 0;
  bool throttled = false;  // the pauses ran out and a throttled sample was kept
  double rested_mhz = 0;
  double fastest_mhz = 0;
};

// `group` null or of one process: no agreement needed.
BurstRepetitions run_burst_repetitions(SampleSource& source, ProcessGroup* group, const BurstRule& rule,
                                       const HostTime& host);

}  // namespace opmark::bench
