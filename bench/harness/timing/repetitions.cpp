#include "bench/harness/timing/repetitions.h"

#include <chrono>
#include <thread>

namespace opmark::bench {

HostTime real_host_time() {
  return {[] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
          },
          [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }};
}

BurstRepetitions run_burst_repetitions(SampleSource& source, ProcessGroup* group, const BurstRule& rule,
                                       const HostTime& host) {
  const bool many = group && group->multi_process();
  BurstRepetitions out;
  Recovery recovery(rule.recovery);
  BurstClock burst(rule.max_mhz, rule.min_clock_fraction);
  bool after_pause = false;
  if (rule.rest_s > 0) {
    host.sleep_s(rule.rest_s);
    after_pause = rule.rest_s >= rule.recovery.first_pause_s;
  }
  const double started = host.now_s();
  std::vector<double> times;
  for (;;) {
    Repetition rep;
    std::vector<double> clocks;
    double timed_s = 0, slowest_s = 0;  // slowest: the slowest rank's, in a multi-process run
    const double rep_start = host.now_s();
    while (rep.launches == 0 || timed_s < rule.min_time_s) {
      const Sample s = source.sample();
      // Every rank reports the mean over the ranks (what nccl-tests reports), so all take the same decisions.
      RankTimes per_launch{s.seconds_per_launch, s.seconds_per_launch};
      if (many) per_launch = summarize_rank_times(group->all_gather(s.seconds_per_launch));
      if (s.clock.sm_mhz > out.fastest_mhz) out.fastest_mhz = s.clock.sm_mhz;
      bool throttled = burst.throttled(s.clock.sm_mhz, s.clock.reasons, after_pause);
      if (many) throttled = group->agree_max(throttled ? 1.0 : 0.0) > 0;
      after_pause = false;
      rep.reasons |= s.clock.reasons;
      if (throttled && !recovery.exhausted()) {
        ++rep.discarded;
        if (const std::optional<double> pause = recovery.after_drop()) {
          host.sleep_s(*pause);
          after_pause = true;
          continue;
        }
      } else if (!throttled) {
        recovery.after_keep();
      }
      if (s.clock.sm_mhz > 0) {
        clocks.push_back(s.clock.sm_mhz);
        if (rep.min_sm_clock_mhz == 0 || s.clock.sm_mhz < rep.min_sm_clock_mhz) rep.min_sm_clock_mhz = s.clock.sm_mhz;
      }
      timed_s += per_launch.mean * s.launches;
      slowest_s += per_launch.max * s.launches;
      rep.launches += s.launches;
    }
    rep.seconds_per_launch = timed_s / static_cast<double>(rep.launches);
    rep.slowest_rank_seconds_per_launch = slowest_s / static_cast<double>(rep.launches);
    rep.sm_clock_mhz = median_of(clocks);
    rep.host_seconds = host.now_s() - rep_start;
    out.reps.push_back(rep);
    times.push_back(rep.seconds_per_launch);
    // The time spent is each rank's own clock: the longest decides, or one rank would stop at the time cap while
    // another takes one more repetition and waits in its collective for ever (issue 36's end-of-run hang).
    double spent = host.now_s() - started;
    if (many) spent = group->agree_max(spent);
    out.stop = stopping_decision(times, spent, rule.stop);
    if (out.stop != StopReason::more) break;
  }
  out.recovery_s = recovery.paused_s();
  out.throttled = recovery.exhausted();
  out.rested_mhz = burst.rested_mhz();
  return out;
}

}  // namespace opmark::bench
