#pragma once
// The regime a time belongs to, and the host-only rules each regime measures by (tested on the CPU).
// - burst: what PyTorch, nvbench and a user's short benchmark see. Repetitions are short, a sample whose SM clock
//   was down is dropped, and the GPU is left idle until its clock is back before the next one.
// - sustained: what a training loop sees. The case runs until the GPU settles at its power limit, then windows of
//   at least a second are timed with their clock, power and energy.
#include <cstdint>
#include <optional>
#include <string>

#include "core/run_modes.h"
#include "core/run_spec.h"

namespace opmark::bench {

using core::name_of;
using core::parse_regime;
using core::Regime;

// Burst: which samples keep the clock a rested GPU runs the case at. On an H100 with random inputs a heavy
// tensor-core kernel runs under the software power cap from its first millisecond (bf16 8192^3: 1518-1525 MHz in
// 1 ms samples taken after 0.5 s idle, sw_power_cap set), so neither the flag nor the GPU's maximum clock can be the
// test. A sample is dropped when NVML reports a thermal or hardware slowdown, or when its SM clock (measured on the
// GPU over the sample) is under `min_clock_fraction` of the GPU's maximum and more than kRestedClockTolerance under
// the clock the case runs at rested (3% ran a 20 us GEMM out of pauses: its clock moved 1770-1834 MHz): the
// latest sample after an idle pause, or the best sample at or over the fraction.
// Until the case has such a sample, one under the fraction is dropped so that the GPU idles first. A sample right
// after a pause is never dropped for its clock, and the latest one is the rested clock: an H100 once ran a 6 us GEMM
// at 1859 MHz right after a pause, and at 1754-1759 after every pause since.
constexpr double kMinClockFraction = core::kDefaultMinClockFraction;
constexpr double kRestedClockTolerance = 0.05;
class BurstClock {
 public:
  BurstClock(double max_mhz, double min_clock_fraction = kMinClockFraction)
      : max_mhz_(max_mhz), fraction_(min_clock_fraction) {}
  // Whether to drop a sample; `after_pause`: the GPU idled right before it. An unknown clock (0) or maximum drops a
  // sample only on a reason.
  bool throttled(double sample_mhz, std::uint64_t reasons, bool after_pause);
  double rested_mhz() const { return rested_mhz_; }

 private:
  double max_mhz_, fraction_;
  double rested_mhz_ = 0;
};

// After a dropped sample the GPU idles before the next: first_pause_s, doubling while samples stay throttled, at
// most max_pause_s a pause; a case gives up (its status says "throttled") once it has paused budget_s in all or
// dropped max_drops samples. Measured on an H100 after a second at the power limit (bf16 8192^3 GEMM): 50 ms of
// idling gives back 1800 MHz, 200 ms 1965 MHz, 500 ms the full 1980 MHz.
struct RecoveryRule {
  double first_pause_s = 0.05;
  double max_pause_s = 0.5;
  double budget_s = 5.0;
  int max_drops = 40;
};

class Recovery {
 public:
  explicit Recovery(RecoveryRule rule = {}) : rule_(rule) {}
  // A sample was dropped: the pause to take before the next, or nullopt when the case's bound is spent.
  std::optional<double> after_drop();
  // A sample was kept: the next drop starts again from the first pause.
  void after_keep() { next_pause_s_ = 0; }
  int drops() const { return drops_; }
  double paused_s() const { return paused_s_; }
  bool exhausted() const { return exhausted_; }

 private:
  RecoveryRule rule_;
  double next_pause_s_ = 0;
  double paused_s_ = 0;
  int drops_ = 0;
  bool exhausted_ = false;
};

// A case is heavy (its burst time is not what a long run sees, so it also gets a sustained measurement) when its
// energy window, a tenth of a second or more of back-to-back launches, ran under the software power cap or at a
// clock kHeavyClockDrop under its burst clock, and a launch lasts kHeavyMinLaunchSeconds or more. On an H100 most
// GEMMs from 12 us up run under the cap (46 of the 85 GEMM inference cases), and a sustained measurement of each
// would double a suite's time; the largest cases, which a training step spends its time in, keep it.
constexpr double kHeavyClockDrop = 0.97;
constexpr double kHeavyMinLaunchSeconds = 200e-6;
bool is_heavy(double burst_mhz, double window_mhz, std::uint64_t window_reasons, double seconds_per_launch);

}  // namespace opmark::bench
