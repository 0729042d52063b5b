#pragma once
// The one harness every family uses: registers one Google Benchmark case per opmark case, builds, tunes and
// verifies each workload once (outside the timed region), times it (CUDA-graph replays, repeated until steady,
// clocks and energy recorded), guards against anomalies, sets the counters, and is the one place where a case's
// failure is caught and classified. Google Benchmark registers, filters, lists and reports; the measuring is ours.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/harness/timing/after_measure.h"
#include "bench/harness/tuning/autotune.h"
#include "bench/harness/output/case_record.h"
#include "bench/harness/output/counters.h"
#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/timing/kernel_trace.h"
#include "bench/harness/timing/measure.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/options.h"
#include "bench/harness/output/outcome.h"
#include "bench/harness/gpu_state/peaks.h"
#include "bench/harness/output/phase_times.h"
#include "bench/harness/cases/registry.h"
#include "bench/harness/timing/repetitions.h"
#include "bench/harness/timing/timer.h"
#include "bench/harness/cases/verify.h"
#include "bench/harness/cases/workload.h"
#include "core/case.h"
#include "core/result_record.h"

namespace opmark::bench {

// A per-case seed: the same case gets the same inputs in every run, different cases get different inputs.
std::uint64_t case_seed(std::uint64_t base, const std::string& case_name);

class Harness {
 public:
  // `device` is empty on a machine without a GPU: cases still register (so listing works) but do not run.
  // `group`: the processes of the run (null: this one alone). In a multi-process run every decision taken from a
  // measured time uses the value all ranks agree on, a wrong result on any rank fails the case on all, and an error
  // on any rank stops every rank (the others would wait in the collective forever).
  // `workloads`: the families this build runs (main passes the bench list's); null runs no case (a test that only
  // lists or reports). It must outlive the harness.
  Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
          ProcessGroup* group = nullptr, const WorkloadRegistry* workloads = nullptr);
  ~Harness();

  // One RegisterBenchmark per case, manual time, microseconds.
  void register_cases(std::vector<core::Case> cases);

  // Where each case's record goes as the case finishes, and again after its end-of-run re-time (null: nowhere).
  // It must outlive the run.
  void set_case_sink(CaseSink* sink) { sink_ = sink; }

  // After the run: re-times every case that ran (about 10 ms each), measures again the ones that moved more than
  // kAgreementFactor, and marks unstable those whose measurements still disagree. Each re-timed case's record goes
  // to the sink.
  void recheck();

  // A case the run this one resumes measured in full but did not re-time (core/resume.h's to_retime): it joins the
  // end-of-run re-time from its median line (time, counters, label, verification, kernels), and is not measured
  // again. Call after register_cases.
  void restore_for_retime(core::Case c, const core::ResultRecord& median);
  // The cases Google Benchmark runs (register_cases'), not those restored for the re-time.
  std::size_t registered() const { return registered_; }

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
  // A case built, tuned, verified and warmed up, then measured.
  // A case built, tuned, verified and warmed up, then measured.
  struct Prepared {
    std::string name;
    std::unique_ptr<Workload> workload;
    std::unique_ptr<Timer> timer;
    core::Work work;
    bool tunable = false;
    bool pinned = false;  // the candidate came from --opmark_pin, not from tuning
    TuningResult tuning;
    double probe_s = 0;
    Measurement m;
    Outcome outcome;
  };

  void run(benchmark::State& state, std::size_t case_index);
  // The case's record as it stands: its outcome and, where it was timed, its measurement.
  CaseRecord record_of(std::size_t case_index) const;
  void report(benchmark::State& state, const std::string& case_name);
  Prepared& prepare(std::size_t case_index);
  // `only_candidate`: the re-time's candidate (workload.h's RunContext::only_candidate), or empty.
  std::unique_ptr<Workload> build(const core::Case& c, const std::string& name, const std::string& only_candidate = {});
  void tune_and_verify(Prepared& p);
  double probe_of(const Prepared& p, double warm_up_estimate) const;
  void measure_with_guard(Prepared& p);
  void measure_energy_of(Prepared& p);
  std::map<std::string, double> case_counters(const Prepared& p, const core::Case& c);
  cudaStream_t stream();
  double copy_ceiling_gb_per_s();  // measured on first use, once per run

  bool multi_process() const { return group_ && group_->multi_process(); }
  void agree_on_outcome(Outcome* o);

  Options options_;
  PhaseTimes phases_;
  ProcessGroup* group_ = nullptr;
  const WorkloadRegistry* workloads_ = nullptr;
  std::optional<DeviceInfo> device_;
  std::string no_device_reason_;
  Peaks peaks_;
  std::vector<core::Case> cases_;
  std::size_t registered_ = 0;
  std::map<std::string, std::size_t> index_by_name_;
  std::map<std::string, Outcome> outcomes_;
  std::map<std::string, Measurement> measurements_;
  std::map<std::string, std::string> pins_;  // --opmark_pin: by case, the candidate to run instead of tuning
  std::map<std::string, std::string> chosen_candidate_;  // by case: the name of the candidate it ran
  std::set<std::string> reported_;                        // cases measured (or not run) in this process
  CaseSink* sink_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<GpuMonitor> monitor_;
  std::unique_ptr<Measurer> measurer_;  // every timing of the run: its cases, the copy ceiling, the re-time
  // About how long one of the case's batches runs: the probe's time per launch (or the median's, once measured).
  double per_launch_estimate(const Prepared& p) const;
  std::optional<double> copy_gb_per_s_;
  std::unique_ptr<Prepared> prepared_;  // the case being run
};

}  // namespace opmark::bench
