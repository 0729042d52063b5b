#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include "bench/families/cudnn_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "bench/families/cudnn_util.h"

namespace opmark::bench {

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
  OPMARK_CHECK_CUDNN(cudnnBackendCreateDescriptor(type, &d_));
}

BackendDescriptor::~BackendDescriptor() {
  if (d_) cudnnBackendDestroyDescriptor(d_);
}

void BackendDescriptor::set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values) {
  OPMARK_CHECK_CUDNN(cudnnBackendSetAttribute(d_, name, type, count, values));
}

void BackendDescriptor::finalize() { OPMARK_CHECK_CUDNN(cudnnBackendFinalize(d_)); }

std::unique_ptr<BackendDescriptor> graph_tensor(const GraphTensor& t, std::int64_t uid, bool is_virtual,
                                                bool by_value, std::int64_t byte_alignment) {
  auto d = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  d->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &t.type);
  d->set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<std::int64_t>(t.dims.size()), t.dims.data());
  d->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<std::int64_t>(t.strides.size()), t.strides.data());
  d->set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  d->set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &byte_alignment);
  if (is_virtual) {
    const bool yes = true;
    d->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &yes);
  }
  if (by_value) {
    const bool yes = true;
    d->set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &yes);
  }
  d->finalize();
  return d;
}

std::unique_ptr<BackendDescriptor> operation_graph(cudnnHandle_t handle,
                                                   const std::vector<cudnnBackendDescriptor_t>& ops) {
  auto g = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  g->set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<std::int64_t>(ops.size()),
         ops.data());
  g->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  g->finalize();
  return g;
}

namespace {

enum : std::int64_t { kUidX = 'x', kUidW = 'w', kUidY = 'y' };


// The node's operation type and the names of its attributes, by direction (x is dx for bwd_data, w is dw for
// bwd_filter, y is dy for both).
struct OpAttributes {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

OpAttributes op_attributes(kernels::ConvDirection d) {
  switch (d) {
    case kernels::ConvDirection::fwd:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    case kernels::ConvDirection::bwd_data:
      return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case kernels::ConvDirection::bwd_filter:
      break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
}

// The operation graph of one convolution node. The descriptors it refers to must outlive it: they are kept here.
struct ConvGraph {
  std::unique_ptr<BackendDescriptor> x, w, y, conv, op, graph;
};

ConvGraph build_graph(cudnnHandle_t handle, const ConvGraphSpec& s) {
  ConvGraph g;
  // 32 bytes, as PyTorch declares a tensor from a cudaMalloc'd (256-byte aligned) address: its getAlignment stops
  // doubling at 32, and cuDNN offers the engines that need it only so.
  constexpr std::int64_t kAlignment = 32;
  g.x = graph_tensor(s.x, kUidX, false, false, kAlignment);
  g.w = graph_tensor(s.w, kUidW, false, false, kAlignment);
  g.y = graph_tensor(s.y, kUidY, false, false, kAlignment);
  g.conv = std::make_unique<BackendDescriptor>(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const std::int64_t spatial = static_cast<std::int64_t>(s.padding.size());
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  g.conv->set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &s.compute);
  g.conv->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
  g.conv->set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  g.conv->set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial, s.padding.data());
  g.conv->set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial, s.padding.data());
  g.conv->set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial, s.stride.data());
  g.conv->set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial, s.dilation.data());
  g.conv->finalize();

  const float alpha = 1.0f, beta = 0.0f;
  const cudnnBackendDescriptor_t x = g.x->get(), w = g.w->get(), y = g.y->get(), conv = g.conv->get();
  const OpAttributes a = op_attributes(s.direction);
  g.op = std::make_unique<BackendDescriptor>(a.type);
  g.op->set(a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
  g.op->set(a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w);
  g.op->set(a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
  g.op->set(a.conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
  g.op->set(a.alpha, CUDNN_TYPE_FLOAT, 1, &alpha);
  g.op->set(a.beta, CUDNN_TYPE_FLOAT, 1, &beta);
  g.op->finalize();
  g.graph = operation_graph(handle, {g.op->get()});
  return g;
}

// The engine configurations one heuristic mode lists, best guess first; empty if the mode has none.
std::vector<std::shared_ptr<BackendDescriptor>> heuristic_configs(cudnnBackendDescriptor_t graph,
                                                                  cudnnBackendHeurMode_t mode) {
  std::vector<std::shared_ptr<BackendDescriptor>> out;
  BackendDescriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  heur.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  if (cudnnBackendFinalize(heur.get()) != CUDNN_STATUS_SUCCESS) return out;
  std::int64_t count = 0;
  if (cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                               nullptr) != CUDNN_STATUS_SUCCESS ||
      count <= 0)
    return out;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    out.push_back(std::make_shared<BackendDescriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(out.back()->get());
  }
  std::int64_t returned = 0;
  OPMARK_CHECK_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()));
  out.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(returned, 0, count)));
  return out;
}

struct EngineInfo {
  std::int64_t index = -1;
  std::set<cudnnBackendNumericalNote_t> notes;
};

EngineInfo engine_info(const BackendDescriptor& config) {
  EngineInfo info;
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t raw = engine.get();
  std::int64_t n = 0;
  if (cudnnBackendGetAttribute(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                               &raw) != CUDNN_STATUS_SUCCESS)
    return info;
  cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &info.index);
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  std::int64_t count = 0;
  if (cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                               CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, notes) == CUDNN_STATUS_SUCCESS)
    info.notes.insert(notes, notes + std::clamp<std::int64_t>(count, 0, CUDNN_NUMERICAL_NOTE_TYPE_COUNT));
  return info;
}

std::string plan_json(const BackendDescriptor& plan) {
  std::int64_t n = 0;
  if (cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &n,
                               nullptr) != CUDNN_STATUS_SUCCESS ||
      n <= 0)
    return {};
  std::string s(static_cast<std::size_t>(n), '\0');
  if (cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, n, &n,
                               s.data()) != CUDNN_STATUS_SUCCESS)
    return {};
  return s;
}

}  // namespace

std::vector<GraphPlan> graph_plans(cudnnHandle_t handle, std::shared_ptr<const void> owner,
                                   cudnnBackendDescriptor_t op_graph, const PlanRules& rules,
                                   std::size_t max_workspace, std::size_t max_plans, std::string* why,
                                   std::string* excluded) {
  std::vector<GraphPlan> plans;
  std::set<std::string> seen;
  int tf32 = 0, down_convert = 0, reduced_reduction = 0, not_finalized = 0, over_workspace = 0;
  const auto note_exclusions = [&] {
    std::string out;
    const auto add = [&](int n, const char* what) {
      if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    add(tf32, "TF32 (tensor cores on float)");
    add(down_convert, "down-converted inputs");
    add(reduced_reduction, "reduced-precision reduction");
    add(over_workspace, "over the workspace limit");
    add(not_finalized, "not runnable here");
    if (excluded) *excluded = out;
  };
  std::map<std::string, int> name_count;
  for (cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    if (plans.size() >= max_plans) break;  // full from mode A: no need to ask for the fallback list
    for (const auto& config : heuristic_configs(op_graph, mode)) {
      if (plans.size() >= max_plans) break;
      const EngineInfo info = engine_info(*config);
      if (rules.only_engine >= 0 && info.index != rules.only_engine) continue;
      // fp32 means FMA math: tensor-core engines on float data round the inputs to TF32. Down-converted inputs
      // or a reduced-precision reduction are below the precision the case states (fp32 accumulation).
      if (rules.float_data && !rules.allow_tensor_cores_for_float && info.notes.count(CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) {
        ++tf32;
        continue;
      }
      if (!rules.allow_down_convert && info.notes.count(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)) {
        ++down_convert;
        continue;
      }
      if (!rules.allow_reduced_precision_reduction &&
          info.notes.count(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION)) {
        ++reduced_reduction;
        continue;
      }
      auto plan = std::make_shared<BackendDescriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      const cudnnBackendDescriptor_t cfg = config->get();
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
      if (cudnnBackendFinalize(plan->get()) != CUDNN_STATUS_SUCCESS) {  // not for this GPU or shape
        ++not_finalized;
        continue;
      }
      std::int64_t workspace = 0, n = 0;
      OPMARK_CHECK_CUDNN(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                                  CUDNN_TYPE_INT64, 1, &n, &workspace));
      if (workspace < 0 || static_cast<std::size_t>(workspace) > max_workspace) {
        ++over_workspace;
        continue;
      }
      if (!seen.insert(plan_json(*plan)).second) continue;  // the fallback list repeats mode A's engines
      std::string name = kGraphEnginePrefix + std::to_string(info.index);
      std::string notes;
      if (info.notes.count(CUDNN_NUMERICAL_NOTE_TENSOR_CORE)) notes += "tensor cores";
      if (info.notes.count(CUDNN_NUMERICAL_NOTE_WINOGRAD)) notes += notes.empty() ? "winograd" : ", winograd";
      if (info.notes.count(CUDNN_NUMERICAL_NOTE_FFT)) notes += notes.empty() ? "fft" : ", fft";
      if (!notes.empty()) name += " (" + notes + ")";
      if (mode == CUDNN_HEUR_MODE_FALLBACK) name += " [fallback list]";
      // One engine often comes in several configurations (knob settings): number the later ones, so that a name
      // says which candidate ran (the harness finds the chosen one again by it).
      if (const int copies = name_count[name]++; copies > 0) name += " #" + std::to_string(copies + 1);
      plans.push_back({owner, config, plan, nullptr, workspace, name});
    }
  }
  note_exclusions();
  if (plans.empty() && why) *why = "cuDNN's graph heuristics list no engine that runs this graph in this precision";
  return plans;
}

std::vector<ConvGraphPlan> conv_graph_plans(cudnnHandle_t handle, const ConvGraphSpec& spec, std::size_t max_workspace,
                                            std::size_t max_plans, std::string* why, std::string* excluded,
                                            std::int64_t only_engine) {
  std::shared_ptr<ConvGraph> graph;
  try {
    graph = std::make_shared<ConvGraph>(build_graph(handle, spec));
  } catch (const std::exception& e) {  // cuDNN cannot describe this node (type or layout): the legacy path may
    if (why) *why = e.what();
    return {};
  }
  PlanRules rules;
  rules.float_data = spec.x.type == CUDNN_DATA_FLOAT;
  rules.allow_tensor_cores_for_float = spec.allow_tensor_cores_for_float;
  rules.only_engine = only_engine;
  return graph_plans(handle, graph, graph->graph->get(), rules, max_workspace, max_plans, why, excluded);
}

void bind_graph_plans(std::vector<GraphPlan>& plans, const std::vector<std::int64_t>& uids,
                      const std::vector<void*>& pointers, void* workspace) {
  for (auto& p : plans) {
    p.variant_pack = std::make_shared<BackendDescriptor>(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    p.variant_pack->set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<std::int64_t>(uids.size()),
                        uids.data());
    p.variant_pack->set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                        static_cast<std::int64_t>(pointers.size()), pointers.data());
    p.variant_pack->set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    p.variant_pack->finalize();
  }
}

void bind_conv_graph_plans(std::vector<ConvGraphPlan>& plans, void* x, void* w, void* y, void* workspace) {
  bind_graph_plans(plans, {kUidX, kUidW, kUidY}, {x, w, y}, workspace);
}

void execute_graph_plan(cudnnHandle_t handle, const GraphPlan& plan) {
  OPMARK_CHECK_CUDNN(cudnnBackendExecute(handle, plan.plan->get(), plan.variant_pack->get()));
}

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
