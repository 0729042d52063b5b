#pragma once
// The submission suite and its rules (shapes/submission.yaml): which cases a submission run measures and what the
// checker requires of a bundle. One reader for opmark-bench (--opmark_suite) and opmark-aggregate check, so the
// run and the check can never disagree about the required cases.
//
//   submission:
//     rules_version: 2
//     repetitions: 3            # at least this many repetitions per case (opmark-bench --opmark_repetitions)
//     min_time_s: 0.01          # GPU seconds per repetition
//     noise_target: 0.01        # optional, 0 < x < 1 (default 0.01): repetitions go on until the noise is at most
//                               # this (opmark-bench --opmark_noise); max_noise is what the checker still accepts
//     timing: graph             # optional: graph (CUDA-graph replays, the GPU's own time) or eager (launches from
//                               # the host); unset: either. The checker requires the run's timing_mode to match
//     max_repetitions: 10       # optional: the most repetitions a case may take (the run's --opmark_max_repetitions)
//     regime: burst             # optional: burst or sustained; the run's context must say it (results format 3)
//     l2: hot                   # optional: hot or cold, the L2 mode the run's context must state (--opmark_l2)
//     max_noise: 0.25           # per-case noise limit: median absolute deviation of the repetitions over their median
//     max_median_noise: 0.02    # the run's limit: the median over its cases of that noise
//     max_unstable_fraction: 0.01  # optional (default 0): unstable cases a run may keep, as a fraction of its
//                               # measured ones (rounded down); each keeps its status and reason, and no score hides it
//     tables:                   # DeepBench sets of every family, in the precisions the rules name
//       - {family: gemm, sets: [train, inference_server, inference_device], precisions: [fp16]}
//     models: {names: [all], precision: fp16}   # the cases the model tables need, at their default inputs
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/model_table.h"
#include "core/run_modes.h"
#include "core/table.h"

namespace opmark::core {

struct SuiteTables {
  SourceLocation where;
  Selection selection;  // one family, its sets and precisions
};

struct Suite {
  std::string path;
  int rules_version = 0;
  int repetitions = 0;
  double min_time_s = 0;
  double noise_target = 0.01;   // the run's target noise per case (repetitions adapt until it is reached)
  std::optional<TimingMode> timing;  // graph or eager; unset: either
  int max_repetitions = 0;      // 0: the rules set no maximum (opmark-bench's own applies)
  std::optional<Regime> regime;  // unset: rules before version 5, which name none
  std::optional<L2Mode> l2;      // unset: either
  double max_noise = 0;         // per case
  double max_median_noise = 0;  // over the run: the median of the cases' noise (a noisy system)
  double max_unstable_fraction = 0;  // of the measured cases, unstable ones a run may keep
  std::vector<SuiteTables> tables;
  std::vector<std::string> model_names;  // as load_models takes them ("all", names, paths)
  std::string model_folder = "models";   // where they are, in the shapes folder: rules keep the tables they name
  std::string model_precision;
};

// Reads and validates the rules; errors name file, line, column and key (TableError).
Suite load_suite(const std::string& path);
Suite parse_suite(const std::string& yaml_text, const std::string& path);

// Every case the suite requires, each once (a shape both a table and a model need carries both's sets and
// models). Table entries naming a set or family the tables lack are errors: rules must not silently shrink.
std::vector<Case> suite_cases(const Suite& suite, const std::vector<Table>& tables,
                              const std::vector<ModelTable>& models);

// Cases by canonical name, merging the provenance (sets, applications, models, sources) of duplicates, in the
// order first seen.
std::vector<Case> merge_cases(std::vector<Case> cases);

}  // namespace opmark::core
