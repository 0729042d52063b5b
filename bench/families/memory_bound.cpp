#include "bench/families/memory_bound.h"

#include "core/error.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/fill.h"

namespace opmark::bench {

kernels::DeviceBuffer widen_on_device(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                      cudaStream_t stream) {
  if (count == 0) return {};
  kernels::DeviceBuffer wide(core::DType::f64, count);
  kernels::to_double(buffer.get(), type, count, wide.as<double>(), stream);
  return wide;
}

std::vector<double> download_as_double(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                       cudaStream_t stream) {
  std::vector<double> host(count);
  if (count == 0) return host;
  const kernels::DeviceBuffer wide = widen_on_device(buffer, type, count, stream);
  OPMARK_CHECK_CUDA(cudaMemcpyAsync(host.data(), wide.get(), count * sizeof(double), cudaMemcpyDeviceToHost, stream));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  return host;
}

namespace {

template <class T>
kernels::DeviceBuffer upload_as(core::DType type, const std::vector<T>& values, cudaStream_t stream) {
  kernels::DeviceBuffer out(type, values.size());
  if (!values.empty())
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(out.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice,
                                      stream));
  // The host vector may go out of scope when this returns: wait for the copy.
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  return out;
}

}  // namespace

kernels::DeviceBuffer upload(const std::vector<double>& values, cudaStream_t stream) {
  return upload_as(core::DType::f64, values, stream);
}

kernels::DeviceBuffer upload(const std::vector<std::int32_t>& values, cudaStream_t stream) {
  return upload_as(core::DType::i32, values, stream);
}

std::string memory_bound_label(const std::string& impl, core::DType type) {
  return impl + " | in " + core::name_of(type) + ", compute fp32, out " + core::name_of(type);
}

KernelOrCudnnWorkload::KernelOrCudnnWorkload(const core::Case& c)
    : type_(core::precision_info(c.precision).input), wants_cudnn_(c.str_field("impl") == "cudnn") {
#ifndef OPMARK_HAVE_CUDNN
  if (wants_cudnn_) throw UnsupportedError("impl=cudnn: this build has no cuDNN");
#endif
}

void KernelOrCudnnWorkload::launch(cudaStream_t stream) {
  if (cudnn_) return cudnn_->run(stream);
  launch_kernel(stream);
}

std::string KernelOrCudnnWorkload::label() const {
  return memory_bound_label(cudnn_ ? cudnn_->name() : "opmark kernel", type_);
}

}  // namespace opmark::bench
