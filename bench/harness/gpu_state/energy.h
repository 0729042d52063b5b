#pragma once
// Energy per launch from NVML's energy counter, over a window of back-to-back batches bounded by two of the
// counter's own updates. Each update is seen only between two NVML calls some milliseconds apart, but the counter
// steps on a fixed period, which a run learns once from a second of steps. A window of whole steps then lasts that
// many periods, known to the steps' own jitter rather than to the calls around its two ends (docs/regimes.md).
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/run_spec.h"

namespace opmark::bench {

class GpuMonitor;
class Timer;

// The least energy window: one step of the counter (about 100 ms on an H100). A window is a whole number of steps,
// the least that lasts min_window_s less a twentieth of a step (so 0.1 s is one step of 100 ms, 1 s is ten).
constexpr double kDefaultEnergyWindowSeconds = core::kDefaultEnergyWindowSeconds;
// How far a window of whole steps strays from that many periods: two standard deviations of its length, from the
// spread of one- and two-step energies at constant idle power (docs/regimes.md).
constexpr double kCounterStepJitterSeconds = 1.4e-3;
// A step seen between two calls further apart than this (a stalled call) does not place it well enough to time the
// period with.
constexpr double kMaxStepBracketSeconds = 10e-3;
// The calibration: how long the counter is read, and the least number of steps that fix its period.
constexpr double kCounterCalibrationSeconds = 1.25;
constexpr int kMinCalibrationSteps = 8;
// The power a case may show over the enforced limit: the limit is a controller's average over longer than a case's
// window. On an H100 (700 W) the 0.2 s windows of the v5 submission suite drew up to 844 W (1.21x; 836 W at 3%
// uncertainty) right after their burst samples; sustained windows of 1 s drew 690-701 W.
constexpr double kPowerMargin = 0.25;
// A window that drew more than the limit and its margin caught the limiter's first response to a heavy load: it
// starts again at its last step and lasts at least this long (docs/regimes.md has the numbers).
constexpr double kOverLimitEnergyWindowSeconds = 0.25;

// The power over which a window of `min_window_s` starts again: the limit and its margin, or, for launches of
// kHeavyMinLaunchSeconds or more in a window shorter than kOverLimitEnergyWindowSeconds, the enforced limit itself.
// Such a window drawing more than the limit is the limiter's lead-in: an H200's bf16 8192^3 drew 837 W at 1402 MHz
// over its one step, +11.8% J/op against a 2 s window at 696 W. Not where `sustained_follows`: a heavy case's
// energy then comes from its sustained windows, and restarting its burst window would only cost time. Infinite
// without a known limit.
double restart_watts(std::optional<double> limit_watts, double seconds_per_launch, double min_window_s,
                     bool sustained_follows = false);

// One read of the counter: when the call began and ended (host seconds) and what it returned (millijoules).
struct EnergyPoll {
  double begin_s = 0, end_s = 0;
  unsigned long long millijoules = 0;
};

// One step of the counter: between two calls (at_s, the middle, give or take half_width_s), to `millijoules`.
struct EnergyStep {
  double at_s = 0, half_width_s = 0;
  unsigned long long millijoules = 0;
};

// The counter's period, fitted to steps seen back to back.
struct CounterPeriod {
  double period_s = 0;
  double sd_s = 0;  // the fit's standard error
  int steps = 0;
};

// The period from consecutive steps (their midpoints, those of narrow brackets only); nullopt with fewer than
// kMinCalibrationSteps, or a step whose midpoint strays from the fit by more than its bracket and the jitter.
std::optional<CounterPeriod> fit_counter_period(const std::vector<EnergyStep>& steps);

// Finds the window in a stream of polls: from the first counter step to the first step at least `min_window_s`
// later. With the counter's period known, the window is the least whole number of periods that lasts min_window_s
// less a twentieth of a period, and lasts exactly that many periods; without it, from one step's midpoint to the
// other's. Host-only, tested on the CPU.
class EnergyEdges {
 public:
  // A window that would end over `over_watts` starts again at that step and lasts kOverLimitEnergyWindowSeconds
  // (once: the second window ends as it is).
  explicit EnergyEdges(double min_window_s, std::optional<CounterPeriod> period = std::nullopt,
                       double over_watts = std::numeric_limits<double>::infinity())
      : min_window_s_(min_window_s), period_(period), over_watts_(over_watts) {}
  // Adds the next poll; true once the window is complete.
  bool add(const EnergyPoll& p);
  bool complete() const { return complete_; }
  double window_s() const;
  double joules() const { return static_cast<double>(last_.millijoules - first_.millijoules) * 1e-3; }
  // Relative uncertainty of joules() over window_s(): the period's (its fit and the steps' jitter) or, without it,
  // where each step fell between two polls; and the counter's resolution (1 mJ).
  double uncertainty() const;
  // The window was timed by the counter's period (else by the calls around its ends).
  bool by_period() const { return complete_ && periods_ > 0; }
  int periods() const { return periods_; }
  // Every step seen so far, in order.
  const std::vector<EnergyStep>& steps() const { return steps_; }

 private:
  // The whole periods between the first step and `s`, where they fit the calls around both; 0 where they do not.
  int periods_to(const EnergyStep& s) const;
  // Ends the window at `s` (`periods` of the counter, or 0), unless it would end over over_watts_ for the first
  // time; true when it ended.
  bool end_at(const EnergyStep& s, int periods);
  bool restarted_ = false;
  double min_window_s_;
  std::optional<CounterPeriod> period_;
  double over_watts_;
  bool have_previous_ = false, have_first_ = false, complete_ = false;
  int periods_ = 0;
  EnergyPoll previous_;
  EnergyStep first_, last_;
  std::vector<EnergyStep> steps_;
};

struct EnergyWindow {
  double window_s = 0;            // between the two counter steps that bound it
  double joules = 0;              // over window_s
  double uncertainty = 0;         // relative, of joules (and so of power and joules per launch)
  int periods = 0;                // whole periods of the counter the window lasted, where timed by its period
  double seconds_per_launch = 0;  // GPU time per launch over the batches that ran (events around all of them)
  long long launches = 0;
  double sm_mhz = 0;              // mean SM clock over the batches (measured on the GPU)
  std::uint64_t reasons = 0;      // NVML's clock-event reasons at the end of the window
  double power_w() const { return window_s > 0 ? joules / window_s : 0; }
  // Power times time per launch: energy per launch at the rate the window ran.
  double joules_per_launch() const { return power_w() * seconds_per_launch; }
};

// Reads the counter for kCounterCalibrationSeconds and fits its period; nullopt without a counter, or where the
// steps do not keep one period.
std::optional<CounterPeriod> calibrate_counter_period(const GpuMonitor& monitor);

// Runs `timer`'s batches (each about `batch_seconds` of GPU time) back to back, with 20 ms of work kept queued so
// the GPU never idles inside the window, for `lead_in_s` first, then until the window is complete (timed by
// `period` where known; started again once where it drew over `over_watts`, as EnergyEdges says). Nullopt where
// there is no counter or it does not move within a second past the window.
std::optional<EnergyWindow> measure_energy(Timer& timer, double batch_seconds, double min_window_s,
                                           double lead_in_s = 0,
                                           std::optional<CounterPeriod> period = std::nullopt,
                                           double over_watts = std::numeric_limits<double>::infinity());

}  // namespace opmark::bench
