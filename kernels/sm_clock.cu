#include "kernels/sm_clock.h"

#include <algorithm>

#include "kernels/cuda_check.h"

namespace opmark::kernels {
namespace {

constexpr int kMaxSms = 256;

__global__ void stamp_kernel(SmStamp* out) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  const long long cycles = clock64();
  // Several blocks may land on one multiprocessor: any of them is a valid stamp of it.
  if (threadIdx.x == 0 && sm < kMaxSms) out[sm] = SmStamp{cycles, ns};
}

}  // namespace

double median_mhz(const std::vector<SmStamp>& first, const std::vector<SmStamp>& second) {
  std::vector<double> mhz;
  for (std::size_t i = 0; i < first.size() && i < second.size(); ++i) {
    const SmStamp& a = first[i];
    const SmStamp& b = second[i];
    if (a.cycles <= 0 || b.cycles <= a.cycles || b.ns <= a.ns) continue;
    mhz.push_back(static_cast<double>(b.cycles - a.cycles) * 1e3 / static_cast<double>(b.ns - a.ns));
  }
  if (mhz.empty()) return 0;
  std::nth_element(mhz.begin(), mhz.begin() + static_cast<long>(mhz.size() / 2), mhz.end());
  return mhz[mhz.size() / 2];
}

SmClockProbe::SmClockProbe() {
  int device = 0;
  OPMARK_CHECK_CUDA(cudaGetDevice(&device));
  OPMARK_CHECK_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  sms_ = std::min(sms_, kMaxSms);
  OPMARK_CHECK_CUDA(cudaMalloc(&stamps_, 2 * kMaxSms * sizeof(SmStamp)));
  OPMARK_CHECK_CUDA(cudaMemset(stamps_, 0, 2 * kMaxSms * sizeof(SmStamp)));
}

SmClockProbe::~SmClockProbe() {
  if (stamps_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaFree(stamps_));
}

void SmClockProbe::stamp(cudaStream_t stream, int slot) {
  // Two blocks a multiprocessor's worth, so every one is very likely stamped.
  stamp_kernel<<<2 * sms_, 32, 0, stream>>>(stamps_ + (slot ? kMaxSms : 0));
  OPMARK_CHECK_LAUNCH();
}

double SmClockProbe::mhz(cudaStream_t stream) {
  std::vector<SmStamp> host(2 * kMaxSms);
  OPMARK_CHECK_CUDA(
      cudaMemcpyAsync(host.data(), stamps_, host.size() * sizeof(SmStamp), cudaMemcpyDeviceToHost, stream));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<SmStamp> first(host.begin(), host.begin() + sms_);
  const std::vector<SmStamp> second(host.begin() + kMaxSms, host.begin() + kMaxSms + sms_);
  return median_mhz(first, second);
}

}  // namespace opmark::kernels
