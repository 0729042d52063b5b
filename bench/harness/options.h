#pragma once
// opmark-bench's own flags (--opmark_*, and --version), parsed with CLI11 before Google Benchmark sees argv, so its
// flags all keep working.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/timing/regime.h"
#include "core/expr.h"
#include "core/run_context.h"
#include "core/run_spec.h"
#include "core/table.h"

namespace opmark::bench {

using core::L2Mode;

// opmark-bench's settings: the run's (core::RunSpec, one table of flags, help and context keys) and the two that
// only ask a question of the program.
struct Options : core::RunSpec {
  bool help = false;     // --opmark_help (or --help, -h, which Google Benchmark answers too)
  bool version = false;  // --version: print opmark's and the libraries' versions, run nothing
};

// Takes the --opmark_* flags out of argv (leaving the rest for Google Benchmark) and returns them.
// Throws opmark::Error naming the flag on a bad value or an unknown --opmark_ flag.
Options parse_options(int& argc, char** argv);

std::string options_help();

}  // namespace opmark::bench
