// 2D pooling (the pool family): opmark's kernel (kernels/pool.cu, NCHW) or cudnnPoolingForward, NCHW or NHWC.
// Memory bound.
#include <memory>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/pool.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

#ifdef OPMARK_HAVE_CUDNN
// cudnnPoolingForward; the average counts the padding in its divisor, as opmark's kernel does.
class CudnnPool final : public CudnnOp {
 public:
  CudnnPool(const core::PoolProblem& p, core::DType type, const void* x, void* y) : x_(x), y_(y) {
    const cudnnTensorFormat_t format = p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    x_desc_ = tensor_4d(type, p.n, p.c, p.h, p.w, format);
    y_desc_ = tensor_4d(type, p.n, p.c, p.p, p.q, format);
    cudnnPoolingDescriptor_t d = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreatePoolingDescriptor(&d));
    pool_desc_.reset(d);
    OPMARK_CHECK_CUDNN(cudnnSetPooling2dDescriptor(
        d, p.max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN, int(p.r),
        int(p.s), int(p.pad_h), int(p.pad_w), int(p.stride_h), int(p.stride_w)));
  }

  void run(cudaStream_t stream) override {
    const float one = 1.0f, zero = 0.0f;
    OPMARK_CHECK_CUDNN(cudnnPoolingForward(cudnn_on(stream), pool_desc_.get(), &one, x_desc_.get(), x_, &zero,
                                           y_desc_.get(), y_));
  }

  std::string name() const override { return "cuDNN cudnnPoolingForward"; }

 private:
  const void* x_;
  void* y_;
  TensorDesc x_desc_, y_desc_;
  PoolingDesc pool_desc_;
};
#endif

class PoolWorkload final : public KernelOrCudnnWorkload {
 public:
  PoolWorkload(const core::Case& c, const RunContext& ctx)
      : KernelOrCudnnWorkload(c), p_(core::pool_problem(c)), prec_(core::precision_info(c.precision)) {
    x_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w));
    y_ = DeviceBuffer(prec_.input, outputs());
    kernels::fill_random(x_.get(), static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w), prec_.input, ctx.seed,
                         ctx.stream);
#ifdef OPMARK_HAVE_CUDNN
    if (wants_cudnn()) use_cudnn(std::make_unique<CudnnPool>(p_, prec_.input, x_.get(), y_.get()));
#endif
  }

  void launch_kernel(cudaStream_t stream) override {
    kernels::pool_forward(p_, prec_.input, x_.get(), y_.get(), stream);
  }

  std::string label() const override { return KernelOrCudnnWorkload::label() + (p_.nhwc ? " | NHWC" : ""); }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const auto x = download_as_double(x_, prec_.input, static_cast<std::size_t>(p_.n * p_.c * p_.h * p_.w), stream);
    const DeviceBuffer ref = upload(kernels::pool_reference(p_, x), stream);
    kernels::poison(y_.get(), outputs(), prec_.input, stream);
    launch(stream);
    return kernels::compare_to_reference(y_.get(), prec_.input, ref.as<double>(), outputs(),
                                         core::depth_tolerance(prec_.tolerance, double(p_.r * p_.s)), stream,
                                         prec_.tolerance);
  }

 private:
  std::size_t outputs() const { return static_cast<std::size_t>(p_.n * p_.c * p_.p * p_.q); }

  core::PoolProblem p_;
  const core::PrecisionInfo& prec_;
  DeviceBuffer x_, y_;
};

}  // namespace

const WorkloadFactory make_pool_workload = construct_workload<PoolWorkload>;

}  // namespace opmark::bench
