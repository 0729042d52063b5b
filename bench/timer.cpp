#include "bench/timer.h"

#include <algorithm>
#include <cmath>

#include "kernels/cuda_check.h"

namespace opmark::bench {

int choose_batch(double seconds_per_launch) {
  if (!(seconds_per_launch > 0) || seconds_per_launch >= kShortLaunchSeconds) return 1;
  const double n = std::ceil(kBatchTargetSeconds / seconds_per_launch - 1e-9);  // 200/2 is 100, not 101
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxBatch)));
}

Timer::Timer(cudaStream_t stream, L2Mode mode) : stream_(stream), mode_(mode) {
  if (mode_ == L2Mode::cold) flush_ = std::make_unique<kernels::L2Flush>();
  ensure_events(1);
}

Timer::~Timer() {
  for (auto e : start_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(e));
  for (auto e : stop_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(e));
}

void Timer::ensure_events(std::size_t pairs) {
  while (start_.size() < pairs) {
    cudaEvent_t a, b;
    OPMARK_CHECK_CUDA(cudaEventCreate(&a));
    OPMARK_CHECK_CUDA(cudaEventCreate(&b));
    start_.push_back(a);
    stop_.push_back(b);
  }
}

double Timer::time_launches(const std::function<void(cudaStream_t)>& launch, int n) {
  OPMARK_CHECK_CUDA(cudaEventRecord(start_[0], stream_));
  for (int i = 0; i < n; ++i) launch(stream_);
  OPMARK_CHECK_CUDA(cudaEventRecord(stop_[0], stream_));
  OPMARK_CHECK_CUDA(cudaEventSynchronize(stop_[0]));
  OPMARK_CHECK_LAUNCH();
  float ms = 0;
  OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start_[0], stop_[0]));
  return ms * 1e-3 / n;
}

// Work between launches that is not timed: the L2 flush (cold mode) and the workload's own preparation.
void Timer::untimed_before_launch(Workload& w) {
  if (flush_) flush_->flush(stream_);
  if (w.needs_before_launch()) w.before_launch(stream_);
}

double Timer::warm_up(Workload& w, double warmup_ms, const std::function<double(double)>& agree) {
  const auto agreed = [&](double seconds) { return agree ? agree(seconds) : seconds; };
  const bool per_launch_events = times_each_launch(w);
  const auto launch = [&](cudaStream_t s) {
    untimed_before_launch(w);  // its own kernels load before any timing too
    w.launch(s);
  };
  double per_launch = agreed(time_launches(launch, 1));  // pays for lazy module loading: not an estimate we keep
  double spent_ms = 0;
  for (int launches = 1; launches < 2 || (spent_ms < warmup_ms && launches < 100000);) {
    const int batch = choose_batch(per_launch);
    per_launch = agreed(per_launch_events ? sample(w, batch)
                                          : time_launches([&](cudaStream_t s) { w.launch(s); }, batch));
    spent_ms += per_launch * batch * 1e3;
    launches += batch;
  }
  // The estimate that picks the batch size comes from a batch itself: a lone launch's time is inflated by the
  // launch latency and would keep short kernels out of batching.
  return agreed(sample(w, choose_batch(per_launch)));
}

bool Timer::times_each_launch(const Workload& w) const { return mode_ == L2Mode::cold || w.needs_before_launch(); }

double Timer::sample(Workload& w, int batch) {
  if (!times_each_launch(w)) return time_launches([&](cudaStream_t s) { w.launch(s); }, batch);
  ensure_events(static_cast<std::size_t>(batch));
  for (int i = 0; i < batch; ++i) {
    untimed_before_launch(w);
    OPMARK_CHECK_CUDA(cudaEventRecord(start_[i], stream_));
    w.launch(stream_);
    OPMARK_CHECK_CUDA(cudaEventRecord(stop_[i], stream_));
  }
  OPMARK_CHECK_CUDA(cudaEventSynchronize(stop_[batch - 1]));
  OPMARK_CHECK_LAUNCH();
  double total_ms = 0;
  for (int i = 0; i < batch; ++i) {
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start_[i], stop_[i]));
    total_ms += ms;
  }
  return total_ms * 1e-3 / batch;
}

}  // namespace opmark::bench
