#include "bench/harness/timing/regime.h"

#include <algorithm>

#include "bench/harness/gpu_state/gpu_monitor.h"

namespace opmark::bench {

bool BurstClock::throttled(double sample_mhz, std::uint64_t reasons, bool after_pause) {
  if (reasons & clock_event::transient) return true;
  if (!(sample_mhz > 0) || !(max_mhz_ > 0)) return false;
  // A sample right after an idle pause is the clock the GPU gives this case from rest, the latest such one: one
  // that once ran faster must not hold every later one to its clock.
  if (after_pause) {
    rested_mhz_ = sample_mhz;
    return false;
  }
  if (sample_mhz >= fraction_ * max_mhz_) {
    rested_mhz_ = std::max(rested_mhz_, sample_mhz);
    return false;
  }
  return !(rested_mhz_ > 0) || sample_mhz < (1 - kRestedClockTolerance) * rested_mhz_;
}

std::optional<double> Recovery::after_drop() {
  ++drops_;
  next_pause_s_ = next_pause_s_ > 0 ? std::min(2 * next_pause_s_, rule_.max_pause_s) : rule_.first_pause_s;
  if (drops_ > rule_.max_drops || paused_s_ + next_pause_s_ > rule_.budget_s) {
    exhausted_ = true;
    return std::nullopt;
  }
  paused_s_ += next_pause_s_;
  return next_pause_s_;
}

bool is_heavy(double burst_mhz, double window_mhz, std::uint64_t window_reasons, double seconds_per_launch) {
  if (!(seconds_per_launch >= kHeavyMinLaunchSeconds)) return false;
  if (window_reasons & clock_event::sw_power_cap) return true;
  return burst_mhz > 0 && window_mhz > 0 && window_mhz < kHeavyClockDrop * burst_mhz;
}

}  // namespace opmark::bench
