#pragma once
// Model operator tables (OpBench): a model is a list of operator calls, each one case of a family (or of family
// `other`, outside the benchmarked families, kept so coverage is reported honestly) with its call count.
// Shapes are expressions over the model's inputs, so a model is scored at the input sizes a user asks for.
//
//   model: resnet50
//   area: cv_2d
//   task: image classification
//   source: torchvision 0.20 resnet50, random weights
//   mode: inference
//   memory_format: contiguous                       # optional: contiguous (the default) or channels_last
//   framework_config: fused_rmsnorm                 # optional: a non-default configuration the framework ran in
//   inputs: {B: 32, H: 224, W: 224}                 # the default input sizes
//   measured:                                        # optional: one entry per GPU (and precision) it ran on
//     - {device: GPU A, precision: fp16, graph_ms: G, eager_ms: E, kernel_ms: K}
//     - {device: GPU B, precision: fp16, graph_ms: G, eager_ms: E, kernel_ms: K,
//        date: "YYYY-MM-DD", software: "torch, cuDNN and driver versions"}
//   ops:
//     - {family: conv, calls: 1, source_op: aten::convolution, traced_us: T, kernels: ["longest kernel", ...],
//        n: B, c: 3, h: H, w: W, k: 64, r: 7, s: 7, pad_h: 3, pad_w: 3, stride_h: 2, stride_w: 2}
//     - {family: pointwise, calls: 16, source_op: aten::relu_, op: relu, rows: B*64, cols: H*W/16}
//     - {family: other, calls: 1, source_op: aten::max_pool2d, traced_us: 9.5}
//
// A table with a memory_format other than contiguous or with a framework_config is a variant: the same model with
// the framework configured as some users run it (channels_last; fused_rmsnorm: its RMSNorm modules run
// torch.nn.functional.rms_norm), traced and timed as its own table and asked for by name only.
// `source_op` is the framework's operator as traced (a family's own fields, such as pointwise's `op`, keep their
// names). `direction` defaults to the family's first (fwd); `calls` may be an expression too (layers x heads).
// `traced_us` is the operator's GPU time per call in the trace at the default inputs (the kernels it launched, from
// the profiler), for time coverage and the per-family comparison with opmark's times.
// `measured` is the traced model's own time on the named device: graph_ms one CUDA-graph replay of the whole pass
// (no launch gaps: what a score is compared with), eager_ms an eager pass (older tables: gpu_time_ms), kernel_ms
// the profiler's total kernel time of a pass. graph_suspect: true says the tracer found graph_ms out of what a
// correct capture gives (slower than the eager pass, or well below the kernel time; the table's header says by how
// much): the score check then uses kernel_ms, as where the capture failed. `date` (YYYY-MM-DD) and `software`
// (torch, cuDNN, driver versions) say when and with what an entry was measured, where known. A single map (older
// tables) reads as a list of one.
// Every problem is reported as "file:line:column: field 'name': what is wrong".
#include <optional>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/table.h"

namespace opmark::core {

struct ModelOp {
  SourceLocation where;
  std::string family;  // a family, or "other"
  std::string direction;
  std::string source_op;  // the framework's operator, as traced
  Cell calls;
  double traced_us = 0;
  std::vector<std::string> kernels;  // the framework's kernels in the call, longest first, where traced on a GPU
  std::map<std::string, Cell> fields;
};

struct ModelMeasurement {
  std::string device, precision;
  double gpu_time_ms = 0;  // the eager pass: `eager_ms`, or an older table's `gpu_time_ms`
  std::optional<double> graph_ms, eager_ms, kernel_ms;  // where the table gives them
  bool graph_suspect = false;  // graph_ms is not the model's time (the tracer's bounds; see above)
  std::string date, software;  // empty where the table does not say
};

// One call of the model's dependency graph (tables imported from ONNX): the op row it calls and the earlier calls
// whose outputs it reads. A model's calls in order, each op row appearing as often as its `calls`.
struct GraphCall {
  std::size_t op = 0;
  std::vector<std::size_t> after;
};

struct ModelTable {
  std::string path, name, area, task, source, mode;
  std::string memory_format = "contiguous";  // how the framework stored its 4-D tensors: contiguous or channels_last
  std::string framework_config;  // empty: the framework as configured by default; else the configuration it ran in
  Symbols inputs;
  std::vector<ModelMeasurement> measured;  // in the table's order; at most one per device and precision
  std::vector<ModelOp> ops;
  std::vector<GraphCall> graph;  // empty where the table records no dependencies (traced tables)
};

// The parallel lower bound (Benanza): the longest path through the dependency graph, each call taking its op row's
// time per call (`per_call_ms`, by op row; 0 for a call no measured case covers). Data-independent calls overlap.
double critical_path_ms(const ModelTable& model, const std::vector<double>& per_call_ms);

// Whether the table is a variant (see above): the framework run otherwise than by default.
bool is_variant(const ModelTable& model);

// The table's measured entry of exactly `device` (as the results context's `gpu` names it) and `precision`, or
// nullptr: another GPU's time is no real time of this one.
const ModelMeasurement* find_measurement(const ModelTable& model, const std::string& device,
                                         const std::string& precision);

ModelTable load_model_table(const std::string& path);
ModelTable parse_model_table(const std::string& yaml_text, const std::string& path);

// The model tables in `dir` (*.yaml with a `model:` key), sorted by name.
std::vector<std::string> find_model_files(const std::string& dir);

// The model tables `names` asks for, each read once: a name is looked up in the `models/` folder of each of
// `shape_dirs`, "all" takes every forward-pass table there that is no variant (the ones the areas score; variants
// by name only), "all_train" every training-step table (mode: train) that is no variant, and a path to a table
// file is read as it is. Throws opmark::Error naming an unknown model and the known ones.
// `folder`: the tables' folder in each shapes folder (submission rules name their own, core::Suite::model_folder).
std::vector<ModelTable> load_models(const std::vector<std::string>& names, const std::vector<std::string>& shape_dirs,
                                   const std::string& folder = "models");

// One operator of a model at given inputs and precision: its case (family "other": no case) and its calls.
struct ModelCall {
  const ModelOp* op;
  std::optional<Case> c;  // empty for family "other", and where the family does not run the precision
  std::int64_t calls = 0;
  bool precision_not_run = false;  // e.g. an RNN in int8: the model's call exists, no case measures it
};

// Checks that every input `inputs` names (--opmark_inputs) is one that some model of `models` has: an unknown name
// would be ignored without a word. Throws opmark::Error listing the models' inputs.
void check_inputs(const std::vector<ModelTable>& models, const Symbols& inputs);

// The model's calls at its default inputs overridden by `inputs`, in `precision`. Throws TableError naming the
// file, line and symbol when an input is missing or a shape does not evaluate to a valid value.
std::vector<ModelCall> model_calls(const ModelTable& model, const Symbols& inputs, const std::string& precision);

// The cases a set of models needs, each unique case once (Benanza's unique layers), tagged with the models that
// call it (Case::models).
std::vector<Case> model_cases(const std::vector<ModelTable>& models, const Symbols& inputs,
                              const std::vector<std::string>& precisions);

}  // namespace opmark::core
