#pragma once
// The one harness every family uses: registers one Google Benchmark case per opmark case, builds, tunes and
// verifies each workload once (outside the timed region), times it (CUDA-graph replays, repeated until steady,
// clocks and energy recorded), guards against anomalies, sets the counters, and is the one place where a case's
// failure is caught and classified. Google Benchmark registers, filters, lists and reports; the measuring is ours.
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/harness/autotune.h"
#include "bench/harness/device_info.h"
#include "bench/harness/energy.h"
#include "bench/harness/gpu_monitor.h"
#include "bench/harness/kernel_trace.h"
#include "bench/harness/measure.h"
#include "bench/harness/options.h"
#include "bench/harness/outcome.h"
#include "bench/harness/peaks.h"
#include "bench/harness/phase_times.h"
#include "bench/harness/repetitions.h"
#include "bench/harness/timer.h"
#include "bench/harness/workload.h"
#include "core/case.h"

namespace opmark::bench {

// Verifies a workload: a wrong result becomes a failed outcome carrying the comparison, never a time. With a
// tuning result, the candidate that computed the wrong result is left out and the next fastest verified, at most
// kMaxVerifyAttempts times in all.
constexpr int kMaxVerifyAttempts = 6;
Outcome verify_workload(Workload& w, cudaStream_t stream, TuningResult* tuning = nullptr);

// Tunes a workload that lists candidates (leaving it on the fastest) and verifies it as above; a workload without
// candidates is only verified. Throws UnsupportedError when every candidate failed to run.
Outcome tune_and_verify(Workload& w, cudaStream_t stream, bool allow_graph, TuningResult* tuning,
                        PhaseTimes* phases = nullptr);

// A multi-process case's outcome, the same on every rank: ok only where every rank's is; otherwise the most severe
// status (failed over skipped) with its rank's reason ("rank 3: wrong result: ..."). One all-gather, and two
// broadcasts when a rank is not ok: every rank must call it at the same point.
Outcome agree_across_ranks(ProcessGroup& group, Outcome mine);

// A per-case seed: the same case gets the same inputs in every run, different cases get different inputs.
std::uint64_t case_seed(std::uint64_t base, const std::string& case_name);

// Throughput counters from a measured time: tflops, gb_per_s and, where a peak is known, pct_peak (compute)
// and pct_peak_bw (memory). Host-only arithmetic, tested on the CPU.
std::map<std::string, double> throughput_counters(const core::Work& work, double seconds_per_op,
                                                  const std::string& precision, const Peaks& peaks);

// Energy counters of a window (energy.h): energy_window_ms, energy_us (time per launch over the window),
// energy_sm_clock_mhz, power_w, joules_per_op = power_w x energy_us (so the two always agree), energy_uncertainty,
// and tflops_per_w (work with FLOPs) or gb_per_s_per_w (memory-bound work). `prefix` names a second set
// ("sustained_": sustained_us, sustained_power_w, ...). Host-only arithmetic, tested on the CPU.
std::map<std::string, double> energy_counters(const core::Work& work, const EnergyWindow& window,
                                              const std::string& prefix = "");

// Why no case of the run traces its kernels (kernel_trace.h), or nullopt where they do: turned off, under a profiler
// (--opmark_profile_launches: it holds CUPTI), in a multi-process run, or CUPTI unavailable. The run's context and
// each case ask the same question here.
std::optional<std::string> kernel_trace_off(const Options& options, bool multi_process);

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

class Harness {
 public:
  // `device` is empty on a machine without a GPU: cases still register (so listing works) but do not run.
  // `group`: the processes of the run (null: this one alone). In a multi-process run every decision taken from a
  // measured time uses the value all ranks agree on, a wrong result on any rank fails the case on all, and an error
  // on any rank stops every rank (the others would wait in the collective forever).
  Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
          ProcessGroup* group = nullptr);
  ~Harness();

  // One RegisterBenchmark per case, manual time, microseconds.
  void register_cases(std::vector<core::Case> cases);

  // After the run: re-times every case that ran (about 10 ms each), measures again the ones that moved more than
  // kAgreementFactor, and marks unstable those whose measurements still disagree. `on_recheck(name)` is called for
  // each case whose record changed, so the results log can append it.
  void recheck(const std::function<void(const std::string&)>& on_recheck);

  const std::vector<core::Case>& cases() const { return cases_; }
  const Peaks& peaks() const { return peaks_; }
  // The outcome and measurement of a case that has run (by case name), or null.
  const Outcome* outcome(const std::string& case_name) const;
  const Measurement* measurement(const std::string& case_name) const;
  const core::Case* find_case(const std::string& case_name) const;
  int count(Status s) const;
  // Where the run's time went so far, phase by phase and per family (phase_times.h); ends the last family's time.
  const PhaseTimes& phase_times() {
    phases_.end_cases();
    return phases_;
  }
  // NVML's readings for the run's context; null without a GPU.
  const GpuMonitor* monitor() const { return monitor_.get(); }

 private:
  struct Prepared;
  void run(benchmark::State& state, std::size_t case_index);
  void report(benchmark::State& state, const std::string& case_name);
  Prepared& prepare(std::size_t case_index);
  std::unique_ptr<Workload> build(const core::Case& c, const std::string& name);
  void tune_and_verify(Prepared& p);
  double probe_of(const Prepared& p, double warm_up_estimate) const;
  std::unique_ptr<Timer> make_timer(Workload& w);
  Measurement measure(Prepared& p);
  void measure_with_guard(Prepared& p);
  void time_eager_and_isolated(Prepared& p);
  void profile(Prepared& p);
  void trace_kernels(Prepared& p);
  Measurement measure_sustained(Prepared& p);
  std::optional<EnergyWindow> sustained_window(const Prepared& p, int windows, double lead_in_s,
                                               std::vector<Repetition>* reps);
  void measure_energy_of(Prepared& p);
  std::map<std::string, double> case_counters(const Prepared& p, const core::Case& c);
  std::string timing_label(const Prepared& p) const;
  cudaStream_t stream();
  double copy_ceiling_gb_per_s();  // measured on first use, once per run

  bool multi_process() const { return group_ && group_->multi_process(); }
  void agree_on_outcome(Outcome* o);
  double agree_mean(double v) const;
  // The maximum over the ranks, as a function for the timer and sample_until (none in one process).
  std::function<double(double)> agreement() const;

  Options options_;
  PhaseTimes phases_;
  ProcessGroup* group_ = nullptr;
  std::optional<DeviceInfo> device_;
  std::string no_device_reason_;
  Peaks peaks_;
  std::vector<core::Case> cases_;
  std::map<std::string, std::size_t> index_by_name_;
  std::map<std::string, Outcome> outcomes_;
  std::map<std::string, Measurement> measurements_;
  std::map<std::string, std::string> pins_;  // --opmark_pin: by case, the candidate to run instead of tuning
  std::map<std::string, std::pair<int, std::string>> chosen_candidate_;  // by case: the candidate it ran (index, name)
  std::set<std::string> reported_;                        // cases measured (or not run) in this process
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<GpuMonitor> monitor_;
  double reference_mhz() const;
  double batch_seconds(const Prepared& p) const;
  double fastest_mhz_ = 0;  // the fastest SM clock measured in this run
  std::optional<double> copy_gb_per_s_;
  std::unique_ptr<Prepared> prepared_;  // the case being run
};

}  // namespace opmark::bench
