// Element-wise ops (the pointwise family): opmark's vectorised kernels (kernels/pointwise.cu; the paths that can run
// the shape are the tuner's candidates, the default first) or the cuDNN call for the same op, on a rows x cols
// tensor. Memory bound: judged by GB/s, no FLOPs.
#include <memory>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/pointwise.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

#ifdef OPMARK_HAVE_CUDNN
// The cuDNN call for an op: cudnnActivationForward (relu, sigmoid, tanh, silu as swish with beta 1) or
// cudnnOpTensor (add, mul, and bias_add with the bias broadcast over the rows), fp32 math.
class CudnnPointwise final : public CudnnOp {
 public:
  CudnnPointwise(const std::string& op, core::DType type, std::int64_t rows, std::int64_t cols, const void* x,
                 const void* y, const void* bias, void* out)
      : broadcast_(op == "bias_add"), x_(x), y_(y), bias_(bias), out_(out) {
    tensor_ = tensor_4d(type, 1, 1, rows, cols);
    bias_tensor_ = tensor_4d(type, 1, 1, 1, cols);
    if (op == "add" || op == "mul" || op == "bias_add") {
      cudnnOpTensorDescriptor_t d = nullptr;
      OPMARK_CHECK_CUDNN(cudnnCreateOpTensorDescriptor(&d));
      op_tensor_.reset(d);
      OPMARK_CHECK_CUDNN(cudnnSetOpTensorDescriptor(d, op == "mul" ? CUDNN_OP_TENSOR_MUL : CUDNN_OP_TENSOR_ADD,
                                                    CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
    } else {
      cudnnActivationDescriptor_t d = nullptr;
      OPMARK_CHECK_CUDNN(cudnnCreateActivationDescriptor(&d));
      activation_.reset(d);
      const cudnnActivationMode_t mode = op == "relu"      ? CUDNN_ACTIVATION_RELU
                                         : op == "sigmoid" ? CUDNN_ACTIVATION_SIGMOID
                                         : op == "tanh"    ? CUDNN_ACTIVATION_TANH
                                                           : CUDNN_ACTIVATION_SWISH;
      OPMARK_CHECK_CUDNN(cudnnSetActivationDescriptor(d, mode, CUDNN_PROPAGATE_NAN, 0.0));
      if (mode == CUDNN_ACTIVATION_SWISH) OPMARK_CHECK_CUDNN(cudnnSetActivationDescriptorSwishBeta(d, 1.0));
    }
  }

  void run(cudaStream_t stream) override {
    cudnnHandle_t h = cudnn_on(stream);
    const float one = 1.0f, zero = 0.0f;
    const cudnnTensorDescriptor_t t = tensor_.get();
    if (activation_) {
      OPMARK_CHECK_CUDNN(cudnnActivationForward(h, activation_.get(), &one, t, x_, &zero, t, out_));
    } else {
      OPMARK_CHECK_CUDNN(cudnnOpTensor(h, op_tensor_.get(), &one, t, x_, &one, broadcast_ ? bias_tensor_.get() : t,
                                       broadcast_ ? bias_ : y_, &zero, t, out_));
    }
  }

  std::string name() const override {
    return activation_ ? "cuDNN cudnnActivationForward" : "cuDNN cudnnOpTensor";
  }

 private:
  bool broadcast_;
  const void *x_, *y_, *bias_;
  void* out_;
  TensorDesc tensor_, bias_tensor_;
  OpTensorDesc op_tensor_;
  ActivationDesc activation_;
};
#endif

class PointwiseWorkload final : public KernelOrCudnnWorkload {
 public:
  PointwiseWorkload(const core::Case& c, const RunContext& ctx)
      : KernelOrCudnnWorkload(c), p_(core::tensor_op_problem(c)), prec_(core::precision_info(c.precision)),
        op_(kernels::pointwise_op(p_.op)) {
    const std::size_t n = static_cast<std::size_t>(p_.elements());
    x_ = DeviceBuffer(prec_.input, n);
    out_ = DeviceBuffer(prec_.input, n);
    kernels::fill_random(x_.get(), n, prec_.input, ctx.seed, ctx.stream);
    if (core::pointwise_inputs(p_.op) == 2) {
      y_ = DeviceBuffer(prec_.input, n);
      kernels::fill_random(y_.get(), n, prec_.input, ctx.seed + 1, ctx.stream);
    }
    if (core::pointwise_has_bias(p_.op)) {
      bias_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.cols));
      kernels::fill_random(bias_.get(), static_cast<std::size_t>(p_.cols), prec_.input, ctx.seed + 2, ctx.stream);
    }
    if (core::pointwise_has_mask(p_.op)) {  // one byte an element, 0 or 1 at random (int8 fills are integers)
      mask_ = DeviceBuffer(core::DType::i8, n);
      kernels::fill_uniform(mask_.get(), n, core::DType::i8, ctx.seed + 3, 0, 1, ctx.stream);
    }
#ifdef OPMARK_HAVE_CUDNN
    if (wants_cudnn())
      use_cudnn(std::make_unique<CudnnPointwise>(p_.op, prec_.input, p_.rows, p_.cols, x_.get(), y_.get(),
                                                 bias_.get(), out_.get()));
#endif
    if (!wants_cudnn()) paths_ = kernels::pointwise_paths(op_, p_.rows, p_.cols, core::size_of(prec_.input));
  }

  void launch_kernel(cudaStream_t stream) override {
    kernels::launch_pointwise(op_, prec_.input, x_.get(), y_.get(), bias_.get(), mask_.get(), out_.get(), p_.rows,
                              p_.cols, stream, paths_[static_cast<std::size_t>(chosen())]);
  }

  // One path (or the cuDNN call) is nothing to tune.
  int candidate_count() const override { return paths_.size() > 1 ? static_cast<int>(paths_.size()) : 0; }
  std::string candidate_name(int i) const override {
    return kernels::pointwise_path_name(paths_[static_cast<std::size_t>(i)]);
  }
  // copy: PyTorch's copy_ of a contiguous tensor is one cudaMemcpyAsync, a path of its own.
  int reference_candidate() const override {
    for (int i = 0; i < candidate_count(); ++i)
      if (paths_[static_cast<std::size_t>(i)].memcpy) return i;
    return -1;
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t n = static_cast<std::size_t>(p_.elements());
    // The float64 reference on the GPU: the largest cases move gigabytes, which through the host took seconds.
    const DeviceBuffer x = widen_on_device(x_, prec_.input, n, stream);
    const DeviceBuffer y = widen_on_device(y_, prec_.input, y_.get() ? n : 0, stream);
    const DeviceBuffer bias = widen_on_device(bias_, prec_.input, bias_.get() ? static_cast<std::size_t>(p_.cols) : 0,
                                              stream);
    const DeviceBuffer mask = widen_on_device(mask_, core::DType::i8, mask_.get() ? n : 0, stream);
    const DeviceBuffer ref_dev(core::DType::f64, n);
    kernels::pointwise_reference_on_device(op_, x.as<double>(), y.as<double>(), bias.as<double>(), mask.as<double>(),
                                           p_.rows, p_.cols, ref_dev.as<double>(), stream);
    kernels::poison(out_.get(), n, prec_.input, stream);
    launch(stream);
    // One rounding of an fp32 result to the storage type: the precision's tolerance, no accumulation depth.
    return kernels::compare_to_reference(out_.get(), prec_.input, ref_dev.as<double>(), n, prec_.tolerance, stream,
                                         prec_.tolerance);
  }

 private:
  core::PointwiseProblem p_;
  const core::PrecisionInfo& prec_;
  kernels::PointwiseOp op_;
  std::vector<kernels::PointwisePath> paths_;  // empty where cuDNN runs the case
  DeviceBuffer x_, y_, bias_, mask_, out_;
};

}  // namespace

const WorkloadFactory make_pointwise_workload = construct_workload<PointwiseWorkload>;

}  // namespace opmark::bench
