// What opmark-bench writes is what the counter schema (core/counters.h) lists: a case whose every optional fact is
// present (tuning with a default and PyTorch's call, the copy ceiling, a traced launch of several kernels, a graph,
// several processes, NVML's reference clock, burst and sustained energy) has only counters the schema knows.
#include <gtest/gtest.h>

#include <string>

#include "bench/harness/output/counters.h"
#include "core/counters.h"

using namespace opmark;
using namespace opmark::bench;

TEST(CounterNames, EveryCounterACaseCanCarryIsInTheSchema) {
  TuningResult tuning;
  tuning.seconds = {2e-3, 1e-3, 1.5e-3};
  tuning.errors = {"", "", ""};
  tuning.stages.resize(3);
  tuning.best = 1, tuning.default_index = 0, tuning.reference_index = 2, tuning.finalists = 3;
  CaseFacts facts;
  facts.work = core::Work{2e12, 1e8, 1e8};
  facts.precision = "bf16";
  facts.workload_counters = {{core::counter::padded, 1}};
  facts.tuning = &tuning;
  facts.copy_gb_per_s = 3000;
  facts.batch = 20, facts.graph = true, facts.overlap_edges = 1, facts.processes = 2, facts.reference_mhz = 1980;
  facts.graph_shape = GraphShape{3, 2, 2, 1};
  Measurement m;
  m.median_s = 1e-3, m.eager_s = 1.1e-3, m.isolated_s = 1.2e-3, m.serial_s = 1.05e-3, m.probe_s = 1e-3;
  m.first_median_s = 1.01e-3, m.noise = 0.01, m.rested_mhz = 1980;
  m.reps = {Repetition{1e-3, 1.1e-3, 100, 1980, 1970, 4, 1, 0.1}};
  m.kernels.seconds_per_launch = 0.9e-3, m.kernels.kernels_per_launch = 2, m.kernels.seconds = {0.5e-3, 0.4e-3};
  m.kernels.names = {"a", "b"};
  EnergyWindow window;
  window.window_s = 0.3, window.joules = 200, window.launches = 300, window.seconds_per_launch = 1e-3;
  window.sm_mhz = 1900;
  m.energy = window;
  m.sustained = window;
  const auto counters = case_counters(facts, m, Peaks{});
  EXPECT_GT(counters.size(), 40u);
  for (const auto& [name, value] : counters) EXPECT_NE(core::find_counter(name), nullptr) << name;
}
