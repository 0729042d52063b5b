#include "bench/autotune.h"

#include <algorithm>
#include <limits>

#include "bench/timer.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {
namespace {

class EventPair {
 public:
  EventPair() {
    OPMARK_CHECK_CUDA(cudaEventCreate(&start_));
    OPMARK_CHECK_CUDA(cudaEventCreate(&stop_));
  }
  ~EventPair() {
    OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(start_));
    OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(stop_));
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // Seconds per launch of `n` back-to-back launches.
  double time(const std::function<void(cudaStream_t)>& launch, int n, cudaStream_t stream) {
    OPMARK_CHECK_CUDA(cudaEventRecord(start_, stream));
    for (int i = 0; i < n; ++i) launch(stream);
    OPMARK_CHECK_CUDA(cudaEventRecord(stop_, stream));
    OPMARK_CHECK_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3 / n;
  }

 private:
  cudaEvent_t start_, stop_;
};

}  // namespace

AutotuneResult time_candidates(int count, const std::function<void(int, cudaStream_t)>& launch, cudaStream_t stream,
                               int rounds) {
  AutotuneResult r;
  r.seconds.assign(count, std::numeric_limits<double>::infinity());
  r.errors.assign(count, "");
  EventPair events;
  std::vector<int> batch(count, 0);  // 0: the candidate failed
  for (int i = 0; i < count; ++i) {
    try {
      const double first = events.time([&](cudaStream_t s) { launch(i, s); }, 1, stream);
      batch[i] = choose_batch(first);
    } catch (const OutOfMemoryError&) {
      throw;
    } catch (const std::exception& e) {
      r.errors[i] = e.what();
      OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    }
  }
  std::vector<std::vector<double>> samples(count);
  for (int round = 0; round < rounds; ++round)
    for (int i = 0; i < count; ++i)
      if (batch[i] > 0) samples[i].push_back(events.time([&](cudaStream_t s) { launch(i, s); }, batch[i], stream));
  for (int i = 0; i < count; ++i) {
    if (samples[i].empty()) continue;
    std::nth_element(samples[i].begin(), samples[i].begin() + samples[i].size() / 2, samples[i].end());
    r.seconds[i] = samples[i][samples[i].size() / 2];
    if (r.best < 0 || r.seconds[i] < r.seconds[r.best]) r.best = i;
  }
  return r;
}

}  // namespace opmark::bench
