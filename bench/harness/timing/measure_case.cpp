#include "bench/harness/timing/measure_case.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/error.h"

namespace opmark::bench {

std::vector<double> repetition_seconds(const Measurement& m) {
  std::vector<double> times;
  for (const Repetition& r : m.reps) times.push_back(r.seconds_per_launch);
  return times;
}

void summarize_repetitions(Measurement& m) {
  const std::vector<double> times = repetition_seconds(m);
  m.median_s = median_of(times);
  double sum = 0;
  for (double t : times) sum += t;
  m.mean_s = times.empty() ? 0 : sum / static_cast<double>(times.size());
  m.noise = relative_spread(times);
}

Measurement measurement_of(BurstRepetitions r) {
  Measurement m;
  m.reps = std::move(r.reps);
  m.stop = r.stop;
  m.recovery_s = r.recovery_s;
  m.throttled = r.throttled;
  m.rested_mhz = r.rested_mhz;
  summarize_repetitions(m);
  return m;
}

std::string us_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g us", seconds * 1e6);
  return buf;
}

std::string ratio_text(double a, double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", a > b ? a / b : b / a);
  return buf;
}

Measurer::Measurer(const Options& options, const GpuMonitor* monitor, ProcessGroup* group)
    : options_(options), monitor_(monitor), group_(group) {}

std::function<double(double)> Measurer::agreement() const {
  if (!multi_process()) return {};
  ProcessGroup* g = group_;
  return [g](double v) { return g->agree_max(v); };
}

double Measurer::reference_mhz() const {
  const std::optional<unsigned> max = monitor_ ? monitor_->max_sm_mhz() : std::nullopt;
  return max ? static_cast<double>(*max) : fastest_mhz_;
}

std::unique_ptr<Timer> Measurer::timer_for(Workload& w, cudaStream_t stream) const {
  auto timer = std::make_unique<Timer>(stream, options_.l2, monitor_, agreement(), options_.batch_s);
  timer->begin(w, options_.graph_timing);
  return timer;
}

Measurement Measurer::measure(Timer& timer, double per_launch_s) {
  if (options_.regime == Regime::sustained) {
    Measurement m;
    std::optional<EnergyWindow> w =
        sustained_window(timer, per_launch_s * timer.batch(), kSustainedWindows, kSustainedLeadInSeconds, &m.reps);
    if (!w) throw UnsupportedError("the sustained regime needs NVML's energy counter and one process");
    summarize_repetitions(m);
    m.stop = StopReason::steady;
    m.energy = w;
    return m;
  }
  TimerSource source(timer);
  BurstRule rule;
  rule.stop = {options_.min_repetitions, options_.max_repetitions, options_.noise_target, options_.case_time_cap_s};
  rule.min_time_s = options_.min_time_s;
  rule.max_mhz = reference_mhz();
  rule.min_clock_fraction = options_.min_clock_fraction;
  rule.rest_s = options_.rest_s;
  BurstRepetitions r = run_burst_repetitions(source, group_, rule, real_host_time());
  fastest_mhz_ = std::max(fastest_mhz_, r.fastest_mhz);
  return measurement_of(std::move(r));
}

Measurement Measurer::measure_alone(Workload& w, cudaStream_t stream) {
  std::unique_ptr<Timer> timer = timer_for(w, stream);
  const double warm = timer->warm_up(options_.warmup_ms);
  return measure(*timer, warm);
}

std::optional<EnergyWindow> Measurer::energy_window(Timer& timer, double batch_s, double min_window_s,
                                                    double lead_in_s) {
  if (!monitor_ || !monitor_->available()) return std::nullopt;
  if (!calibrated_) {
    calibrated_ = true;
    limit_watts_ = monitor_->power_limit_watts();
    counter_period_ = calibrate_counter_period(*monitor_);
    if (counter_period_)
      std::fprintf(stderr, "opmark: NVML's energy counter steps every %.3f ms (+-%.3f, %d steps): energy windows are "
                   "whole steps\n", counter_period_->period_s * 1e3, counter_period_->sd_s * 1e3,
                   counter_period_->steps);
    else
      std::fprintf(stderr, "opmark: NVML's energy counter keeps no steady period here: energy windows are timed by "
                   "the calls around their steps\n");
  }
  const double per_launch_s = timer.batch() > 0 ? batch_s / timer.batch() : 0.0;
  return measure_energy(timer, batch_s, min_window_s, lead_in_s, counter_period_,
                        restart_watts(limit_watts_, per_launch_s, min_window_s,
                                      options_.sustained_heavy && options_.regime == Regime::burst));
}

std::optional<EnergyWindow> Measurer::sustained_window(Timer& timer, double batch_s, int windows, double lead_in_s,
                                                       std::vector<Repetition>* reps) {
  if (multi_process() || !monitor_ || !monitor_->available()) return std::nullopt;
  std::optional<EnergyWindow> all;
  for (int i = 0; i < windows; ++i) {
    auto w = energy_window(timer, batch_s, kSustainedWindowSeconds, i == 0 ? lead_in_s : 0.0);
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
    all->periods = all->periods > 0 && w->periods > 0 ? all->periods + w->periods : 0;
    all->joules += w->joules;
    all->launches += w->launches;
    all->reasons |= w->reasons;
  }
  return all;
}

}  // namespace opmark::bench
