#include "bench/harness/harness.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include "bench/harness/copy_ceiling.h"
#include "bench/families/factories.h"
#include "bench/harness/pins.h"
#include "core/precision.h"
#include "core/stats.h"
#include "kernels/cuda_check.h"
#include "kernels/profile_marker.h"

namespace opmark::bench {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

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

std::string us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g us", seconds * 1e6);
  return buf;
}

std::string ratio(double a, double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", a > b ? a / b : b / a);
  return buf;
}

}  // namespace

struct Harness::Prepared {
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

Outcome verify_workload(Workload& w, cudaStream_t stream, TuningResult* tuning) {
  Outcome o;
  for (int attempt = 1;; ++attempt) {
    kernels::CompareResult r = w.verify(stream);
    o.verification = r.summary();
    if (r.ok()) {
      o.status = Status::ok;
      o.reason.clear();
      return o;
    }
    o.status = Status::failed;
    o.reason = "wrong result: " + o.verification;
    if (attempt > 1)  // every candidate tried was wrong: say so, it points at the reference or the inputs
      o.reason += " (the last of " + std::to_string(attempt) + " candidates tried; all were wrong)";
    char why[128];
    std::snprintf(why, sizeof why, "%zu of %zu elements wrong, rel norm error %.1e", r.wrong, r.count,
                  r.rel_norm_error);
    if (!tuning || attempt >= kMaxVerifyAttempts || !tuning->drop_best(w.candidate_name(w.chosen()), why)) return o;
    w.choose(tuning->best);
  }
}

Outcome tune_and_verify(Workload& w, cudaStream_t stream, bool allow_graph, TuningResult* tuning,
                        PhaseTimes* phases) {
  const int count = w.candidate_count();
  if (count == 0) {
    PhaseTimes::Scope phase(phases, "verification");
    return verify_workload(w, stream);
  }
  {
    PhaseTimes::Scope phase(phases, "tuning");
    *tuning = tune(w, stream, allow_graph);
  }
  if (tuning->best < 0) {
    std::string first;
    for (const auto& e : tuning->errors)
      if (!e.empty()) {
        first = e;
        break;
      }
    throw UnsupportedError("every one of the " + std::to_string(count) + " candidates failed; first: " + first);
  }
  w.choose(tuning->best);
  PhaseTimes::Scope phase(phases, "verification");
  return verify_workload(w, stream, tuning);
}

Outcome agree_across_ranks(ProcessGroup& group, Outcome o) {
  const std::vector<double> statuses = group.all_gather(static_cast<double>(o.status));
  int worst_rank = -1;
  for (std::size_t r = 0; r < statuses.size(); ++r)
    if (statuses[r] != static_cast<double>(Status::ok) &&
        (worst_rank < 0 || statuses[r] > statuses[static_cast<std::size_t>(worst_rank)]))
      worst_rank = static_cast<int>(r);
  if (worst_rank < 0) return o;
  // The failing rank's reason, sent to all (its length first, then the text).
  std::string reason = group.rank() == worst_rank ? o.reason : std::string();
  double length = static_cast<double>(reason.size());
  group.broadcast(&length, sizeof length, worst_rank);
  reason.resize(static_cast<std::size_t>(length));
  group.broadcast(reason.data(), reason.size(), worst_rank);
  o.status = static_cast<Status>(static_cast<int>(statuses[static_cast<std::size_t>(worst_rank)]));
  o.reason = "rank " + std::to_string(worst_rank) + ": " + reason;
  return o;
}

std::uint64_t case_seed(std::uint64_t base, const std::string& case_name) {
  std::uint64_t h = 1469598103934665603ull ^ base;  // FNV-1a
  for (unsigned char ch : case_name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::map<std::string, double> throughput_counters(const core::Work& work, double seconds_per_op,
                                                  const std::string& precision, const Peaks& peaks) {
  std::map<std::string, double> c;
  if (!(seconds_per_op > 0)) return c;
  if (work.flops > 0) c["tflops"] = work.flops / seconds_per_op / 1e12;  // memory-bound families count no FLOPs
  c["gb_per_s"] = work.bytes() / seconds_per_op / 1e9;
  auto it = peaks.tflops.find(core::precision_info(precision).peak_key);
  if (it != peaks.tflops.end() && it->second > 0 && work.flops > 0) c["pct_peak"] = 100.0 * c["tflops"] / it->second;
  if (peaks.memory_gb_per_s > 0) c["pct_peak_bw"] = 100.0 * c["gb_per_s"] / peaks.memory_gb_per_s;
  return c;
}

std::map<std::string, double> energy_counters(const core::Work& work, const EnergyWindow& w,
                                              const std::string& prefix) {
  std::map<std::string, double> c;
  if (!(w.window_s > 0) || !(w.seconds_per_launch > 0) || !(w.joules > 0)) return c;
  const std::string time_key = prefix.empty() ? "energy_us" : prefix + "us";
  const std::string clock_key = prefix.empty() ? "energy_sm_clock_mhz" : prefix + "sm_clock_mhz";
  c[time_key] = w.seconds_per_launch * 1e6;
  if (w.sm_mhz > 0) c[clock_key] = w.sm_mhz;
  c[prefix + "energy_window_ms"] = w.window_s * 1e3;
  c[prefix + "power_w"] = w.power_w();
  const double joules = w.joules_per_launch();
  c[prefix + "joules_per_op"] = joules;
  c[prefix + "energy_uncertainty"] = w.uncertainty;
  // Rate per watt is work per joule: (work / s) / (J / s).
  if (work.flops > 0) c[prefix + "tflops_per_w"] = work.flops / joules / 1e12;
  else if (work.bytes() > 0) c[prefix + "gb_per_s_per_w"] = work.bytes() / joules / 1e9;
  return c;
}

Harness::Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
                 ProcessGroup* group)
    : options_(std::move(options)),
      group_(group),
      device_(std::move(device)),
      no_device_reason_(std::move(no_device_reason)),
      peaks_(resolve_peaks(device_ ? device_->name : "", options_.peaks)) {
  if (!options_.pin_path.empty()) pins_ = read_pins(options_.pin_path);
  if (device_) {
    int current = 0;
    OPMARK_CHECK_CUDA(cudaGetDevice(&current));
    monitor_ = std::make_unique<GpuMonitor>(current);
  }
}

Harness::~Harness() {
  prepared_.reset();
  if (stream_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaStreamDestroy(stream_));
}

void Harness::register_cases(std::vector<core::Case> cases) {
  cases_ = std::move(cases);
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

int Harness::count(Status s) const {
  int n = 0;
  for (const auto& [name, o] : outcomes_) n += o.status == s;
  return n;
}

cudaStream_t Harness::stream() {
  if (!stream_) OPMARK_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  return stream_;
}

double Harness::agree_mean(double v) const { return multi_process() ? group_->agree_mean(v) : v; }
std::function<double(double)> Harness::agreement() const {
  if (!multi_process()) return {};
  return [this](double v) { return group_->agree_max(v); };
}

double Harness::copy_ceiling_gb_per_s() {
  if (!copy_gb_per_s_) {
    // 1 GiB each way, or less on a small GPU: large enough that caches do not count.
    std::size_t free_bytes = 0, total = 0;
    OPMARK_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
    copy_gb_per_s_ = measure_copy_gb_per_s(stream(), bytes);
  }
  return *copy_gb_per_s_;
}

std::unique_ptr<Workload> Harness::build(const core::Case& c, const std::string& name) {
  const core::PrecisionInfo& prec = core::precision_info(c.precision);
  if (device_->compute_capability < prec.min_compute_capability)
    throw UnsupportedError(c.precision + " needs compute capability " +
                           std::to_string(prec.min_compute_capability / 10) + "." +
                           std::to_string(prec.min_compute_capability % 10) + " or newer; this GPU has " +
                           std::to_string(device_->compute_capability / 10) + "." +
                           std::to_string(device_->compute_capability % 10));
  RunContext ctx{stream(), *device_, options_, case_seed(options_.seed, name), group_};
  return make_workload(c, ctx);
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
  p.outcome = bench::tune_and_verify(w, stream(), options_.graph_timing, &p.tuning, &phases_);
}

// The case's timer, begun on `w`: the run's L2 mode and timing mode, NVML's readings, and in a multi-process run
// the decisions taken from the maximum over the ranks.
std::unique_ptr<Timer> Harness::make_timer(Workload& w) {
  auto timer = std::make_unique<Timer>(stream(), options_.l2, monitor_.get(), agreement());
  timer->begin(w, options_.graph_timing);
  return timer;
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
      p->timer = make_timer(*p->workload);
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

// About how long one of the case's batches runs: the probe's time per launch (or the median's, once measured).
double Harness::batch_seconds(const Prepared& p) const {
  const double per_launch = p.m.median_s > 0 ? p.m.median_s : p.probe_s;
  return per_launch * p.timer->batch();
}

// The slowest repetition over the fastest (core::span_of).
static double span_of_repetitions(const Measurement& m) {
  std::vector<double> times;
  for (const Repetition& r : m.reps) times.push_back(r.seconds_per_launch);
  return core::span_of(times);
}

// The median, mean and noise of a measurement's repetitions.
static void summarize_repetitions(Measurement& m) {
  std::vector<double> times;
  for (const Repetition& r : m.reps) times.push_back(r.seconds_per_launch);
  m.median_s = median_of(times);
  double sum = 0;
  for (double t : times) sum += t;
  m.mean_s = times.empty() ? 0 : sum / static_cast<double>(times.size());
  m.noise = relative_spread(times);
}

double Harness::reference_mhz() const {
  const std::optional<unsigned> max = monitor_ ? monitor_->max_sm_mhz() : std::nullopt;
  return max ? static_cast<double>(*max) : fastest_mhz_;
}

// Repetitions of timed batches until the stopping rule says steady (or the cap). Burst: a sample whose clock was
// down is dropped and, after an idle pause for the clock to come back, taken again (regime.h); once the pauses
// run out the case keeps what it measured and is marked throttled.
Measurement Harness::measure(Prepared& p) {
  if (options_.regime == Regime::sustained) return measure_sustained(p);
  // The case's timer as the loop's sample source.
  struct TimerSource final : SampleSource {
    explicit TimerSource(Timer& t) : timer(t) {}
    Sample sample() override { return timer.sample(); }
    Timer& timer;
  } source(*p.timer);
  BurstRule rule;
  rule.stop = {options_.min_repetitions, options_.max_repetitions, options_.noise_target, options_.case_time_cap_s};
  rule.min_time_s = options_.min_time_s;
  rule.max_mhz = reference_mhz();
  rule.min_clock_fraction = options_.min_clock_fraction;
  BurstRepetitions r = run_burst_repetitions(source, group_, rule, real_host_time());
  fastest_mhz_ = std::max(fastest_mhz_, r.fastest_mhz);
  Measurement m;
  m.reps = std::move(r.reps);
  m.stop = r.stop;
  m.recovery_s = r.recovery_s;
  m.throttled = r.throttled;
  m.rested_mhz = r.rested_mhz;
  summarize_repetitions(m);
  return m;
}

// One sustained measurement: the case runs kSustainedLeadInSeconds to settle at the power limit, then
// `windows` energy windows of at least kSustainedWindowSeconds each, back to back; nullopt without NVML's
// energy counter, or in a multi-process run (each rank's window would end at its own counter step). Each window
// is also one repetition, appended to `reps`.
std::optional<EnergyWindow> Harness::sustained_window(const Prepared& p, int windows, double lead_in_s,
                                                      std::vector<Repetition>* reps) {
  if (multi_process() || !monitor_ || !monitor_->available()) return std::nullopt;
  std::optional<EnergyWindow> all;
  for (int i = 0; i < windows; ++i) {
    auto w = measure_energy(*p.timer, batch_seconds(p), kSustainedWindowSeconds,
                            i == 0 ? lead_in_s : 0.0);
    if (!w) return std::nullopt;
    Repetition& rep = reps->emplace_back();
    rep.seconds_per_launch = rep.slowest_rank_seconds_per_launch = w->seconds_per_launch;
    rep.launches = w->launches;
    rep.sm_clock_mhz = rep.min_sm_clock_mhz = w->sm_mhz;
    rep.reasons = w->reasons;
    rep.host_seconds = w->window_s;
    if (!all) {
      all = w;
      continue;
    }
    // Together: energy and time add up; the clock and time per launch are weighted by launches.
    const double n0 = static_cast<double>(all->launches), n1 = static_cast<double>(w->launches);
    all->seconds_per_launch = (all->seconds_per_launch * n0 + w->seconds_per_launch * n1) / (n0 + n1);
    all->sm_mhz = (all->sm_mhz * n0 + w->sm_mhz * n1) / (n0 + n1);
    all->uncertainty = (all->uncertainty * all->joules + w->uncertainty * w->joules) / (all->joules + w->joules);
    all->window_s += w->window_s;
    all->joules += w->joules;
    all->launches += w->launches;
    all->reasons |= w->reasons;
  }
  return all;
}

// The sustained regime: the windows are the repetitions.
Measurement Harness::measure_sustained(Prepared& p) {
  Measurement m;
  std::optional<EnergyWindow> w = sustained_window(p, kSustainedWindows, kSustainedLeadInSeconds, &m.reps);
  if (!w) throw UnsupportedError("the sustained regime needs NVML's energy counter and one process");
  summarize_repetitions(m);
  m.stop = StopReason::steady;
  m.energy = w;
  return m;
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
    p.m.energy = measure_energy(*p.timer, batch_seconds(p), options_.energy_window_s);
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
  p.m.sustained = sustained_window(p, kSustainedWindowsBesideBurst, kSustainedLeadInBesideBurstSeconds, &windows);
}

// The anomaly guard: the tuner's probe of the chosen candidate (or the warm-up's estimate) and the measured median
// must agree within kAgreementFactor. If not, the case is tuned and measured once more; if they still disagree, it
// is unstable, with both numbers.
void Harness::measure_with_guard(Prepared& p) {
  Workload& w = *p.workload;
  p.m = measure(p);
  const double first_span = span_of_repetitions(p.m);
  if (!times_agree(p.probe_s, p.m.median_s) || first_span > core::allowed_span(p.m.noise)) {
    const double first_probe = p.probe_s, first_median = p.m.median_s;
    if (p.tunable) {
      const int before = w.chosen();
      p.tuning = tune(w, stream(), options_.graph_timing);
      if (p.tuning.best < 0) throw Error("tuning again after a disagreement: every candidate failed");
      w.choose(p.tuning.best);
      if (w.chosen() != before) {
        const Outcome o = verify_workload(w, stream(), &p.tuning);
        if (o.status != Status::ok) throw Error("tuning again after a disagreement: " + o.reason);
      }
    }
    p.timer->begin(w, options_.graph_timing);
    const double warm = p.timer->warm_up(options_.warmup_ms);
    p.probe_s = probe_of(p, warm);
    p.m = measure(p);
    p.m.first_median_s = first_median;
    // The checker rejects an ok case whose repetitions span more than their spread allows: measured twice, it is
    // unstable.
    const double span = span_of_repetitions(p.m);
    if (span > core::allowed_span(p.m.noise)) {
      p.outcome.status = Status::unstable;
      p.outcome.reason = "the repetitions spread: the slowest " + ratio(span, 1) + " the fastest (first " +
                         ratio(first_span, 1) + "), more than four times their spread allows";
    } else if (!times_agree(p.probe_s, p.m.median_s)) {
      p.outcome.status = Status::unstable;
      p.outcome.reason = "the probe and the median disagree twice: probe " + us(first_probe) + " vs median " +
                         us(first_median) + " (" + ratio(first_probe, first_median) + "), then probe " +
                         us(p.probe_s) + " vs median " + us(p.m.median_s) + " (" + ratio(p.probe_s, p.m.median_s) +
                         ")";
    }
  }
  p.m.probe_s = p.probe_s;
  if (p.m.throttled && p.outcome.status == Status::ok) {
    p.outcome.status = Status::unstable;
    char why[256];
    std::snprintf(why, sizeof why,
                  "throttled: no sample within %.0f%% of the %.0f MHz the case ran at rested, nor at %.0f%% of the "
                  "maximum clock, after %.2f s of pauses; the time kept is the GPU's throttled one",
                  kRestedClockTolerance * 100, p.m.rested_mhz, options_.min_clock_fraction * 100, p.m.recovery_s);
    p.outcome.reason = why;
  }
}

// What an eager framework pays (the same launches issued back to back from the host), and each launch timed alone.
void Harness::time_eager_and_isolated(Prepared& p) {
  Workload& w = *p.workload;
  std::vector<double> eager;
  for (int i = 0; i < 3; ++i) eager.push_back(agree_mean(p.timer->eager(p.timer->batch())));
  p.m.eager_s = median_of(eager);
  // The same launches, each timed alone between event nodes of the graph (none overlaps the next), as a profiler
  // times a kernel: where this and the back-to-back median differ, launches overlap or gaps count.
  if (options_.isolated && !p.timer->times_each_launch() && p.timer->mode() == TimingMode::graph &&
      !multi_process()) {
    auto time_alone = [&](bool each_launch, bool serialize) {
      Timer alone(stream(), options_.l2);
      alone.time_each_launch(each_launch);
      alone.serialize_launches(serialize);
      alone.begin(w, true);
      alone.warm_up(1.0);
      std::vector<double> t;
      for (int i = 0; i < 3; ++i) t.push_back(alone.sample().seconds_per_launch);
      return median_of(t);
    };
    p.m.isolated_s = time_alone(true, false);
    // Without event nodes between launches, but none starting before its predecessor ends: where this matches
    // the profiler and the median does not, the difference is programmatic dependent launch's overlap.
    if (p.timer->overlap_edges_per_launch() > 0) p.m.serial_s = time_alone(false, true);
  }
}

std::optional<std::string> kernel_trace_off(const Options& options, bool multi_process) {
  if (!options.kernel_trace) return "off (--opmark_kernel_trace=off)";
  if (options.profile_launches > 0) return "off (a profiler holds CUPTI: --opmark_profile_launches)";
  if (multi_process) return "off (a multi-process run)";
  const KernelTracer& tracer = KernelTracer::instance();
  if (!tracer.available()) return "unavailable: " + tracer.why();
  return std::nullopt;
}

// The launch's kernels and their own durations, from CUPTI's records of three replays of the timed graph (after the
// median, so tracing's cost stays out of it). Not where untimed work (a flush, a preparation) sits in the graph: its
// kernels would be counted. Where CUPTI refuses during the run, that is said once on stderr and no later case tries
// (tracer.available() turns false).
void Harness::trace_kernels(Prepared& p) {
  if (kernel_trace_off(options_, multi_process()) || p.timer->mode() != TimingMode::graph ||
      p.timer->times_each_launch())
    return;
  KernelTracer& tracer = KernelTracer::instance();
  const auto refused = [](const Error& e) {
    std::fprintf(stderr, "opmark: no kernel durations from here on: %s\n", e.what());
  };
  try {
    tracer.begin();
  } catch (const Error& e) {
    refused(e);
    return;
  }
  long long launches = 0;
  try {
    // Batches alone: sample() would add its clock stamps to the kernels traced.
    for (int i = 0; i < 3; ++i) launches += p.timer->enqueue_batch();
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream()));
  } catch (...) {
    tracer.end_quietly();  // the case's own error goes on; the tracing stops with it
    throw;
  }
  try {
    p.m.kernels = summarize_kernels(tracer.end(), launches);
  } catch (const Error& e) {
    refused(e);
    p.m.kernels = {};
  }
}

std::string Harness::timing_label(const Prepared& p) const {
  const Timer& t = *p.timer;
  std::string out = t.mode() == TimingMode::graph
                        ? "timing: cuda graph, " + std::to_string(t.batch()) + " launches per replay"
                        : "timing: eager, " + std::to_string(t.batch()) + " launches back to back (" +
                              t.eager_reason() + ")";
  if (t.times_each_launch()) out += ", each launch between its own events";
  if (t.overlap_edges_per_launch() > 0) out += ", launches may overlap (programmatic dependent launch)";
  return out;
}

std::map<std::string, double> Harness::case_counters(const Prepared& p, const core::Case& c) {
  const Measurement& m = p.m;
  std::map<std::string, double> k = p.workload->counters();
  k["flops"] = p.work.flops;
  k["bytes"] = p.work.bytes();
  for (const auto& [name, v] : throughput_counters(p.work, m.median_s, c.precision, peaks_)) k[name] = v;
  if (p.work.flops == 0 && p.work.bytes() > 0) {  // memory bound: against the copy measured in this run
    const double ceiling = copy_ceiling_gb_per_s();
    k["copy_gb_per_s"] = ceiling;
    if (ceiling > 0) k["pct_copy_bw"] = 100.0 * p.work.bytes() / m.median_s / 1e9 / ceiling;
  }
  if (p.tunable && !p.pinned)
    for (const auto& [name, v] : p.tuning.counters()) k[name] = v;
  k["batch"] = p.timer->batch();
  k["graph"] = p.timer->mode() == TimingMode::graph ? 1.0 : 0.0;
  k["eager_us"] = m.eager_s * 1e6;
  if (m.isolated_s > 0) k["isolated_us"] = m.isolated_s * 1e6;
  if (m.serial_s > 0) k["serial_us"] = m.serial_s * 1e6;
  if (p.timer->overlap_edges_per_launch() > 0) k["overlap_edges"] = p.timer->overlap_edges_per_launch();
  if (!m.kernels.empty()) {
    k["kernel_us"] = m.kernels.seconds_per_launch * 1e6;
    k["kernels_per_launch"] = m.kernels.kernels_per_launch;
    for (std::size_t i = 0; i < m.kernels.seconds.size(); ++i)
      k["kernel" + std::to_string(i) + "_us"] = m.kernels.seconds[i] * 1e6;
  }
  k["launch_bound"] = is_launch_bound(m.eager_s, m.median_s) ? 1.0 : 0.0;
  k["noise"] = m.noise;
  k["repetitions"] = static_cast<double>(m.reps.size());
  k["probe_us"] = m.probe_s * 1e6;
  if (m.first_median_s > 0) k["first_median_us"] = m.first_median_s * 1e6;
  int discarded = 0;
  std::uint64_t reasons = 0;
  std::vector<double> clocks;
  double min_clock = 0;
  for (const Repetition& r : m.reps) {
    discarded += r.discarded;
    reasons |= r.reasons;
    if (r.sm_clock_mhz > 0) clocks.push_back(r.sm_clock_mhz);
    if (r.min_sm_clock_mhz > 0 && (min_clock == 0 || r.min_sm_clock_mhz < min_clock)) min_clock = r.min_sm_clock_mhz;
  }
  k["discarded_samples"] = discarded;
  if (multi_process()) {
    std::vector<double> slowest;
    for (const Repetition& r : m.reps) slowest.push_back(r.slowest_rank_seconds_per_launch);
    k["processes"] = group_->size();
    k["slowest_rank_us"] = median_of(slowest) * 1e6;
  }
  k["throttled"] = m.throttled ? 1.0 : 0.0;
  k["recovery_ms"] = m.recovery_s * 1e3;
  if (m.rested_mhz > 0) k["rested_sm_clock_mhz"] = m.rested_mhz;
  if (!clocks.empty()) k["sm_clock_mhz"] = median_of(clocks);
  if (min_clock > 0) k["sm_clock_min_mhz"] = min_clock;
  if (monitor_ && monitor_->available()) {
    k["clock_event_reasons"] = static_cast<double>(reasons);
    k["reference_sm_clock_mhz"] = reference_mhz();
  }
  if (m.energy)
    for (const auto& [name, v] : energy_counters(p.work, *m.energy)) k[name] = v;
  if (m.sustained)
    for (const auto& [name, v] : energy_counters(p.work, *m.sustained, "sustained_")) k[name] = v;
  return k;
}

// After the measurement, with the same chosen candidate: a marker kernel, then K launches for a profiler, each right
// after about 10 ms of unprofiled launches of the same operation, so it finds the clocks and the L2 as the timing
// did (a GPU left idle while the profiler works between kernels drops its clock).
void Harness::profile(Prepared& p) {
  cudaStream_t s = stream();
  Workload& w = *p.workload;
  const int warm = std::max(1, static_cast<int>(std::ceil(0.01 / std::max(p.m.median_s, 1e-7))));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
  OPMARK_CHECK_CUDA(cudaProfilerStart());
  kernels::launch_profile_marker(s);
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
  OPMARK_CHECK_CUDA(cudaProfilerStop());
  // A whole replay of the timed graph, for ncu --graph-profiling graph: the profiler's duration of exactly what
  // the timing timed (in cold-L2 mode the replay's flushes are in it too).
  const bool graph = options_.profile_graph && p.timer->mode() == TimingMode::graph;
  for (int i = 0; i < options_.profile_launches; ++i) {
    p.timer->eager(std::min(warm, 20000));
    if (graph) {
      OPMARK_CHECK_CUDA(cudaProfilerStart());
      p.timer->enqueue_batch();  // no clock stamps: the profiler sees the replay alone
    } else {
      if (w.needs_before_launch()) w.before_launch(s);
      OPMARK_CHECK_CUDA(cudaProfilerStart());
      w.launch(s);
    }
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
    OPMARK_CHECK_CUDA(cudaProfilerStop());
  }
  const int launches = options_.profile_launches * (graph ? p.timer->batch() : 1);
  std::printf("opmark-profile: %s launches=%d%s\n", p.name.c_str(), launches, graph ? " graph" : "");
  std::fflush(stdout);
}

void Harness::run(benchmark::State& state, std::size_t case_index) {
  const core::Case& c = cases_[case_index];
  if (!device_) {
    Outcome o{Status::skipped, "no CUDA device: " + no_device_reason_, "", "", {}, {}};
    outcomes_[core::make_case_name(c)] = o;
    report_not_run(state, o);
    return;
  }
  const std::string name = core::make_case_name(c);
  if (reported_.count(name)) {  // Google Benchmark asked again (more iterations): report what was measured
    report(state, name);
    return;
  }
  reported_.insert(name);
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
          time_eager_and_isolated(p);
        }
        {
          PhaseTimes::Scope phase(phases_, "kernel trace");
          trace_kernels(p);
        }
        measure_energy_of(p);
        p.outcome.counters = case_counters(p, c);
        std::string label;
        if (p.pinned) {
          label = p.workload->candidate_name(p.workload->chosen()) + " (pinned by --opmark_pin)";
        } else if (p.tunable) {
          Workload& w = *p.workload;
          char head[160];
          std::snprintf(head, sizeof head, " (fastest of %d; default ", w.candidate_count());
          label = w.candidate_name(w.chosen()) + head +
                  (p.tuning.default_index >= 0 ? w.candidate_name(p.tuning.default_index) : std::string("none"));
          if (p.tuning.speedup() > 0) {
            std::snprintf(head, sizeof head, ", %.2fx", p.tuning.speedup());
            label += head;
          }
          label += ")";
        }
        const std::string own = p.workload->label();
        if (!own.empty()) label += (label.empty() ? "" : " | ") + own;
        label += (label.empty() ? "" : " | ") + timing_label(p);
        if (p.tunable && !p.pinned) {
          label += p.tuning.dropped_note();
          if (!p.tuning.eager_note.empty()) label += " | tuned eagerly: " + p.tuning.eager_note;
        }
        p.outcome.label = label;
        p.outcome.kernels = p.m.kernels.names;
        if (p.tunable)
          chosen_candidate_[p.name] = {p.workload->chosen(), p.workload->candidate_name(p.workload->chosen())};
        if (options_.profile_launches > 0) profile(p);
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

void Harness::recheck(const std::function<void(const std::string&)>& on_recheck) {
  if (!device_ || !options_.recheck || options_.profile_launches > 0) return;
  prepared_.reset();
  phases_.end_cases();  // the re-time is the run's, not the last family's
  PhaseTimes::Scope phase(phases_, "end-of-run re-time");
  const int to_recheck = count(Status::ok);
  int rechecked = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const std::string name = core::make_case_name(cases_[i]);
    auto o = outcomes_.find(name);
    auto m = measurements_.find(name);
    if (o == outcomes_.end() || o->second.status != Status::ok || m == measurements_.end()) continue;
    const Clock::time_point case_start = Clock::now();
    // A multi-process run's re-time is as slow as its collectives' set-up: say where it is.
    if (multi_process() && group_->rank() == 0)
      std::fprintf(stderr, "opmark: re-timing %d of %d: %s\n", ++rechecked, to_recheck, name.c_str());
    bool retimed = false;
    try {
      Prepared p;
      p.name = name;
      p.workload = build(cases_[i], name);
      p.work = core::work_of(cases_[i]);
      Workload& w = *p.workload;
      p.tunable = w.candidate_count() > 0;
      if (p.tunable) {  // the candidate the measurement ran, verified in this run already: at its index, by name
        const auto& [index, chosen_name] = chosen_candidate_[name];
        if (index >= w.candidate_count() || w.candidate_name(index) != chosen_name) continue;  // listed otherwise now
        w.choose(index);
      }
      p.timer = make_timer(w);
      p.timer->warm_up(std::min(options_.warmup_ms, 2.0));
      // About 10 ms of timed batches: enough to see a slow spell, short enough for every case of a suite.
      SampleGoal goal;
      goal.min_samples = 3;
      goal.min_seconds = 0.01;
      std::vector<double> quick;
      for (const Sample& s : sample_until([&] { return p.timer->sample(); }, agreement(), goal))
        quick.push_back(agree_mean(s.seconds_per_launch));
      Measurement& mm = m->second;
      mm.recheck_s = median_of(quick);
      o->second.counters["recheck_us"] = mm.recheck_s * 1e6;
      // The run-to-run noise this case shows: what a comparison of two runs must allow for.
      o->second.counters["run_noise"] = std::abs(mm.recheck_s - mm.median_s) / mm.median_s;
      if (!times_agree(mm.recheck_s, mm.median_s)) {
        const Measurement again = measure(p);
        mm.remeasured_s = again.median_s;
        for (const Repetition& r : again.reps) mm.recheck_reps_s.push_back(r.seconds_per_launch);
        o->second.counters["remeasured_us"] = mm.remeasured_s * 1e6;
        if (!times_agree(mm.remeasured_s, mm.median_s)) {
          o->second.status = Status::unstable;
          o->second.reason = "re-timed at the end of the run at " + us(mm.recheck_s) + " and measured again at " +
                             us(mm.remeasured_s) + ", against a median of " + us(mm.median_s) + " (" +
                             ratio(mm.remeasured_s, mm.median_s) + ")";
        }
      }
      retimed = true;
      if (multi_process() && group_->rank() == 0)
        std::fprintf(stderr, "opmark:   re-timed in %.1f s\n", seconds_since(case_start));
    } catch (const std::exception& e) {
      // The case keeps the measurement it has; the re-time is a check, not a result.
      std::fprintf(stderr, "opmark: %s: the end-of-run re-time failed: %s\n", name.c_str(), e.what());
      cudaGetLastError();
      if (multi_process()) group_->abort(name + ": " + e.what());
    }
    // Outside the try: a results log that cannot be written ends the run (results_log.h), it is no failed re-time.
    if (retimed) on_recheck(name);
  }
}

}  // namespace opmark::bench
