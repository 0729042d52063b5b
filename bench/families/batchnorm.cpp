// Batch normalisation (the batchnorm family): opmark's kernels (kernels/batchnorm.cu) or cuDNN's
// cudnnBatchNormalizationForwardInference / ForwardTraining (spatial mode), on an NCHW tensor. Memory bound.
#include <algorithm>
#include <memory>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/batchnorm.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

#ifdef OPMARK_HAVE_CUDNN
#include "bench/families/cudnn_util.h"
#endif

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

class BatchnormWorkload final : public Workload {
 public:
  BatchnormWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::batchnorm_problem(c)), prec_(core::precision_info(c.precision)) {
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
    if (p_.train && p_.impl == "opmark")
      workspace_ = DeviceBuffer(std::max<std::size_t>(1, kernels::batchnorm_train_workspace_bytes(p_.n, p_.c,
                                                                                                  p_.h * p_.w)));
    if (p_.impl == "cudnn") {
#ifdef OPMARK_HAVE_CUDNN
      if (p_.elements() > INT32_MAX) throw UnsupportedError("cuDNN tensor descriptors take at most 2^31 - 1 elements");
      OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc_));
      OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&param_desc_));
      OPMARK_CHECK_CUDNN(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, cudnn_data_type(prec_.input), int(p_.n),
                                                    int(p_.c), int(p_.h), int(p_.w)));
      OPMARK_CHECK_CUDNN(cudnnDeriveBNTensorDescriptor(param_desc_, x_desc_, CUDNN_BATCHNORM_SPATIAL));
      running_mean_ = DeviceBuffer(core::DType::f32, ch);
      running_var_ = DeviceBuffer(core::DType::f32, ch);
      impl_name_ = "cuDNN batch normalisation (spatial)";
#else
      throw UnsupportedError("impl=cudnn: this build has no cuDNN");
#endif
    }
  }

  ~BatchnormWorkload() override {
#ifdef OPMARK_HAVE_CUDNN
    if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
    if (param_desc_) cudnnDestroyTensorDescriptor(param_desc_);
#endif
  }

  void launch(cudaStream_t stream) override {
    const std::int64_t hw = p_.h * p_.w;
#ifdef OPMARK_HAVE_CUDNN
    if (x_desc_) {
      cudnnHandle_t h = cudnn_handle();
      OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
      const float one = 1.0f, zero = 0.0f;
      if (p_.train)
        OPMARK_CHECK_CUDNN(cudnnBatchNormalizationForwardTraining(
            h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_desc_, x_.get(), x_desc_, y_.get(), param_desc_, scale_.get(),
            bias_.get(), 0.1, running_mean_.get(), running_var_.get(), kernels::kBatchNormEps, save_mean_.get(),
            save_invstd_.get()));
      else
        OPMARK_CHECK_CUDNN(cudnnBatchNormalizationForwardInference(
            h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_desc_, x_.get(), x_desc_, y_.get(), param_desc_, scale_.get(),
            bias_.get(), mean_.get(), var_.get(), kernels::kBatchNormEps));
      return;
    }
#endif
    if (p_.train)
      kernels::batchnorm_train(prec_.input, x_.get(), y_.get(), scale_.as<float>(), bias_.as<float>(),
                               save_mean_.as<float>(), save_invstd_.as<float>(), workspace_.get(), p_.n, p_.c, hw,
                               stream);
    else
      kernels::batchnorm_inference(prec_.input, x_.get(), y_.get(), scale_.as<float>(), bias_.as<float>(),
                                   mean_.as<float>(), var_.as<float>(), p_.n, p_.c, hw, stream);
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t count = static_cast<std::size_t>(p_.elements()), ch = static_cast<std::size_t>(p_.c);
    // The float64 reference on the GPU, as the pointwise family's: no copy of the tensors through the host.
    const DeviceBuffer x = widen_on_device(x_, prec_.input, count, stream);
    const DeviceBuffer scale = widen_on_device(scale_, core::DType::f32, ch, stream);
    const DeviceBuffer bias = widen_on_device(bias_, core::DType::f32, ch, stream);
    const DeviceBuffer mean = widen_on_device(mean_, core::DType::f32, ch, stream);
    const DeviceBuffer var = widen_on_device(var_, core::DType::f32, ch, stream);
    const DeviceBuffer ref_dev(core::DType::f64, count);
    kernels::batchnorm_reference_on_device(p_.train, x.as<double>(), scale.as<double>(), bias.as<double>(),
                                           mean.as<double>(), var.as<double>(), p_.n, p_.c, p_.h * p_.w,
                                           ref_dev.as<double>(), stream);
    kernels::poison(y_.get(), count, prec_.input, stream);
    launch(stream);
    // Training normalises with statistics accumulated over N x H x W values.
    const double depth = p_.train ? double(p_.n * p_.h * p_.w) : 1.0;
    return kernels::compare_to_reference(y_.get(), prec_.input, ref_dev.as<double>(), count,
                                         core::depth_tolerance(prec_.tolerance, depth), stream, prec_.tolerance);
  }

  std::string label() const override { return memory_bound_label(impl_name_, prec_.input); }

 private:
  core::BatchnormProblem p_;
  const core::PrecisionInfo& prec_;
  DeviceBuffer x_, y_, scale_, bias_, mean_, var_, save_mean_, save_invstd_, running_mean_, running_var_;
  DeviceBuffer workspace_;  // our training kernel's per-split partial statistics
  std::string impl_name_ = "opmark kernel";
#ifdef OPMARK_HAVE_CUDNN
  cudnnTensorDescriptor_t x_desc_ = nullptr, param_desc_ = nullptr;
#endif
};

}  // namespace

std::unique_ptr<Workload> make_batchnorm_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<BatchnormWorkload>(c, ctx);
}

OPMARK_REGISTER_WORKLOAD("batchnorm", make_batchnorm_workload);

}  // namespace opmark::bench
