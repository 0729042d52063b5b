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

namespace opmark::bench {

// Launches shorter than this are timed in batches of back-to-back launches. A sample that starts on an idle GPU
// includes the host's launch latency (on an H200, a lone 6 us GEMM measured 13 us), and the events resolve about
// 0.5 us; in a batch the host queues ahead of the GPU, so both are paid once per batch, not once per launch.
constexpr double kShortLaunchSeconds = 1e-3;
// A batch of short launches lasts at least this long.
constexpr double kBatchTargetSeconds = 2e-3;
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
  // `agree` turns each measured time into the one every process of a multi-process run uses (their maximum), so
  // all of them launch a collective the same number of times; one process passes none.
  double warm_up(Workload& w, double warmup_ms, const std::function<double(double)>& agree = {});

  // One sample: `batch` launches, returns GPU seconds per launch. Hot: one event pair around the batch.
  // Cold, or a workload with untimed work before each launch: that work runs before each launch and only the
  // launches are timed (it keeps the GPU busy while the host queues the launch, so no launch latency is timed).
  double sample(Workload& w, int batch);

  // Seconds per launch of `n` back-to-back calls of `launch` between one pair of events.
  double time_launches(const std::function<void(cudaStream_t)>& launch, int n);

  L2Mode mode() const { return mode_; }

 private:
  void ensure_events(std::size_t pairs);
  bool times_each_launch(const Workload& w) const;
  void untimed_before_launch(Workload& w);
  cudaStream_t stream_;
  L2Mode mode_;
  std::unique_ptr<kernels::L2Flush> flush_;
  std::vector<cudaEvent_t> start_, stop_;
};

}  // namespace opmark::bench
