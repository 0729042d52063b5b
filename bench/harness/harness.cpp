#include "bench/harness/harness.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "bench/harness/gpu_state/copy_ceiling.h"
#include "bench/harness/gpu_state/topology.h"
#include "bench/harness/timing/measure_guard.h"
#include "bench/harness/tuning/pins.h"
#include "bench/harness/tuning/tuning_report.h"
#include "core/precision.h"
#include "core/schema.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {
namespace {

// Google Benchmark 1.8 can mark a run skipped; 1.7 only has errors. A skipped case is never a failure of the run:
// opmark's own exit status and results log say which is which.
template <class S>
auto skip_impl(S& state, const std::string& message, int) -> decltype(state.SkipWithMessage(message), void()) {
  state.SkipWithMessage(message);
}
template <class S>
void skip_impl(S& state, const std::string& message, long) {
  state.SkipWithError(message.c_str());
}

void report_not_run(benchmark::State& state, const Outcome& o) {
  if (o.status == Status::skipped) skip_impl(state, "SKIPPED " + o.reason, 0);
  else state.SkipWithError(("FAILED " + o.reason).c_str());
}

// The datasheet's peaks with the user's overrides, and where several GPUs are visible, their NVLink links'.
Peaks peaks_of(const std::optional<DeviceInfo>& device, const std::map<std::string, double>& overrides) {
  int visible = 0;
  if (!device || cudaGetDeviceCount(&visible) != cudaSuccess || visible < 2)
    return resolve_peaks(device ? device->name : "", overrides);
  const core::NvlinkPeak link = visible_nvlink_peak(visible, device->compute_capability);
  return resolve_peaks(device->name, overrides, link.gb_per_s, link.text);
}

}  // namespace

std::uint64_t case_seed(std::uint64_t base, const std::string& case_name) {
  std::uint64_t h = 1469598103934665603ull ^ base;  // FNV-1a
  for (unsigned char ch : case_name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

Harness::Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
                 ProcessGroup* group, const WorkloadRegistry* workloads)
    : options_(std::move(options)),
      group_(group),
      workloads_(workloads),
      device_(std::move(device)),
      no_device_reason_(std::move(no_device_reason)),
      peaks_(peaks_of(device_, options_.peaks)) {
  if (!options_.pin_path.empty()) pins_ = read_pins(options_.pin_path);
  if (device_) {
    int current = 0;
    OPMARK_CHECK_CUDA(cudaGetDevice(&current));
    monitor_ = std::make_unique<GpuMonitor>(current);
  }
  measurer_ = std::make_unique<Measurer>(options_, monitor_.get(), group_);
}

Harness::~Harness() {
  prepared_.reset();
  if (stream_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaStreamDestroy(stream_));
}

void Harness::register_cases(std::vector<core::Case> cases) {
  cases_ = std::move(cases);
  registered_ = cases_.size();
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const std::string name = core::make_case_name(cases_[i]);
    index_by_name_[name] = i;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [this, i](benchmark::State& st) { run(st, i); });
    // The harness measures everything in the first call, repeating until the noise is small; main passes Google
    // Benchmark a minimum time that one iteration meets, and a later call for the same case only reports again.
    // (Iterations(1) and Repetitions(1) would do the same but rename every case in benchmark.json.)
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

const Outcome* Harness::outcome(const std::string& case_name) const {
  auto it = outcomes_.find(case_name);
  return it == outcomes_.end() ? nullptr : &it->second;
}

const Measurement* Harness::measurement(const std::string& case_name) const {
  auto it = measurements_.find(case_name);
  return it == measurements_.end() ? nullptr : &it->second;
}

const core::Case* Harness::find_case(const std::string& case_name) const {
  auto it = index_by_name_.find(case_name);
  return it == index_by_name_.end() ? nullptr : &cases_[it->second];
}

CaseRecord Harness::record_of(std::size_t case_index) const {
  const std::string name = core::make_case_name(cases_[case_index]);
  const Measurement* m = measurement(name);
  return {cases_[case_index], name, outcomes_.at(name), m ? std::optional<Measurement>(*m) : std::nullopt,
          monitor_ && monitor_->available()};
}

int Harness::count(Status s) const {
  int n = 0;
  for (const auto& [name, o] : outcomes_) n += o.status == s;
  return n;
}

cudaStream_t Harness::stream() {
  if (!stream_) OPMARK_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  return stream_;
}

double Harness::copy_ceiling_gb_per_s() {
  if (!copy_gb_per_s_) {
    // 1 GiB each way, or less on a small GPU: large enough that caches do not count.
    std::size_t free_bytes = 0, total = 0;
    OPMARK_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
    copy_gb_per_s_ = measure_copy_gb_per_s(*measurer_, stream(), bytes);
  }
  return *copy_gb_per_s_;
}

std::unique_ptr<Workload> Harness::build(const core::Case& c, const std::string& name,
                                         const std::string& only_candidate) {
  const core::PrecisionInfo& prec = core::precision_info(c.precision);
  if (device_->compute_capability < prec.min_compute_capability)
    throw UnsupportedError(c.precision + " needs compute capability " +
                           std::to_string(prec.min_compute_capability / 10) + "." +
                           std::to_string(prec.min_compute_capability % 10) + " or newer; this GPU has " +
                           std::to_string(device_->compute_capability / 10) + "." +
                           std::to_string(device_->compute_capability % 10));
  RunContext ctx{stream(), *device_, options_, case_seed(options_.seed, name), group_, measurer_.get(), only_candidate};
  if (!workloads_) throw UnsupportedError("family '" + c.family + "' has no benchmark in this build");
  return workloads_->make(c, ctx);
}

// Tunes (when the workload has candidates) and verifies; a wrong candidate is left out for the next fastest.
void Harness::tune_and_verify(Prepared& p) {
  Workload& w = *p.workload;
  p.tunable = w.candidate_count() > 0;
  auto pin = pins_.find(p.name);
  if (p.tunable && pin != pins_.end()) {  // the candidate an earlier run chose, verified here again
    int index = 0;
    while (index < w.candidate_count() && w.candidate_name(index) != pin->second) ++index;
    if (index == w.candidate_count())
      throw UnsupportedError("the pinned candidate '" + pin->second + "' is not among this case's " +
                             std::to_string(w.candidate_count()) + " candidates");
    w.choose(index);
    p.pinned = true;
    PhaseTimes::Scope phase(phases_, "verification");
    p.outcome = verify_workload(w, stream(), nullptr);
    return;
  }
  p.outcome = bench::tune_and_verify(w, stream(), options_.graph_timing, &p.tuning, &phases_, options_.batch_s);
  if (options_.tuning_log && p.tunable)
    std::fprintf(stderr, "opmark: tuning %s\n%s", p.name.c_str(),
                 tuning_table(p.tuning, [&w](int i) { return w.candidate_name(i); }).c_str());
}

// What the measured median is held against: the tuner's time of the chosen candidate, where the tuner timed it as
// the measurement does (hot L2: the tuner never flushes), else the warm-up's estimate.
double Harness::probe_of(const Prepared& p, double warm_up_estimate) const {
  return p.tunable && !p.pinned && options_.l2 == L2Mode::hot ? p.tuning.best_seconds() : warm_up_estimate;
}

// Builds, tunes, verifies and warms up a case once.
Harness::Prepared& Harness::prepare(std::size_t case_index) {
  const core::Case& c = cases_[case_index];
  prepared_.reset();  // free the previous case's device memory first
  auto p = std::make_unique<Prepared>();
  p->name = core::make_case_name(c);
  try {
    {
      PhaseTimes::Scope phase(phases_, "building inputs");
      p->workload = build(c, p->name);
      p->work = core::work_of(c);
    }
    tune_and_verify(*p);
    agree_on_outcome(&p->outcome);
    if (p->outcome.status == Status::ok) {
      PhaseTimes::Scope phase(phases_, "warm-up");
      p->timer = measurer_->timer_for(*p->workload, stream());
      const double warm = p->timer->warm_up(options_.warmup_ms);
      p->probe_s = probe_of(*p, warm);
    }
  } catch (...) {
    Outcome o = outcome_from_exception(std::current_exception());
    o.verification = p->outcome.verification;
    p->outcome = o;
    // The other ranks may be inside a collective this rank will never join: stop them all.
    if (multi_process()) group_->abort(p->name + ": " + p->outcome.reason);
  }
  if (p->outcome.status != Status::ok) {
    p->timer.reset();
    p->workload.reset();
  }
  outcomes_[p->name] = p->outcome;
  prepared_ = std::move(p);
  return *prepared_;
}

void Harness::agree_on_outcome(Outcome* o) {
  if (multi_process()) *o = agree_across_ranks(*group_, *o);
}

double Harness::per_launch_estimate(const Prepared& p) const {
  return p.m.median_s > 0 ? p.m.median_s : p.probe_s;
}

// Burst: the case's energy over a window of back-to-back launches (energy.h) and, for a heavy case (its window
// ran into the power cap), a sustained measurement beside its burst time. Not in multi-process runs: each rank's
// window would hold a different number of collective launches.
void Harness::measure_energy_of(Prepared& p) {
  // Sustained: the windows are the measurement. No energy where no window is asked for, in a multi-process run, for
  // a case over several GPUs, or without NVML.
  if (options_.regime == Regime::sustained || !(options_.energy_window_s > 0) || multi_process() || !monitor_ ||
      !monitor_->available() || p.workload->gpus_used() > 1)
    return;
  {
    PhaseTimes::Scope phase(phases_, "energy windows");
    p.m.energy = measurer_->energy_window(*p.timer, per_launch_estimate(p) * p.timer->batch(), options_.energy_window_s);
  }
  if (!p.m.energy) return;
  if (p.timer->times_each_launch()) {
    // Untimed work (an L2 flush, a preparation) runs between launches: power over the window, time per launch
    // from the timed launches alone.
    p.m.energy->seconds_per_launch = p.m.median_s;
  }
  double burst_mhz = 0;
  for (const Repetition& r : p.m.reps) burst_mhz = std::max(burst_mhz, r.sm_clock_mhz);
  if (!options_.sustained_heavy || !is_heavy(burst_mhz, p.m.energy->sm_mhz, p.m.energy->reasons, p.m.median_s))
    return;
  std::vector<Repetition> windows;  // the burst measurement keeps its own repetitions
  PhaseTimes::Scope phase(phases_, "sustained windows of heavy cases");
  p.m.sustained = measurer_->sustained_window(*p.timer, per_launch_estimate(p) * p.timer->batch(),
                                             kSustainedWindowsBesideBurst, kSustainedLeadInBesideBurstSeconds,
                                             &windows);
}

// The anomaly guard (measure_guard.h) over this case: prepared again means tuned again where it tunes.
void Harness::measure_with_guard(Prepared& p) {
  struct Case final : GuardedCase {
    Case(Harness& h, Prepared& p) : h(h), p(p) {}
    Measurement measure() override { return h.measurer_->measure(*p.timer, h.per_launch_estimate(p)); }
    double prepare_again() override {
      Workload& w = *p.workload;
      if (p.tunable) {
        const int before = w.chosen();
        p.tuning = tune(w, h.stream(), h.options_.graph_timing, kTuningRounds, h.options_.batch_s);
        if (p.tuning.best < 0) throw Error("tuning again after a disagreement: every candidate failed");
        w.choose(p.tuning.best);
        if (w.chosen() != before) {
          const Outcome o = verify_workload(w, h.stream(), &p.tuning);
          if (o.status != Status::ok) throw Error("tuning again after a disagreement: " + o.reason);
        }
      }
      p.timer->begin(w, h.options_.graph_timing);
      const double warm = p.timer->warm_up(h.options_.warmup_ms);
      return h.probe_of(p, warm);
    }
    Harness& h;
    Prepared& p;
  } c(*this, p);
  bench::measure_with_guard(c, p.probe_s, p.m, p.outcome, options_.regime, options_.min_clock_fraction);
}

std::map<std::string, double> Harness::case_counters(const Prepared& p, const core::Case& c) {
  CaseFacts f;
  f.work = p.work;
  f.precision = c.precision;
  f.workload_counters = p.workload->counters();
  if (p.tunable && !p.pinned) f.tuning = &p.tuning;
  f.collective = core::family_info(c.family).collective;
  if (is_memory_bound(p.work) && !f.collective) f.copy_gb_per_s = copy_ceiling_gb_per_s();
  f.batch = p.timer->batch();
  f.graph = p.timer->mode() == TimingMode::graph;
  f.overlap_edges = p.timer->overlap_edges_per_launch();
  f.graph_shape = p.timer->graph_shape_per_launch();
  if (multi_process()) f.processes = group_->size();
  if (monitor_ && monitor_->available()) f.reference_mhz = measurer_->reference_mhz();
  return bench::case_counters(f, p.m, peaks_);
}

void Harness::run(benchmark::State& state, std::size_t case_index) {
  const core::Case& c = cases_[case_index];
  const std::string name = core::make_case_name(c);
  if (reported_.count(name)) {  // Google Benchmark asked again (more iterations): report what was measured
    report(state, name);
    return;
  }
  reported_.insert(name);
  if (!device_) {
    outcomes_[name] = Outcome{Status::skipped, "no CUDA device: " + no_device_reason_, "", "", {}, {}};
    if (sink_) sink_->finished(record_of(case_index));
    report(state, name);
    return;
  }
  phases_.begin_case(c.family);
  Prepared& p = prepare(case_index);
  if (p.outcome.status == Status::ok) {
    try {
      {
        {
          PhaseTimes::Scope phase(phases_, "timed repetitions");
          measure_with_guard(p);
        }
        {
          PhaseTimes::Scope phase(phases_, "eager and isolated timing");
          time_eager_and_isolated(*p.timer, *p.workload, stream(), options_, group_, p.m);
        }
        {
          PhaseTimes::Scope phase(phases_, "kernel trace");
          trace_kernels(*p.timer, stream(), options_, multi_process(), p.workload->gpus_used(), p.m);
        }
        measure_energy_of(p);
        p.outcome.counters = case_counters(p, c);
        p.outcome.label =
            case_label(*p.workload, p.tunable, p.pinned, p.tuning, timing_label(*p.timer));
        p.outcome.kernels = p.m.kernels.names;
        if (p.tunable)
          chosen_candidate_[p.name] = p.workload->candidate_name(p.workload->chosen());
        if (options_.profile_launches > 0)
          profile_launches(*p.timer, *p.workload, stream(), options_, p.name, p.m.median_s);
      }
    } catch (...) {
      Outcome o = outcome_from_exception(std::current_exception());
      if (multi_process()) group_->abort(p.name + ": " + o.reason);
      o.verification = p.outcome.verification;
      p.outcome = o;
    }
    outcomes_[p.name] = p.outcome;
  }
  if (p.outcome.status == Status::ok || p.outcome.status == Status::unstable) measurements_[p.name] = p.m;
  prepared_.reset();  // the device memory goes back before Google Benchmark reports
  if (sink_) sink_->finished(record_of(case_index));
  report(state, name);
}

void Harness::report(benchmark::State& state, const std::string& name) {
  const Outcome& o = outcomes_.at(name);
  auto m = measurements_.find(name);
  if ((o.status != Status::ok && o.status != Status::unstable) || m == measurements_.end()) {
    report_not_run(state, o);
    return;
  }
  for (auto _ : state) state.SetIterationTime(m->second.median_s);
  for (const auto& [k, v] : o.counters) state.counters[k] = v;
  state.SetLabel(o.label);
}

}  // namespace opmark::bench
