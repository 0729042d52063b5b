#pragma once
// An owning device allocation. Allocation failure throws OutOfMemoryError so the case is skipped, not failed.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/dtype.h"
#include "kernels/cuda_check.h"

namespace opmark::kernels {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) OPMARK_CHECK_CUDA(cudaMalloc(&ptr_, bytes_));
  }
  DeviceBuffer(core::DType type, std::size_t count) : DeviceBuffer(core::size_of(type) * count) {}
  ~DeviceBuffer() {
    if (ptr_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaFree(ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace opmark::kernels
