#pragma once
// The run: Google Benchmark set up over the plan's cases, the GPU found, the context written, each case measured
// through the harness into the results log and the case lines, the end-of-run re-time, and the summary.
#include <string>

#include "bench/app/plan.h"
#include "bench/app/session.h"
#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "bench/harness/cases/registry.h"

namespace opmark::bench::app {

// argc and argv: the command line less the --opmark_ flags; `command`: the whole line, for the record. Returns the
// process's exit status: 0, 1 where a case failed or none ran (or there is no GPU), 2 for a bad Google Benchmark flag.
int run_cases(RunPlan plan, const Options& options, Session& session, const std::string& command, int argc,
              char** argv, ProcessGroup& group, const WorkloadRegistry& workloads);

}  // namespace opmark::bench::app
