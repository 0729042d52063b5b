#include "bench/harness/output/counters.h"

#include <cstdio>

#include "bench/harness/tuning/tuning_report.h"
#include "core/counters.h"
#include "core/precision.h"
#include "core/rates.h"

namespace opmark::bench {

namespace counter = core::counter;

std::map<std::string, double> throughput_counters(const core::Work& work, double seconds_per_op,
                                                  const std::string& precision, const Peaks& peaks) {
  std::map<std::string, double> c;
  if (!(seconds_per_op > 0)) return c;
  // Memory-bound families count no FLOPs.
  if (work.flops > 0) c[counter::tflops] = core::tflops(work.flops, seconds_per_op);
  c[counter::gb_per_s] = core::gb_per_s(work.bytes(), seconds_per_op);
  auto it = peaks.tflops.find(core::precision_info(precision).peak_key);
  if (it != peaks.tflops.end() && it->second > 0 && work.flops > 0)
    c[counter::pct_peak] = core::pct_of(c[counter::tflops], it->second);
  if (peaks.memory_gb_per_s > 0) c[counter::pct_peak_bw] = core::pct_of(c[counter::gb_per_s], peaks.memory_gb_per_s);
  return c;
}

std::map<std::string, double> energy_counters(const core::Work& work, const EnergyWindow& w,
                                              const std::string& prefix) {
  std::map<std::string, double> c;
  if (!(w.window_s > 0) || !(w.seconds_per_launch > 0) || !(w.joules > 0)) return c;
  const std::string time_key = prefix.empty() ? std::string(counter::energy_us) : prefix + "us";
  const std::string clock_key = prefix + (prefix.empty() ? counter::energy_sm_clock_mhz : counter::sm_clock_mhz);
  c[time_key] = w.seconds_per_launch * 1e6;
  if (w.sm_mhz > 0) c[clock_key] = w.sm_mhz;
  c[prefix + counter::energy_window_ms] = w.window_s * 1e3;
  c[prefix + counter::power_w] = w.power_w();
  const double joules = w.joules_per_launch();
  c[prefix + counter::joules_per_op] = joules;
  c[prefix + counter::energy_uncertainty] = w.uncertainty;
  // How the window was timed: whole periods of the counter (energy.h), or 0 for the calls around its steps.
  c[prefix + counter::energy_periods] = w.periods;
  if (work.flops > 0) c[prefix + counter::tflops_per_w] = core::tflops_per_w(work.flops, joules);
  else if (work.bytes() > 0) c[prefix + counter::gb_per_s_per_w] = core::gb_per_s_per_w(work.bytes(), joules);
  return c;
}

std::map<std::string, double> case_counters(const CaseFacts& f, const Measurement& m, const Peaks& peaks) {
  std::map<std::string, double> k = f.workload_counters;
  k[counter::flops] = f.work.flops;
  k[counter::bytes] = f.work.bytes();
  for (const auto& [name, v] : throughput_counters(f.work, m.median_s, f.precision, peaks)) k[name] = v;
  if (f.collective) {
    // nccl-tests' bus bandwidth against one GPU's links in one direction; the memory's peak says nothing of it.
    k.erase(counter::pct_peak_bw);
    const auto factor = k.find(counter::busbw_factor);
    if (peaks.link_gb_per_s > 0 && factor != k.end() && factor->second > 0 && k.count(counter::gb_per_s))
      k[counter::pct_link_bw] = core::pct_of(k[counter::gb_per_s] * factor->second, peaks.link_gb_per_s);
  }
  if (f.copy_gb_per_s) {
    const double ceiling = *f.copy_gb_per_s;
    k[counter::copy_gb_per_s] = ceiling;
    if (ceiling > 0) k[counter::pct_copy_bw] = core::pct_of(core::gb_per_s(f.work.bytes(), m.median_s), ceiling);
  }
  if (f.tuning)
    for (const auto& [name, v] : f.tuning->counters()) k[name] = v;
  k[counter::batch] = f.batch;
  k[counter::graph] = f.graph ? 1.0 : 0.0;
  k[counter::eager_us] = m.eager_s * 1e6;
  if (m.isolated_s > 0) k[counter::isolated_us] = m.isolated_s * 1e6;
  if (m.serial_s > 0) k[counter::serial_us] = m.serial_s * 1e6;
  if (f.overlap_edges > 0) k[counter::overlap_edges] = f.overlap_edges;
  if (f.graph_shape.nodes > 0) {
    k[counter::graph_nodes] = f.graph_shape.nodes;
    k[counter::graph_kernel_nodes] = f.graph_shape.kernel_nodes;
    k[counter::graph_edges] = f.graph_shape.edges;
    if (f.graph_shape.implied_edges > 0) k[counter::graph_implied_edges] = f.graph_shape.implied_edges;
  }
  if (!m.kernels.empty()) {
    k[counter::kernel_us] = m.kernels.seconds_per_launch * 1e6;
    k[counter::kernels_per_launch] = m.kernels.kernels_per_launch;
    for (std::size_t i = 0; i < m.kernels.seconds.size(); ++i)
      k[counter::kernel_n_us(i)] = m.kernels.seconds[i] * 1e6;
  }
  k[counter::launch_bound] = is_launch_bound(m.eager_s, m.median_s) ? 1.0 : 0.0;
  k[counter::noise] = m.noise;
  k[counter::repetitions] = static_cast<double>(m.reps.size());
  k[counter::probe_us] = m.probe_s * 1e6;
  if (m.first_median_s > 0) k[counter::first_median_us] = m.first_median_s * 1e6;
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
  k[counter::discarded_samples] = discarded;
  if (f.processes > 0) {
    std::vector<double> slowest;
    for (const Repetition& r : m.reps) slowest.push_back(r.slowest_rank_seconds_per_launch);
    k[counter::processes] = f.processes;
    k[counter::slowest_rank_us] = median_of(slowest) * 1e6;
  }
  k[counter::throttled] = m.throttled ? 1.0 : 0.0;
  k[counter::recovery_ms] = m.recovery_s * 1e3;
  if (m.rested_mhz > 0) k[counter::rested_sm_clock_mhz] = m.rested_mhz;
  if (!clocks.empty()) k[counter::sm_clock_mhz] = median_of(clocks);
  if (min_clock > 0) k[counter::sm_clock_min_mhz] = min_clock;
  if (f.reference_mhz) {
    k[counter::clock_event_reasons] = static_cast<double>(reasons);
    k[counter::reference_sm_clock_mhz] = *f.reference_mhz;
  }
  // A heavy case's energy is its sustained windows': its burst window, a few tenths of a second, is the power
  // limiter's lead-in, whose draw swings from step to step of the counter (docs/regimes.md).
  if (const std::optional<EnergyWindow>& energy = m.sustained ? m.sustained : m.energy)
    for (const auto& [name, v] : energy_counters(f.work, *energy)) k[name] = v;
  if (m.sustained) {
    k[counter::energy_from_sustained] = 1;
    for (const auto& [name, v] : energy_counters(f.work, *m.sustained, counter::sustained_prefix)) k[name] = v;
  }
  return k;
}

std::string timing_label(const Timer& t) {
  std::string out = t.mode() == TimingMode::graph
                        ? "timing: cuda graph, " + std::to_string(t.batch()) + " launches per replay"
                        : "timing: eager, " + std::to_string(t.batch()) + " launches back to back (" +
                              t.eager_reason() + ")";
  if (t.times_each_launch()) out += ", each launch between its own events";
  if (t.overlap_edges_per_launch() > 0) out += ", launches may overlap (programmatic dependent launch)";
  return out;
}

std::string case_label(const Workload& w, bool tunable, bool pinned, const TuningResult& tuning,
                       const std::string& timing) {
  std::string label;
  if (pinned) {
    label = w.candidate_name(w.chosen()) + " (pinned by --opmark_pin)";
  } else if (tunable) {
    char head[160];
    std::snprintf(head, sizeof head, " (fastest of %d; default ", w.candidate_count());
    label = w.candidate_name(w.chosen()) + head +
            (tuning.default_index >= 0 ? w.candidate_name(tuning.default_index) : std::string("none"));
    if (tuning.speedup() > 0) {
      std::snprintf(head, sizeof head, ", %.2fx", tuning.speedup());
      label += head;
    }
    if (tuning.reference_index == w.chosen()) {
      label += "; PyTorch's call";
    } else if (tuning.reference_seconds() > 0 && tuning.best_seconds() > 0) {
      std::snprintf(head, sizeof head, "; PyTorch's call %.2fx", tuning.reference_seconds() / tuning.best_seconds());
      label += head;
    }
    label += ")";
  }
  const std::string own = w.label();
  if (!own.empty()) label += (label.empty() ? "" : " | ") + own;
  label += (label.empty() ? "" : " | ") + timing;
  if (tunable && !pinned) {
    label += tuning.dropped_note();
    label += failed_note(tuning, [&w](int i) { return w.candidate_name(i); });
    if (!tuning.eager_note.empty()) label += " | tuned eagerly: " + tuning.eager_note;
  }
  return label;
}

}  // namespace opmark::bench
