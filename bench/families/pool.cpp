// 2D pooling (the pool family): opmark's kernel (kernels/pool.cu) or cudnnPoolingForward, NCHW. Memory bound.
#include <memory>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/pool.h"

#ifdef OPMARK_HAVE_CUDNN
#include "bench/families/cudnn_util.h"
#endif

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

class PoolWorkload final : public Workload {
 public:
  PoolWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::pool_problem(c)), prec_(core::precision_info(c.precision)) {
    x_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w));
    y_ = DeviceBuffer(prec_.input, outputs());
    kernels::fill_random(x_.get(), static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w), prec_.input, ctx.seed,
                         ctx.stream);
    if (p_.impl == "cudnn") {
#ifdef OPMARK_HAVE_CUDNN
      const cudnnDataType_t t = cudnn_data_type(prec_.input);
      OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&x_desc_));
      OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&y_desc_));
      OPMARK_CHECK_CUDNN(cudnnCreatePoolingDescriptor(&pool_desc_));
      OPMARK_CHECK_CUDNN(
          cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, t, int(p_.n), int(p_.c), int(p_.h), int(p_.w)));
      OPMARK_CHECK_CUDNN(
          cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, t, int(p_.n), int(p_.c), int(p_.p), int(p_.q)));
      OPMARK_CHECK_CUDNN(cudnnSetPooling2dDescriptor(
          pool_desc_, p_.max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN,
          int(p_.r), int(p_.s), int(p_.pad_h), int(p_.pad_w), int(p_.stride_h), int(p_.stride_w)));
      impl_name_ = "cuDNN cudnnPoolingForward";
#else
      throw UnsupportedError("impl=cudnn: this build has no cuDNN");
#endif
    }
  }

  ~PoolWorkload() override {
#ifdef OPMARK_HAVE_CUDNN
    if (pool_desc_) cudnnDestroyPoolingDescriptor(pool_desc_);
    if (x_desc_) cudnnDestroyTensorDescriptor(x_desc_);
    if (y_desc_) cudnnDestroyTensorDescriptor(y_desc_);
#endif
  }

  void launch(cudaStream_t stream) override {
#ifdef OPMARK_HAVE_CUDNN
    if (pool_desc_) {
      cudnnHandle_t h = cudnn_handle();
      OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
      const float one = 1.0f, zero = 0.0f;
      OPMARK_CHECK_CUDNN(cudnnPoolingForward(h, pool_desc_, &one, x_desc_, x_.get(), &zero, y_desc_, y_.get()));
      return;
    }
#endif
    kernels::pool_forward(p_, prec_.input, x_.get(), y_.get(), stream);
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const auto x = download_as_double(x_, prec_.input, static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w), stream);
    const DeviceBuffer ref = upload(kernels::pool_reference(p_, x), stream);
    kernels::poison(y_.get(), outputs(), prec_.input, stream);
    launch(stream);
    return kernels::compare_to_reference(y_.get(), prec_.input, ref.as<double>(), outputs(),
                                         core::depth_tolerance(prec_.tolerance, double(p_.r * p_.s)), stream,
                                         prec_.tolerance);
  }

  std::string label() const override { return memory_bound_label(impl_name_, prec_.input); }

 private:
  std::size_t outputs() const { return static_cast<std::size_t>(p_.n * p_.c * p_.p * p_.q); }

  core::PoolProblem p_;
  const core::PrecisionInfo& prec_;
  DeviceBuffer x_, y_;
  std::string impl_name_ = "opmark kernel";
#ifdef OPMARK_HAVE_CUDNN
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnPoolingDescriptor_t pool_desc_ = nullptr;
#endif
};

}  // namespace

std::unique_ptr<Workload> make_pool_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<PoolWorkload>(c, ctx);
}

OPMARK_REGISTER_WORKLOAD("pool", make_pool_workload);

}  // namespace opmark::bench
