#pragma once
// The SM clock the GPU actually ran at, measured on the GPU: a stamp kernel records each multiprocessor's cycle
// counter (clock64) beside the global nanosecond timer; two stamps give cycles over nanoseconds, the mean clock
// between them. NVML's clock and clock-event readings refresh only every few tens of milliseconds, too late to
// tell which 1 ms sample ran throttled.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace opmark::kernels {

struct SmStamp {
  long long cycles = 0;         // the multiprocessor's clock64
  unsigned long long ns = 0;    // %globaltimer
};

class SmClockProbe {
 public:
  SmClockProbe();
  ~SmClockProbe();
  SmClockProbe(const SmClockProbe&) = delete;
  SmClockProbe& operator=(const SmClockProbe&) = delete;

  // Enqueues a stamp into slot 0 or 1 (one block per multiprocessor, a few microseconds).
  void stamp(cudaStream_t stream, int slot);
  // Waits for `stream` to pass both stamps, then: the median over multiprocessors of cycles / ns between slot 0 and slot 1, in MHz;
  // 0 where no multiprocessor was stamped twice or no time passed.
  double mhz(cudaStream_t stream);

 private:
  SmStamp* stamps_ = nullptr;  // [2][kMaxSms], device memory
  int sms_ = 0;
};

// Host-only: the median MHz over multiprocessors present in both stamp sets (cycles > 0 in both).
double median_mhz(const std::vector<SmStamp>& first, const std::vector<SmStamp>& second);

}  // namespace opmark::kernels
