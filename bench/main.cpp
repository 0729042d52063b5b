// opmark-bench: opmark flags -> the plan (tables, suite or models -> cases) -> the session (output folder, resume)
// -> the run (one Google Benchmark case per case, on the local GPU) -> console, benchmark.json and the results log.
#include <cstdio>
#include <iostream>
#include <memory>

#include "bench/app/command_line.h"
#include "bench/app/plan.h"
#include "bench/app/run_cases.h"
#include "bench/app/session.h"
#include "bench/families/factories.h"
#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "bench/harness/cases/registry.h"
#include "bench/harness/version.h"
#include "core/families.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

int run(int argc, char** argv, ProcessGroup& group) {
  check_family_lists(family_list(), core::known_families());  // a family in one layer's list only: said first
  const WorkloadRegistry workloads(family_list());
  const std::string command = app::command_text(argc, argv);  // before the --opmark_ flags are taken out of argv
  Options options = parse_options(argc, argv);
  if (options.version) {  // no tables, no GPU: what this binary is and the libraries it loads
    if (group.rank() == 0) std::cout << version_text();
    return 0;
  }
  const core::Symbols given_symbols = options.selection.symbols;  // before the process group adds G
  app::join_process_group(options, group);
  if (options.help && app::print_help(argc, argv)) return 0;
  app::check_flags_apply(options, given_symbols);
  const std::string filter = app::benchmark_filter(argc, argv);  // checked: Google Benchmark would run nothing
  app::Session session = app::open_session(options, group, app::has_flag(argc, argv, "--benchmark_list_tests"));
  app::RunPlan plan = app::load_plan(options, given_symbols, filter);
  if (options.validate_only) {
    app::print_plan(plan);
    return 0;
  }
  app::keep_runnable(plan, workloads, group, filter);
  return app::run_cases(std::move(plan), options, session, command, argc, argv, group, workloads);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::unique_ptr<ProcessGroup> group = make_process_group(&argc, &argv);
    return run(argc, argv, *group);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-bench: %s\n", e.what());
    return 2;
  }
}
