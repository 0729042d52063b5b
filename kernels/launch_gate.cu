#include "kernels/launch_gate.h"

#include <atomic>

#include "kernels/cuda_check.h"

namespace opmark::kernels {
namespace {

__device__ unsigned long long global_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void hold_kernel(volatile int* flags, unsigned long long timeout_ns) {
  const unsigned long long start = global_ns();
  while (flags[0] == 0) {
    if (global_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
  }
}

}  // namespace

LaunchGate::LaunchGate() {
  void* host = nullptr;
  OPMARK_CHECK_CUDA(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(host);
  flags_[0] = flags_[1] = 0;
  OPMARK_CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), host, 0));
}

LaunchGate::~LaunchGate() {
  if (flags_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaFreeHost(const_cast<int*>(flags_)));
}

void LaunchGate::close(cudaStream_t stream, double timeout_s) {
  // The previous hold has ended: the caller waited for the stream past it before closing again.
  flags_[0] = 0;
  flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_kernel<<<1, 1, 0, stream>>>(device_flags_, static_cast<unsigned long long>(timeout_s * 1e9));
  OPMARK_CHECK_LAUNCH();
}

void LaunchGate::open() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool LaunchGate::timed_out() const { return flags_[1] != 0; }

}  // namespace opmark::kernels
