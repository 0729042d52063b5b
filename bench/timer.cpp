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

double Timer::warm_up(Workload& w, double warmup_ms) {
  double per_launch = sample(w, 1);  // the first launch also pays for lazy module loading: not a number we keep
  double spent_ms = per_launch * 1e3;
  int launches = 1;
  while (launches < 2 || spent_ms < warmup_ms) {
    const int batch = std::max(1, choose_batch(per_launch));
    per_launch = sample(w, batch);
    spent_ms += per_launch * batch * 1e3;
    launches += batch;
    if (launches > 100000) break;  // a kernel of ~0 time: enough
  }
  return per_launch;
}

double Timer::sample(Workload& w, int batch) {
  if (mode_ == L2Mode::hot) {
    OPMARK_CHECK_CUDA(cudaEventRecord(start_[0], stream_));
    for (int i = 0; i < batch; ++i) w.launch(stream_);
    OPMARK_CHECK_CUDA(cudaEventRecord(stop_[0], stream_));
    OPMARK_CHECK_CUDA(cudaEventSynchronize(stop_[0]));
    OPMARK_CHECK_LAUNCH();
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start_[0], stop_[0]));
    return ms * 1e-3 / batch;
  }
  ensure_events(static_cast<std::size_t>(batch));
  for (int i = 0; i < batch; ++i) {
    flush_->flush(stream_);
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
