// Batch normalisation (the batchnorm family): opmark's kernels (kernels/batchnorm.cu) or cuDNN's
// cudnnBatchNormalizationForwardInference / ForwardTraining (spatial mode), on an NCHW or NHWC tensor (opmark's
// NHWC path: inference only, its normalisation over the tensor seen as N*H*W images of one pixel). Memory bound.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/error.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/batchnorm.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

#ifdef OPMARK_HAVE_CUDNN
// The buffers both implementations read and write; scale, bias and the statistics are fp32 per channel.
struct BatchnormTensors {
  const void* x;
  void* y;
  const float *scale, *bias, *mean, *var;
  float *save_mean, *save_invstd;
};

// cudnnBatchNormalizationForwardInference / ForwardTraining, spatial mode.
class CudnnBatchnorm final : public CudnnOp {
 public:
  CudnnBatchnorm(const core::BatchnormProblem& p, core::DType type, const BatchnormTensors& t)
      : train_(p.train), t_(t) {
    x_desc_ = tensor_4d(type, p.n, p.c, p.h, p.w, p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW);
    cudnnTensorDescriptor_t d = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&d));
    param_desc_.reset(d);
    OPMARK_CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(d, x_desc_.get(), CUDNN_BATCHNORM_SPATIAL));
    running_mean_ = DeviceBuffer(core::DType::f32, static_cast<std::size_t>(p.c));
    running_var_ = DeviceBuffer(core::DType::f32, static_cast<std::size_t>(p.c));
  }

  void run(cudaStream_t stream) override {
    cudnnHandle_t h = cudnn_on(stream);
    const float one = 1.0f, zero = 0.0f;
    const cudnnTensorDescriptor_t x = x_desc_.get(), param = param_desc_.get();
    if (train_)
      OPMARK_CHECK_CUDNN(cudnnBatchNormalizationForwardTraining(
          h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, t_.x, x, t_.y, param, t_.scale, t_.bias, 0.1,
          running_mean_.get(), running_var_.get(), kernels::kBatchNormEps, t_.save_mean, t_.save_invstd));
    else
      OPMARK_CHECK_CUDNN(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x, t_.x, x,
                                                                 t_.y, param, t_.scale, t_.bias, t_.mean, t_.var,
                                                                 kernels::kBatchNormEps));
  }

  std::string name() const override { return "cuDNN batch normalisation (spatial)"; }

 private:
  bool train_;
  BatchnormTensors t_;
  TensorDesc x_desc_, param_desc_;
  DeviceBuffer running_mean_, running_var_;
};
#endif

class BatchnormWorkload final : public KernelOrCudnnWorkload {
 public:
  BatchnormWorkload(const core::Case& c, const RunContext& ctx)
      : KernelOrCudnnWorkload(c), p_(core::batchnorm_problem(c)), prec_(core::precision_info(c.precision)) {
    // NHWC is one-pixel planes, which only the flat 32-bit normalisation serves (a block per plane could not launch).
    if (p_.nhwc && !wants_cudnn() && p_.elements() > INT32_MAX)
      throw UnsupportedError("opmark's NHWC batch norm indexes in 32 bits: at most 2^31 - 1 elements");
    const std::size_t count = static_cast<std::size_t>(p_.elements()), ch = static_cast<std::size_t>(p_.c);
    x_ = DeviceBuffer(prec_.input, count);
    y_ = DeviceBuffer(prec_.input, count);
    kernels::fill_random(x_.get(), count, prec_.input, ctx.seed, ctx.stream);
    for (DeviceBuffer* b : {&scale_, &bias_, &mean_, &var_, &save_mean_, &save_invstd_})
      *b = DeviceBuffer(core::DType::f32, ch);
    kernels::fill_uniform(scale_.get(), ch, core::DType::f32, ctx.seed + 1, 0.5, 1.5, ctx.stream);
    kernels::fill_uniform(bias_.get(), ch, core::DType::f32, ctx.seed + 2, -1.0, 1.0, ctx.stream);
    kernels::fill_uniform(mean_.get(), ch, core::DType::f32, ctx.seed + 3, -0.5, 0.5, ctx.stream);
    kernels::fill_uniform(var_.get(), ch, core::DType::f32, ctx.seed + 4, 0.5, 1.5, ctx.stream);
    const core::BatchnormProblem::Planes v = p_.planes();
    if (p_.train && !wants_cudnn())
      workspace_ = DeviceBuffer(std::max<std::size_t>(1, kernels::batchnorm_train_workspace_bytes(v.images, v.channels,
                                                                                                  v.pixels)));
#ifdef OPMARK_HAVE_CUDNN
    if (wants_cudnn())
      use_cudnn(std::make_unique<CudnnBatchnorm>(
          p_, prec_.input,
          BatchnormTensors{x_.get(), y_.get(), scale_.as<float>(), bias_.as<float>(), mean_.as<float>(),
                           var_.as<float>(), save_mean_.as<float>(), save_invstd_.as<float>()}));
#endif
  }

  void launch_kernel(cudaStream_t stream) override {
    const core::BatchnormProblem::Planes v = p_.planes();  // NHWC: inference only (the schema's check)
    if (p_.train)
      kernels::batchnorm_train(prec_.input, x_.get(), y_.get(), scale_.as<float>(), bias_.as<float>(),
                               save_mean_.as<float>(), save_invstd_.as<float>(), workspace_.get(), v.images,
                               v.channels, v.pixels, stream);
    else
      kernels::batchnorm_inference(prec_.input, x_.get(), y_.get(), scale_.as<float>(), bias_.as<float>(),
                                   mean_.as<float>(), var_.as<float>(), v.images, v.channels, v.pixels, stream);
  }

  std::string label() const override { return KernelOrCudnnWorkload::label() + (p_.nhwc ? " | NHWC" : ""); }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t count = static_cast<std::size_t>(p_.elements()), ch = static_cast<std::size_t>(p_.c);
    // The float64 reference on the GPU, as the pointwise family's: no copy of the tensors through the host.
    const DeviceBuffer x = widen_on_device(x_, prec_.input, count, stream);
    const DeviceBuffer scale = widen_on_device(scale_, core::DType::f32, ch, stream);
    const DeviceBuffer bias = widen_on_device(bias_, core::DType::f32, ch, stream);
    const DeviceBuffer mean = widen_on_device(mean_, core::DType::f32, ch, stream);
    const DeviceBuffer var = widen_on_device(var_, core::DType::f32, ch, stream);
    const DeviceBuffer ref_dev(core::DType::f64, count);
    const core::BatchnormProblem::Planes v = p_.planes();  // the layout's view: NHWC is N*H*W images of one pixel
    kernels::batchnorm_reference_on_device(p_.train, x.as<double>(), scale.as<double>(), bias.as<double>(),
                                           mean.as<double>(), var.as<double>(), v.images, v.channels, v.pixels,
                                           ref_dev.as<double>(), stream);
    kernels::poison(y_.get(), count, prec_.input, stream);
    launch(stream);
    // Training normalises with statistics accumulated over N x H x W values.
    const double depth = p_.train ? double(p_.n * p_.h * p_.w) : 1.0;
    return kernels::compare_to_reference(y_.get(), prec_.input, ref_dev.as<double>(), count,
                                         core::depth_tolerance(prec_.tolerance, depth), stream, prec_.tolerance);
  }

 private:
  core::BatchnormProblem p_;
  const core::PrecisionInfo& prec_;
  DeviceBuffer x_, y_, scale_, bias_, mean_, var_, save_mean_, save_invstd_;
  DeviceBuffer workspace_;  // our training kernel's per-split partial statistics
};

}  // namespace

const WorkloadFactory make_batchnorm_workload = construct_workload<BatchnormWorkload>;

}  // namespace opmark::bench
