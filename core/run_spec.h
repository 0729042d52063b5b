#pragma once
// The run's settings in one place: what a run is made with (RunSpec), and one table (run_settings) from which come
// the command line's --opmark_ flags and their help, the context line's typed keys, the keys a resumed run must
// match, and how the submission rules hold each (what a suite run takes from them, and what check holds a log to). A new setting is its field below and one entry in the table (run_spec.cpp); nothing else spells its flag
// or its key. Host-only, tested on the CPU (test/core/run_spec_test.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expr.h"
#include "core/run_context.h"
#include "core/run_modes.h"
#include "core/table.h"

namespace opmark::core {

struct Suite;  // core/suite.h: the submission rules

// Burst: a sample whose SM clock is under this fraction of the GPU's maximum is dropped (docs/regimes.md).
inline constexpr double kDefaultMinClockFraction = 0.9;
// Energy per case over at least this long a window of back-to-back launches: one step of NVML's energy counter.
inline constexpr double kDefaultEnergyWindowSeconds = 0.1;
// The repetition bounds opmark-bench takes without flags: at least kDefaultMinRepetitions, more until the noise
// target is met, at most kDefaultMaxRepetitions (burst: 10 x 5 ms keeps the clock).
inline constexpr int kDefaultMinRepetitions = 3;
// cuBLASLt's workspace where --opmark_workspace_mib is not given.
inline constexpr std::size_t kDefaultGemmWorkspaceBytes = std::size_t{1024} << 20;
inline constexpr int kDefaultMaxRepetitions = 10;
// ... until their median absolute deviation over the median is at most this, or the case has measured this long.
inline constexpr double kDefaultNoiseTarget = 0.01;
inline constexpr double kDefaultCaseTimeCapSeconds = 2.0;

struct RunSpec {
  std::vector<std::string> shapes;      // folders or files; default: the source tree's shapes/
  Selection selection;                  // families, sets, precisions, symbols
  std::vector<std::string> models;      // model tables (names in shapes/models/, or paths): run their cases instead
  std::string suite;                    // submission rules (shapes/submission.yaml): run the cases they require
  Symbols inputs;                       // the models' input sizes (B=16,H=512), over their defaults
  L2Mode l2 = L2Mode::hot;
  std::string out_dir;                  // results folder; empty: no files unless --benchmark_out is given
  bool overwrite = false;               // replace the results already in out_dir
  bool resume = false;                  // go on from the results already in out_dir
  bool validate_only = false;           // load and expand the tables, print a summary, run nothing
  std::map<std::string, double> peaks;  // overrides: precision -> TFLOPS, "bw" -> GB/s
  int candidates = 16;                  // library algorithms timed per case (cuBLASLt heuristic results)
  int engines = 0;                      // cuDNN graph engine configurations timed per convolution; 0: all listed
  // --opmark_workspace_mib. Unset: cuBLASLt gets kDefaultGemmWorkspaceBytes, and cuDNN's candidates any workspace
  // the GPU has free when they are listed, as PyTorch's cudnn.benchmark allows (its FFT engines can need gigabytes).
  std::optional<std::size_t> workspace_bytes;
  std::size_t gemm_workspace_bytes() const { return workspace_bytes.value_or(kDefaultGemmWorkspaceBytes); }
  std::uint64_t seed = 20261121;
  double warmup_ms = 10.0;              // untimed launches before measuring, so clocks have ramped up
  Regime regime = Regime::burst;        // burst: at full clock; sustained: at the power limit
  double min_time_s = 0.005;            // GPU seconds per repetition (burst: short, so the clock holds)
  bool graph_timing = true;             // time CUDA-graph replays (false: back-to-back launches from the host)
  int min_repetitions = kDefaultMinRepetitions;  // repetitions go on until their noise is at most noise_target...
  int max_repetitions = kDefaultMaxRepetitions;  // ... or this many were taken
  double noise_target = kDefaultNoiseTarget;  // median absolute deviation over median
  double case_time_cap_s = kDefaultCaseTimeCapSeconds;  // ... or the case spent this long measuring
  double min_clock_fraction = kDefaultMinClockFraction;
  double rest_s = 0;                    // burst: idle before each case's repetitions
  double batch_s = kDefaultBatchSeconds;  // GPU seconds of launches per timed replay
  double energy_window_s = kDefaultEnergyWindowSeconds;  // the least energy window per case; 0: no energy
  bool sustained_heavy = true;          // burst: heavy cases also get a sustained measurement
  bool console_table = false;           // Google Benchmark's table on the console instead of a line per case
  bool recheck = true;                  // re-time every case briefly at the end of the run (anomaly guard)
  bool isolated = false;                // also time each launch alone (isolated_us), as a profiler sees a kernel
  bool tuning_log = false;              // print every candidate's tuning times per case
  bool kernel_trace = true;             // trace each case's kernels and their own durations (CUPTI, kernel_us)
  int profile_launches = 0;             // > 0: after timing, K launches per case inside cudaProfilerStart/Stop (ncu)
  bool profile_graph = false;           // profile K replays of the timed graph instead (ncu --graph-profiling graph)
  std::string pin_path;                 // cases run the candidate this file names instead of tuning
  // Settings a test adds to the table (run_settings) keep their values here, by flag.
  std::map<std::string, std::string> extra;
  // The flags the command line gave (without dashes): a setting given stands against the rules' value (apply_rules).
  std::set<std::string> given;
};

// How the submission rules hold a setting (RunSetting::rules).
enum class RulesBound {
  none,      // the rules leave it to the run
  equal,     // the run's value is the rules' (a word the run must state; a number where the run states one)
  at_least,  // at least the rules' (more repetitions only measure longer)
  at_most,   // at most the rules' (a looser noise target stops a case sooner)
};

// One setting of the run: its flag, its help, the context key that records it and whether a resumed run must match
// it, and how a flag's text sets it.
struct RunSetting {
  std::string flag;     // "opmark_min_time": the command line's --opmark_min_time
  std::string metavar;  // "S" in the help's --opmark_min_time=S; empty: a switch (=true or =false only after '=')
  std::string help;     // one paragraph; the help wraps it
  std::string key;      // the context key that records the value; empty where the context records none
  bool resume = false;  // a resumed run must state the same value under `key`
  std::function<void(RunSpec&, const std::string& value)> apply;  // the flag's text into the spec; throws Error
  std::function<nlohmann::json(const RunSpec&)> value;             // what the context records under `key`
  // How the submission rules hold it, and the value they hold it to as the context records it (nullopt: these
  // rules name none). The run applies it (apply_rules) and the checker holds the run to it (rules_departures).
  RulesBound rules = RulesBound::none;
  std::function<std::optional<nlohmann::json>(const Suite&)> rules_value;
  bool rules_whole_runs_only = false;  // a run of part of a suite (--benchmark_filter) may leave the rules' value
};

// A switch's value: true for "", "true" or "1", false for "false" or "0"; any other value throws Error naming
// --`flag`.
bool parse_switch(const std::string& flag, const std::string& value);

// The table, in the help's order. A test may add to it; every reader below sees what it adds.
std::vector<RunSetting>& run_settings();
// The setting of a flag ("opmark_min_time", without the dashes), or null.
const RunSetting* find_setting(const std::string& flag);

// The context keys and values the settings record (the typed keys of the results log's context line).
nlohmann::json settings_context(const RunSpec& spec);
// The settings' keys a resumed run must state as the log it goes on from does.
std::vector<std::string> settings_resume_keys();
// Every flag's help: "  --opmark_min_time=S  GPU seconds ...", the text wrapped under a column, in table order.
std::string settings_help();

// A setting whose value a run states otherwise than the rules hold it to.
struct RulesDeparture {
  const RunSetting* setting;
  std::optional<nlohmann::json> stated;  // as the run states it; nullopt: it states none
  nlohmann::json required;
  // "the run's regime is 'sustained', the rules require burst" ("... at least 3", "... allow at most 0.01").
  std::string what(const std::string& where) const;
  std::string flag_text() const;  // "--opmark_regime=burst"
};
// The settings the rules hold whose value `stated` (a context key -> the value the run states, or nullopt) departs
// from theirs. A word the rules fix must be stated; a number the run does not state (an older format) is not held.
std::vector<RulesDeparture> rules_departures(
    const std::function<std::optional<nlohmann::json>(const std::string& key)>& stated, const Suite& rules);
// The rules over a run's spec: a word they fix must be the spec's (throws naming the rules file and the flag, but
// for a setting only whole runs must match where `whole_run` is false); a number the command line gave stands,
// else it takes the rules' value (equal), is raised to it (at_least) or lowered to it (at_most).
void apply_rules(RunSpec& spec, const Suite& rules, const std::string& rules_path, bool whole_run);

}  // namespace opmark::core
