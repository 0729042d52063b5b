// Element-wise ops (the pointwise family): opmark's vectorised kernels (kernels/pointwise.cu) or the cuDNN call
// for the same op, on a rows x cols tensor. Memory bound: judged by GB/s, no FLOPs.
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

#ifdef OPMARK_HAVE_CUDNN
#include "bench/families/cudnn_util.h"
#endif

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

#ifdef OPMARK_HAVE_CUDNN
// The cuDNN call for an op: cudnnActivationForward (relu, sigmoid, tanh, silu as swish with beta 1) or
// cudnnOpTensor (add, mul, and bias_add with the bias broadcast over the rows), fp32 math.
class CudnnPointwise {
 public:
  CudnnPointwise(const std::string& op, core::DType type, std::int64_t rows, std::int64_t cols) : op_(op) {
    if (rows * cols > INT32_MAX) throw UnsupportedError("cuDNN tensor descriptors take at most 2^31 - 1 elements");
    tensor_ = make_tensor(type, rows, cols);
    bias_ = make_tensor(type, 1, cols);
    if (op == "add" || op == "mul" || op == "bias_add") {
      OPMARK_CHECK_CUDNN(cudnnCreateOpTensorDescriptor(&op_tensor_));
      OPMARK_CHECK_CUDNN(cudnnSetOpTensorDescriptor(op_tensor_, op == "mul" ? CUDNN_OP_TENSOR_MUL : CUDNN_OP_TENSOR_ADD,
                                                    CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN));
    } else {
      OPMARK_CHECK_CUDNN(cudnnCreateActivationDescriptor(&activation_));
      const cudnnActivationMode_t mode = op == "relu"      ? CUDNN_ACTIVATION_RELU
                                         : op == "sigmoid" ? CUDNN_ACTIVATION_SIGMOID
                                         : op == "tanh"    ? CUDNN_ACTIVATION_TANH
                                                           : CUDNN_ACTIVATION_SWISH;
      OPMARK_CHECK_CUDNN(cudnnSetActivationDescriptor(activation_, mode, CUDNN_PROPAGATE_NAN, 0.0));
      if (mode == CUDNN_ACTIVATION_SWISH) OPMARK_CHECK_CUDNN(cudnnSetActivationDescriptorSwishBeta(activation_, 1.0));
    }
  }
  ~CudnnPointwise() {
    if (op_tensor_) cudnnDestroyOpTensorDescriptor(op_tensor_);
    if (activation_) cudnnDestroyActivationDescriptor(activation_);
    if (tensor_) cudnnDestroyTensorDescriptor(tensor_);
    if (bias_) cudnnDestroyTensorDescriptor(bias_);
  }
  CudnnPointwise(const CudnnPointwise&) = delete;
  CudnnPointwise& operator=(const CudnnPointwise&) = delete;

  void run(const void* x, const void* y, const void* bias, void* out, cudaStream_t stream) {
    cudnnHandle_t h = cudnn_handle();
    OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
    const float one = 1.0f, zero = 0.0f;
    if (activation_) {
      OPMARK_CHECK_CUDNN(cudnnActivationForward(h, activation_, &one, tensor_, x, &zero, tensor_, out));
    } else {
      const bool broadcast = op_ == "bias_add";
      OPMARK_CHECK_CUDNN(cudnnOpTensor(h, op_tensor_, &one, tensor_, x, &one, broadcast ? bias_ : tensor_,
                                       broadcast ? bias : y, &zero, tensor_, out));
    }
  }

  std::string name() const {
    return activation_ ? "cuDNN cudnnActivationForward" : "cuDNN cudnnOpTensor";
  }

 private:
  static cudnnTensorDescriptor_t make_tensor(core::DType type, std::int64_t rows, std::int64_t cols) {
    cudnnTensorDescriptor_t t = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&t));
    OPMARK_CHECK_CUDNN(
        cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, cudnn_data_type(type), 1, 1, int(rows), int(cols)));
    return t;
  }
  std::string op_;
  cudnnTensorDescriptor_t tensor_ = nullptr, bias_ = nullptr;
  cudnnOpTensorDescriptor_t op_tensor_ = nullptr;
  cudnnActivationDescriptor_t activation_ = nullptr;
};
#endif

class PointwiseWorkload final : public Workload {
 public:
  PointwiseWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::tensor_op_problem(c)), prec_(core::precision_info(c.precision)), op_(kernels::pointwise_op(p_.op)) {
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
    if (p_.impl == "cudnn") {
#ifdef OPMARK_HAVE_CUDNN
      cudnn_ = std::make_unique<CudnnPointwise>(p_.op, prec_.input, p_.rows, p_.cols);
      impl_name_ = cudnn_->name();
#else
      throw UnsupportedError("impl=cudnn: this build has no cuDNN");
#endif
    }
  }

  void launch(cudaStream_t stream) override {
#ifdef OPMARK_HAVE_CUDNN
    if (cudnn_) return cudnn_->run(x_.get(), y_.get(), bias_.get(), out_.get(), stream);
#endif
    kernels::launch_pointwise(op_, prec_.input, x_.get(), y_.get(), bias_.get(), mask_.get(), out_.get(), p_.rows,
                              p_.cols, stream);
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

  std::string label() const override { return memory_bound_label(impl_name_, prec_.input); }

 private:
  core::PointwiseProblem p_;
  const core::PrecisionInfo& prec_;
  kernels::PointwiseOp op_;
  DeviceBuffer x_, y_, bias_, mask_, out_;
  std::string impl_name_ = "opmark kernel";
#ifdef OPMARK_HAVE_CUDNN
  std::unique_ptr<CudnnPointwise> cudnn_;
#endif
};

}  // namespace

std::unique_ptr<Workload> make_pointwise_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<PointwiseWorkload>(c, ctx);
}

OPMARK_REGISTER_WORKLOAD("pointwise", make_pointwise_workload);

}  // namespace opmark::bench
