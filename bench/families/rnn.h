#pragma once
// One cuDNN RNN network (descriptors, weight space, inputs, states, gradients, scratch) in one data type, so the
// benchmark's network and its float64 reference are built by the same code.
#include <memory>
#include <vector>

#include "bench/families/cudnn_util.h"
#include "core/families.h"
#include "kernels/device_buffer.h"

namespace opmark::bench {

struct RnnNetwork {
  RnnNetwork(const core::RnnProblem& p, core::DType data, cudnnDataType_t math_precision, cudnnMathType_t math_type,
             cudnnRNNAlgo_t algo);

  // One weight matrix or bias vector in the weight space (or the gradient space): cuDNN's pseudo-layer
  // (layer * directions + direction) and linear-layer ID (gates on the input side, then on the recurrent side).
  struct Param {
    int pseudo_layer;
    int lin_layer;
    bool is_bias;
    void* addr;         // null where the network has no such parameter (skip-input's first layer)
    std::size_t count;  // elements
  };
  std::vector<Param> params(bool gradients) const;

  void forward(bool training, cudaStream_t stream);
  void backward_data(cudaStream_t stream);     // after a training forward
  // After backward_data; adds this batch's weight gradients into dweights (cuDNN 9 supports only
  // CUDNN_WGRAD_MODE_ADD, as a framework accumulating gradients uses it). zero_weight_gradients() clears them.
  void backward_weights(cudaStream_t stream);
  void zero_weight_gradients(cudaStream_t stream);

  using RnnDesc = std::unique_ptr<cudnnRNNStruct, DestroyWith<cudnnDestroyRNNDescriptor>>;
  using DataDesc = std::unique_ptr<cudnnRNNDataStruct, DestroyWith<cudnnDestroyRNNDataDescriptor>>;

  core::RnnProblem problem;
  core::DType data_type;
  cudnnRNNAlgo_t algo;
  RnnDesc rnn;
  DataDesc x_desc, y_desc;
  TensorDesc h_desc;
  std::size_t weight_bytes = 0, work_bytes = 0, reserve_bytes = 0;
  kernels::DeviceBuffer x, y, dx, dy, hx, cx, hy, cy, dhx, dcx, dhy, dcy, weights, dweights, work, reserve, seq_lengths;
};

}  // namespace opmark::bench
