#pragma once
// opmark-bench's own flags (--opmark_*, and --version), parsed with CLI11 before Google Benchmark sees argv, so its
// flags all keep working.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/harness/energy.h"
#include "bench/harness/regime.h"
#include "core/expr.h"
#include "core/run_context.h"
#include "core/table.h"

namespace opmark::bench {

enum class L2Mode { hot, cold };
const char* name_of(L2Mode m);

struct Options {
  std::vector<std::string> shapes;      // folders or files; default: the source tree's shapes/
  core::Selection selection;            // families, sets, precisions, symbols
  std::vector<std::string> models;      // model tables (names in shapes/models/, or paths): run their cases instead
  std::string suite;                    // submission rules (shapes/submission.yaml): run the cases they require
  core::Symbols inputs;                 // the models' input sizes (B=16,H=512), over their defaults
  L2Mode l2 = L2Mode::hot;
  std::string out_dir;                  // results folder; empty: no files unless --benchmark_out is given
  bool overwrite = false;               // --opmark_overwrite: replace the results already in out_dir
  bool resume = false;                  // --opmark_resume: go on from the results already in out_dir
  bool validate_only = false;           // load and expand the tables, print a summary, run nothing
  std::map<std::string, double> peaks;  // overrides: precision -> TFLOPS, "bw" -> GB/s
  int candidates = 16;                  // library algorithms timed per case (cuBLASLt heuristic results)
  int engines = 0;                      // cuDNN graph engine configurations timed per convolution; 0: all listed
  std::size_t workspace_bytes = 1024ull << 20;
  std::uint64_t seed = 20261121;
  double warmup_ms = 10.0;              // untimed launches before measuring, so clocks have ramped up
  Regime regime = Regime::burst;        // burst: at full clock; sustained: at the power limit (regime.h)
  double min_time_s = 0.005;            // GPU seconds per repetition (burst: short, so the clock holds)
  bool min_time_given = false;          // --opmark_min_time was on the command line (it beats a suite's)
  bool graph_timing = true;             // time CUDA-graph replays (false: back-to-back launches from the host)
  int min_repetitions = 3;              // repetitions go on until their noise is at most noise_target...
  bool min_repetitions_given = false;
  int max_repetitions = 10;             // ... or this many were taken (burst: 10 x 5 ms keeps the clock)
  double noise_target = 0.01;           // median absolute deviation over median
  bool noise_target_given = false;
  double case_time_cap_s = 2.0;         // ... or the case spent this long measuring (after its minimum)
  double min_clock_fraction = kMinClockFraction;  // burst: a sample under this fraction of the max clock is dropped
  double rest_s = 0;                    // burst: idle before each case's repetitions (--opmark_rest)
  double batch_s = core::kDefaultBatchSeconds;  // GPU seconds of launches per timed replay (--opmark_batch)
  double energy_window_s = kDefaultEnergyWindowSeconds;  // the least energy window per case; 0: no energy
  bool sustained_heavy = true;          // burst: heavy cases also get a sustained measurement (--opmark_sustained)
  bool console_table = false;           // Google Benchmark's table on the console instead of a line per case
  bool recheck = true;                  // re-time every case briefly at the end of the run (anomaly guard)
  bool isolated = false;                // also time each launch alone (isolated_us), as a profiler sees a kernel
  bool tuning_log = false;              // --opmark_tuning_log: print every candidate's tuning times per case
  bool kernel_trace = true;             // trace each case's kernels and their own durations (CUPTI, kernel_us)
  int profile_launches = 0;             // > 0: after timing, K launches per case inside cudaProfilerStart/Stop (ncu)
  bool profile_graph = false;           // profile K replays of the timed graph instead (ncu --graph-profiling graph)
  std::string pin_path;                 // cases run the candidate this file names instead of tuning (harness/pins.h)
  bool help = false;
  bool version = false;                 // --version: print opmark's and the libraries' versions, run nothing
};

// Takes the --opmark_* flags out of argv (leaving the rest for Google Benchmark) and returns them.
// Throws opmark::Error naming the flag on a bad value or an unknown --opmark_ flag.
Options parse_options(int& argc, char** argv);

std::string options_help();

}  // namespace opmark::bench
