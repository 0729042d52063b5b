#pragma once
// What the memory-bound families (pointwise, reduce, batchnorm, pool) share: moving data to and from their float64
// references, their label, and the choice between opmark's kernel and the cuDNN call for the same op.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/harness/cases/workload.h"
#include "core/dtype.h"
#include "kernels/device_buffer.h"

#ifdef OPMARK_HAVE_CUDNN
#include "bench/families/cudnn_util.h"  // for the cuDNN side of each KernelOrCudnnWorkload
#endif

namespace opmark::bench {

// The first `count` elements of `buffer` (of element type `type`), widened to double, on the host.
std::vector<double> download_as_double(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                       cudaStream_t stream);

// The first `count` elements of `buffer` widened to double, on the device (an empty buffer where count is 0).
kernels::DeviceBuffer widen_on_device(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                      cudaStream_t stream);

// A host array as a device buffer of the same type (doubles for compare_to_reference, int32 indices); returns once
// the copy is done, so the host vector may go.
kernels::DeviceBuffer upload(const std::vector<double>& values, cudaStream_t stream);
kernels::DeviceBuffer upload(const std::vector<std::int32_t>& values, cudaStream_t stream);

// "opmark kernel | in f16, compute fp32, out f16": which implementation ran, and the types.
std::string memory_bound_label(const std::string& impl, core::DType type);

// The cuDNN call a family times in place of its own kernel (impl=cudnn), built over the case's buffers so that
// running it needs only the stream.
class CudnnOp {
 public:
  virtual ~CudnnOp() = default;
  virtual void run(cudaStream_t stream) = 0;
  virtual std::string name() const = 0;  // for the label: "cuDNN cudnnPoolingForward"
};

// A family that times opmark's kernel or the cuDNN call for the same op, as the case's impl says: launch runs the
// one chosen and the label names it. A build without cuDNN skips impl=cudnn cases before any buffer is made.
class KernelOrCudnnWorkload : public Workload {
 public:
  void launch(cudaStream_t stream) final;
  std::string label() const override;

 protected:
  explicit KernelOrCudnnWorkload(const core::Case& c);  // reads the case's impl field and element type
  virtual void launch_kernel(cudaStream_t stream) = 0;
  bool wants_cudnn() const { return wants_cudnn_; }
  bool runs_cudnn() const { return cudnn_ != nullptr; }
  // Called by the derived constructor, where wants_cudnn(), once the buffers the op reads and writes exist.
  void use_cudnn(std::unique_ptr<CudnnOp> op) { cudnn_ = std::move(op); }

 private:
  core::DType type_;
  bool wants_cudnn_;
  std::unique_ptr<CudnnOp> cudnn_;
};

}  // namespace opmark::bench
