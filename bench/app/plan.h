#pragma once
// The plan: which cases this run measures. The shape tables, a suite's rules (which also fix some of the run's
// settings) or the models give the cases; those this build cannot run, those a multi-process run leaves out and
// those --benchmark_filter drops are taken out, each said on stderr.
#include <optional>
#include <string>
#include <vector>

#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "bench/harness/cases/registry.h"
#include "core/case.h"
#include "core/suite.h"
#include "core/table.h"

namespace opmark::bench::app {

struct RunPlan {
  std::vector<std::string> shape_dirs;
  std::vector<core::Table> tables;
  std::optional<core::Suite> suite;  // the submission rules the cases come from, if any
  std::vector<core::Case> cases;
};

// A flag that the chosen source of cases would ignore is an error, not a silent no-op. `given_symbols`: the
// user's own --opmark_symbols (not the G a multi-process run adds).
void check_flags_apply(const Options& o, const core::Symbols& given_symbols);

// Loads the tables and expands the cases the options select. A suite's rules set the repetition and noise settings
// the command line left alone, and refuse a regime, timing or L2 mode other than theirs, and a whole run of rules
// that require the end-of-run re-time without it. `filter`: --benchmark_filter ("" none).
RunPlan load_plan(Options& options, const core::Symbols& given_symbols, const std::string& filter);

// "opmark: N tables, R rows, C distinct cases" and the cases by family and precision (--opmark_validate).
void print_plan(const RunPlan& plan);

// Keeps the cases this build can run, in this process group, that `filter` (--benchmark_filter) selects.
void keep_runnable(RunPlan& plan, const WorkloadRegistry& workloads, const ProcessGroup& group,
                   const std::string& filter);

}  // namespace opmark::bench::app
