#pragma once
// Convolution through cuDNN's graph (backend) API: every engine configuration cuDNN 9's heuristics offer for one
// convolution node (mode A, then the fallback list), as PyTorch's cudnn.benchmark enumerates them. The legacy
// calls (cudnnConvolutionForward and friends) reach only the eight classic algorithms, which on Hopper are often
// several times slower than the engines the graph API runs.
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

// A tensor of the node: element type, dimensions (N, C, [D,] H, W or K, C/groups, [T,] R, S) and strides.
struct GraphTensor {
  cudnnDataType_t type;
  std::vector<std::int64_t> dims, strides;
};

struct ConvGraphSpec {
  kernels::ConvDirection direction;
  GraphTensor x, w, y;
  cudnnDataType_t compute;
  std::vector<std::int64_t> padding, stride, dilation;  // per spatial dimension
  bool allow_tensor_cores_for_float;                    // false: fp32 without TF32
};

// One runnable engine configuration, bound to the case's buffers.
struct ConvGraphPlan {
  std::shared_ptr<const void> graph;  // the operation graph and engine configuration the plan was made from
  std::shared_ptr<BackendDescriptor> config, plan, variant_pack;
  std::int64_t workspace = 0;
  std::string name;  // "graph engine 12 (tensor cores)"
};

// The plans that finalize on this GPU, heuristic mode A's list first (its first entry is cuDNN's own choice), then
// fallback engines not already listed; engines whose numerical notes break the precision's contract (TF32 in
// fp32, down-converted inputs, reduced-precision accumulation) and plans over `max_workspace` are left out.
// Returns an empty list when cuDNN has no engine for the node; `why` then says what cuDNN answered. `excluded`
// counts the engines left out, by reason ("3 reduced-precision reduction, 1 not runnable here").
std::vector<ConvGraphPlan> conv_graph_plans(cudnnHandle_t handle, const ConvGraphSpec& spec, std::size_t max_workspace,
                                            std::size_t max_plans, std::string* why, std::string* excluded);

// Gives every plan its variant pack: the x, w and y buffers and the workspace (at least each plan's workspace).
void bind_conv_graph_plans(std::vector<ConvGraphPlan>& plans, void* x, void* w, void* y, void* workspace);

void execute_conv_graph(cudnnHandle_t handle, const ConvGraphPlan& plan);

}  // namespace opmark::bench
