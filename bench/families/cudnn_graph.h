#pragma once
// cuDNN's graph (backend) API: descriptors, tensors, and every engine configuration cuDNN 9's heuristics offer for
// an operation graph (mode A, then the fallback list), as PyTorch's cudnn.benchmark enumerates them; the
// convolution node built on it. The legacy convolution calls (cudnnConvolutionForward and friends) reach only the
// eight classic algorithms, which on Hopper are often several times slower than the engines the graph API runs.
#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/reference_conv.h"

namespace opmark::bench {

// One cuDNN backend descriptor, destroyed with its owner.
class BackendDescriptor {
 public:
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor();
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  void set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  void finalize();

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

// A tensor of a node: element type, dimensions (N, C, [D,] H, W or K, C/groups, [T,] R, S) and strides.
struct GraphTensor {
  cudnnDataType_t type;
  std::vector<std::int64_t> dims, strides;
};

// A finalized tensor descriptor. Virtual tensors live only inside a fused engine; a by-value tensor is a scalar
// whose variant-pack pointer is host memory.
// byte_alignment: what the tensor's address is declared aligned to; an engine needing more is not offered.
std::unique_ptr<BackendDescriptor> graph_tensor(const GraphTensor& t, std::int64_t uid, bool is_virtual = false,
                                                bool by_value = false, std::int64_t byte_alignment = 16);

// One runnable engine configuration of an operation graph, bound to the case's buffers.
struct GraphPlan {
  std::shared_ptr<const void> graph;  // the operation graph and engine configuration the plan was made from
  std::shared_ptr<BackendDescriptor> config, plan, variant_pack;
  std::int64_t workspace = 0;
  std::string name;  // "graph engine 12 (tensor cores)"
};

// Which engines a case may run: engines whose numerical notes break the precision's contract are left out.
// What a graph plan's name starts with, before its engine's number ("graph engine 12 (tensor cores)").
inline const std::string kGraphEnginePrefix = "graph engine ";

struct PlanRules {
  bool float_data = false;                    // fp32 data: tensor cores would round the inputs to TF32
  bool allow_tensor_cores_for_float = false;  // tf32: they may
  bool allow_down_convert = false;            // inputs converted to a narrower type inside the engine
  bool allow_reduced_precision_reduction = false;
  // Only this engine's configurations (the end-of-run re-time builds the one candidate it runs; its name depends on
  // its own engine's configurations alone), or every engine (-1).
  std::int64_t only_engine = -1;
};

// The plans that finalize on this GPU for the operation graph `op_graph` (whose descriptors `owner` keeps alive),
// heuristic mode A's list first (its first entry is cuDNN's own choice), then fallback engines not already listed;
// plans over `max_workspace` and engines `rules` exclude are left out. Returns an empty list when cuDNN has no
// engine for the graph; `why` then says what cuDNN answered. `excluded` counts the engines left out, by reason
// ("3 reduced-precision reduction, 1 not runnable here").
std::vector<GraphPlan> graph_plans(cudnnHandle_t handle, std::shared_ptr<const void> owner,
                                   cudnnBackendDescriptor_t op_graph, const PlanRules& rules,
                                   std::size_t max_workspace, std::size_t max_plans, std::string* why,
                                   std::string* excluded);

// Gives every plan its variant pack: the tensors' unique ids and pointers, and the workspace (at least each plan's).
void bind_graph_plans(std::vector<GraphPlan>& plans, const std::vector<std::int64_t>& uids,
                      const std::vector<void*>& pointers, void* workspace);

void execute_graph_plan(cudnnHandle_t handle, const GraphPlan& plan);

// An operation graph over `ops` for `handle`.
std::unique_ptr<BackendDescriptor> operation_graph(cudnnHandle_t handle,
                                                   const std::vector<cudnnBackendDescriptor_t>& ops);

struct ConvGraphSpec {
  kernels::ConvDirection direction;
  GraphTensor x, w, y;
  cudnnDataType_t compute;
  std::vector<std::int64_t> padding, stride, dilation;  // per spatial dimension
  bool allow_tensor_cores_for_float;                    // false: fp32 without TF32
};

using ConvGraphPlan = GraphPlan;

// The convolution node's plans (graph_plans with the precision's rules); an empty list when cuDNN cannot describe
// or run the node (`why` says what it answered).
std::vector<ConvGraphPlan> conv_graph_plans(cudnnHandle_t handle, const ConvGraphSpec& spec, std::size_t max_workspace,
                                            std::size_t max_plans, std::string* why, std::string* excluded,
                                            std::int64_t only_engine = -1);

// Gives every plan its variant pack: the x, w and y buffers and the workspace (at least each plan's workspace).
void bind_conv_graph_plans(std::vector<ConvGraphPlan>& plans, void* x, void* w, void* y, void* workspace);

}  // namespace opmark::bench
