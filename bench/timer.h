#pragma once
// GPU timing with CUDA events on the benchmark's stream. Everything a family would otherwise copy lives here:
// untimed warm-up, batching of short kernels, hot or cold L2.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

#include "bench/options.h"
#include "bench/workload.h"
#include "kernels/l2_flush.h"
#include "kernels/stream_blocker.h"

namespace opmark::bench {

// Launches shorter than this are timed in batches of back-to-back launches, so the launch gap and the
// events' resolution (about 0.5 us) do not dominate.
constexpr double kShortLaunchSeconds = 10e-6;
// A batch of short launches lasts at least this long.
constexpr double kBatchTargetSeconds = 200e-6;
constexpr int kMaxBatch = 2000;

// How many launches one sample holds, from a warm launch time. Host-only arithmetic, tested on the CPU.
int choose_batch(double seconds_per_launch);

class Timer {
 public:
  Timer(cudaStream_t stream, L2Mode mode);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Untimed launches for at least `warmup_ms` of GPU time (and at least 2 launches), so clocks have ramped
  // and lazy library setup is done. Returns seconds per launch, measured on a batch (see choose_batch).
  double warm_up(Workload& w, double warmup_ms);

  // One sample: `batch` launches, returns GPU seconds per launch. Hot: one event pair around the batch.
  // Cold: the L2 is flushed before each launch and only the launches are timed.
  // The stream is held (StreamBlocker) while the sample is queued, so no launch waits for the host.
  double sample(Workload& w, int batch);

  // Seconds per launch of `n` back-to-back calls of `launch`, queued behind the blocker when `blocked`.
  // The first call of anything new must not be blocked: a lazily loaded kernel can make the host wait for the
  // device, which would wait for the host.
  double time_launches(const std::function<void(cudaStream_t)>& launch, int n, bool blocked);

  L2Mode mode() const { return mode_; }

 private:
  void ensure_events(std::size_t pairs);
  cudaStream_t stream_;
  L2Mode mode_;
  std::unique_ptr<kernels::L2Flush> flush_;
  kernels::StreamBlocker blocker_;
  std::vector<cudaEvent_t> start_, stop_;
};

}  // namespace opmark::bench
