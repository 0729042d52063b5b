#pragma once
// The one measuring entry point of a run: every case, spmm's dense product and the copy ceiling are timed here, so
// --opmark_l2, the regime, the stopping rule and the throttle retake apply to all of them alike.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/timing/kernel_trace.h"
#include "bench/harness/timing/measure.h"
#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "bench/harness/timing/repetitions.h"
#include "bench/harness/timing/timer.h"
#include "bench/harness/cases/workload.h"

namespace opmark::bench {

// Sustained: how long a case runs before its windows (an H100 at its power limit settles within 0.3 s), and how
// many windows of at least kSustainedWindowSeconds are timed: two in the sustained regime (its repetitions), one
// beside a heavy case's burst time. There the energy window (0.2-0.3 s of the same launches back to back) has just
// run, so a shorter lead-in brings the load to the same 0.3 s and more.
constexpr double kSustainedLeadInSeconds = 0.5;
constexpr double kSustainedLeadInBesideBurstSeconds = 0.1;
constexpr double kSustainedWindowSeconds = 1.0;
constexpr int kSustainedWindows = 2;
constexpr int kSustainedWindowsBesideBurst = 1;

// Everything measured for a case: what the results log writes.
struct Measurement {
  std::vector<Repetition> reps;
  double median_s = 0, mean_s = 0, noise = 0;
  StopReason stop = StopReason::more;
  double probe_s = 0;           // the tuner's time of the chosen candidate, or the warm-up's estimate
  double eager_s = 0;
  double isolated_s = 0;        // each launch timed alone (no overlap with the next): what a profiler sees
  double serial_s = 0;          // back-to-back replays with no early start (programmatic edges made full ones)
  KernelSummary kernels;        // the launch's kernels and their own durations (CUPTI), where traced
  double recovery_s = 0;        // burst: idle pauses taken for the clock to come back
  bool throttled = false;       // burst: the pauses ran out and a throttled sample was kept
  double rested_mhz = 0;        // burst: the best clock the case ran at rested (regime.h)
  std::optional<EnergyWindow> energy;     // the energy window (burst), or the sustained windows together
  std::optional<EnergyWindow> sustained;  // a heavy case's sustained measurement (burst runs)
  double first_median_s = 0;    // when the guard measured again: the first measurement's median
  double recheck_s = 0;         // the end-of-run re-time
  double remeasured_s = 0;      // after a re-time that moved: the case measured again
  std::vector<double> recheck_reps_s;  // the repetitions of that measurement
};

// The repetitions' times per launch, in order.
std::vector<double> repetition_seconds(const Measurement& m);

// The median, mean and noise of a measurement's repetitions.
void summarize_repetitions(Measurement& m);

// A burst measurement from the repetition loop's result (repetitions.h), summarized.
Measurement measurement_of(BurstRepetitions r);

// "12.5 us" and "1.42x" (the larger over the smaller), as the guard's and the re-time's reasons quote times.
std::string us_text(double seconds);
std::string ratio_text(double a, double b);

// A timer's batches as the repetition loop's samples.
struct TimerSource final : SampleSource {
  explicit TimerSource(Timer& t) : timer(t) {}
  Sample sample() override { return timer.sample(); }
  Timer& timer;
};

class Measurer {
 public:
  // `monitor` may be null (no clock readings, no energy); `group` null or of one process: no agreement needed.
  // `options` must outlive the measurer.
  Measurer(const Options& options, const GpuMonitor* monitor, ProcessGroup* group);

  // A timer begun on `w`: the run's L2 mode and timing mode, NVML's readings, and in a multi-process run the
  // decisions taken from the maximum over the ranks.
  std::unique_ptr<Timer> timer_for(Workload& w, cudaStream_t stream) const;

  // The run's regime over `timer`'s batches. Burst: repetitions until the stopping rule says steady (or the cap), a
  // sample whose clock was down dropped and taken again after an idle pause (regime.h); once the pauses run out the
  // case keeps what it measured and is marked throttled. Sustained: the energy windows are the repetitions.
  // `per_launch_s`: about how long one launch takes (it sizes the sustained windows' batches).
  Measurement measure(Timer& timer, double per_launch_s);

  // A timer, its warm-up and measure() in one: for what is timed beside the cases (spmm's dense product, the copy
  // ceiling), so that it is measured as a case is.
  Measurement measure_alone(Workload& w, cudaStream_t stream);

  // `windows` energy windows of at least kSustainedWindowSeconds each, back to back, after `lead_in_s` for the GPU
  // to settle at its power limit; nullopt without NVML's energy counter, or in a multi-process run (each rank's
  // window would end at its own counter step). Each window is also one repetition, appended to `reps`.
  std::optional<EnergyWindow> sustained_window(Timer& timer, double batch_s, int windows, double lead_in_s,
                                               std::vector<Repetition>* reps);

  // One energy window of at least `min_window_s` over `timer`'s batches (energy.h), timed by the counter's period,
  // which the run's first window calibrates; nullopt without NVML's energy counter.
  std::optional<EnergyWindow> energy_window(Timer& timer, double batch_s, double min_window_s, double lead_in_s = 0);

  // The clock a burst sample is held to: NVML's maximum, else the fastest measured in this run.
  double reference_mhz() const;
  // The maximum over the ranks, as a function for the timer and sample_until (none in one process).
  std::function<double(double)> agreement() const;
  bool multi_process() const { return group_ && group_->multi_process(); }

 private:
  const Options& options_;
  const GpuMonitor* monitor_;
  ProcessGroup* group_;
  double fastest_mhz_ = 0;  // the fastest SM clock measured in this run
  // Read once, with the run's first energy window: the counter's period, and the enforced power limit a window is
  // held to (restart_watts; the context records the limit once too).
  bool calibrated_ = false;
  std::optional<CounterPeriod> counter_period_;
  std::optional<double> limit_watts_;
};

}  // namespace opmark::bench
