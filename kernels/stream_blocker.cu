#include "kernels/cuda_check.h"
#include "kernels/stream_blocker.h"

namespace opmark::kernels {
namespace {

constexpr unsigned long long kTimeoutNs = 5ull * 1000 * 1000 * 1000;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_until_released(volatile int* flags) {
  const unsigned long long start = global_ns();
  while (flags[0] == 0) {
    if (global_ns() - start > kTimeoutNs) {
      flags[1] = 1;
      return;
    }
    __nanosleep(200);
  }
}

}  // namespace

StreamBlocker::StreamBlocker() {
  void* host = nullptr;
  OPMARK_CHECK_CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  host_flags_ = static_cast<volatile int*>(host);
  host_flags_[0] = 1;
  host_flags_[1] = 0;
  OPMARK_CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), host, 0));
}

StreamBlocker::~StreamBlocker() {
  if (blocked_) release();
  if (host_flags_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaFreeHost(const_cast<int*>(host_flags_)));
}

void StreamBlocker::block(cudaStream_t stream) {
  host_flags_[0] = 0;
  host_flags_[1] = 0;
  blocked_ = true;
  spin_until_released<<<1, 1, 0, stream>>>(device_flags_);
  OPMARK_CHECK_LAUNCH();
}

void StreamBlocker::release() {
  host_flags_[0] = 1;
  blocked_ = false;
}

}  // namespace opmark::kernels
