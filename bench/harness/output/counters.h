#pragma once
// A case's counters and label: what the console, benchmark.json and the results log show beside its time. Built from
// plain values the harness gathered, so that all of it is host-only arithmetic, tested on the CPU; the rates come from
// core/rates.h, the formulas every reader of the results uses too.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/harness/tuning/autotune.h"
#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/gpu_state/peaks.h"
#include "core/case.h"

namespace opmark::bench {

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

// Work that counts no FLOPs but moves bytes: its GB/s is held against the copy ceiling measured in the run.
inline bool is_memory_bound(const core::Work& work) { return work.flops == 0 && work.bytes() > 0; }

// Everything a case's counters are made of besides its measurement.
struct CaseFacts {
  core::Work work;
  std::string precision;
  std::map<std::string, double> workload_counters;  // the family's own (Workload::counters)
  const TuningResult* tuning = nullptr;            // where the case was tuned (not pinned): its counters
  std::optional<double> copy_gb_per_s;              // memory-bound cases: the run's copy ceiling
  bool collective = false;                          // its bytes cross links: held to them, not to the memory
  int batch = 0;                                    // launches per timed batch
  bool graph = false;                               // timed as CUDA-graph replays
  double overlap_edges = 0;                         // programmatic edges per launch
  GraphShape graph_shape;                           // the timed graph's nodes and edges per launch
  int processes = 0;                                // > 0 in a multi-process run: the rank count
  std::optional<double> reference_mhz;              // where NVML answers: the clock samples were held to
};

// The counters of a measured case, in the results log's names.
std::map<std::string, double> case_counters(const CaseFacts& facts, const Measurement& m, const Peaks& peaks);

// How a case was timed: "timing: cuda graph, 20 launches per replay" and what else holds for it.
std::string timing_label(const Timer& timer);

// A case's label: the candidate run (pinned, or the fastest of those tuned, with the library's default and the
// speedup), the family's own label, how it was timed, and notes of the tuning. `w` has its candidate chosen.
std::string case_label(const Workload& w, bool tunable, bool pinned, const TuningResult& tuning,
                       const std::string& timing);

}  // namespace opmark::bench
