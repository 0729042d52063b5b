#pragma once
// OpBench's scores (equations 1-4) from measured results and model operator tables. For a model, the score is
// the sum over its calls of calls x the measured time of the call's case: the model's lower-bound latency in ms
// (Benanza). For an area, W_i = N_i / N_models weights each case by its calls over the area's models, so the
// area's score is the mean of its models' scores. Lower is better.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "core/model_table.h"
#include "core/run_modes.h"

namespace opmark::aggregate {

// One family's share of a model: opmark's time (calls x measured time of its measured cases) beside the table's
// traced kernel time (calls x traced_us), so a reader sees where the score and the real model differ.
struct FamilyTime {
  double score_ms = 0;        // opmark's, over the calls whose case was measured
  double traced_ms = 0;       // the table's, over all the family's calls (0 where it has no traced times)
  double traced_scored_ms = 0;  // the table's, over the calls opmark measured (like for like with score_ms)
  std::int64_t calls = 0, scored_calls = 0;
  // Scored calls whose case has a layout field at NCHW: in a channels_last table, calls the framework ran in NHWC
  // (a table traced before batchnorm and pool had layout: NHWC).
  std::int64_t nchw_scored_calls = 0;
  // The evidence for a headroom finding (aggregate/headroom.h), over the measured calls: time by the framework's
  // longest kernel of each call (where the table names them) and by the longest kernel of opmark's case (where the
  // run traced it), and the traced time of calls the tracer fused from several framework calls.
  std::map<std::string, double> traced_kernels_ms, our_kernels_ms;
  double fused_traced_ms = 0;
  std::string fused_source_op;  // the first such call's source, e.g. "rmsnorm (pow+mean+add+rsqrt+mul)"
};

struct ModelScore {
  std::string name, area;
  std::string memory_format = "contiguous";  // the table's: contiguous or channels_last
  std::string framework_config;              // the table's: empty (the default) or e.g. fused_rmsnorm
  double score_ms = 0;                   // calls x time over the calls whose case was measured
  // The parallel lower bound: the longest path through the table's dependency graph (core::critical_path_ms), where
  // the table records one (imported from ONNX); data-independent calls overlap.
  std::optional<double> parallel_ms;
  std::int64_t calls = 0, covered_calls = 0;  // all operator calls; those a measured case covers
  double traced_us = 0, covered_traced_us = 0;  // the table's traced GPU time (0: the table has none)
  std::vector<std::string> missing;      // cases a benchmarked family runs that the results lack or did not run
  std::vector<std::string> unstable;     // scored cases measured unstable (their time counts, but is in doubt)
  // The table's measured entry of the run's GPU and precision (core::find_measurement); none where it has none.
  std::optional<double> measured_ms;     // the model's own GPU time (eager pass)
  std::string measured_device, measured_precision;
  std::optional<double> graph_ms, kernel_ms;  // the CUDA-graph replay and total kernel time, where given
  bool graph_suspect = false;  // the tracer flagged graph_ms as not the model's time (core::ModelMeasurement)
  std::vector<core::ModelMeasurement> other_measurements;  // the table's entries of other GPUs or precisions
  // The GPU its traced_us were measured on: the tracer writes its own GPU's entry first (other GPUs' are added
  // after it); empty where the table has no entry.
  std::string traced_device;
  std::map<std::string, FamilyTime> families;  // by family, "other" included (traced time only)

  double coverage_calls() const { return calls ? double(covered_calls) / double(calls) : 0.0; }
  // Some of the model's cases are missing (--allow-missing): its score is a lower bound, no model's time.
  bool partial() const { return !missing.empty(); }
  // Share of the traced GPU time the covered calls account for; negative when the table has no traced times.
  double coverage_time() const { return traced_us > 0 ? covered_traced_us / traced_us : -1.0; }
  // The table records the real model's graph or kernel time on some GPU (tables traced since issue 17).
  bool has_real_times() const;
};

// How many framework calls a table op's source names: the tracer writes a fused call as "name (a+b+c)", 3; any
// other source is 1.
int fused_calls(const std::string& source_op);

// The measured entry is the one of the GPU results.context's `gpu` names.
ModelScore score_model(const core::ModelTable& model, const core::Symbols& inputs, const std::string& precision,
                       const ResultSet& results);

// The score checked against the real model (issue 17): the table's traced model on the same GPU as the run.
// real_ms is the CUDA-graph replay (graph_ms), or where the table has none or flags it suspect (graph_suspect) the
// profiler's total kernel time (real_kind says which); a run on a GPU the table has no entry of, or a table without
// those times, gets no ratio (why_not says why).
struct ScoreCheck {
  std::string model;
  double score_ms = 0;
  std::optional<double> real_ms;
  std::string real_kind;  // "graph" or "kernel"
  std::string why_not;    // where there is no real_ms
  double ratio() const { return real_ms && *real_ms > 0 ? score_ms / *real_ms : 0.0; }
};
ScoreCheck check_score(const ModelScore& score, const std::string& run_gpu);

// A run's L2 mode from its context (the typed key, or an older run's timing sentence through
// core::run_parameters_of), or none where the context does not say.
std::optional<core::L2Mode> l2_mode(const std::map<std::string, std::string>& context);

// Where the real time lies against a hot-L2 score (a lower bound: operands stay in cache between launches) and a
// cold-L2 one (every launch starts from an empty L2): "between", "below hot" or "above cold".
std::string hot_cold_verdict(double hot_ms, double cold_ms, double real_ms);

struct Area {
  std::string name, description;
  std::vector<std::string> models;
};
// shapes/areas.yaml: areas: {name: {description: ..., models: [a, b]}}. Throws TableError with file:line.
std::vector<Area> load_areas(const std::string& path);

struct AreaScore {
  std::string name;
  std::vector<std::string> models;
  double score_ms = 0;  // sum over cases of W_i C_i, W_i = calls over the area's models / number of models
  bool partial = false;  // one of its models' scores is partial
  bool scored = false;   // one of its models has a case measured
};

AreaScore score_area(const Area& area, const std::vector<ModelScore>& scores);

}  // namespace opmark::aggregate
