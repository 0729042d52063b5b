#include "bench/autotune.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/timer.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

bool AutotuneResult::drop_best(const std::string& name, const std::string& why) {
  if (best < 0) return false;
  dropped += (dropped.empty() ? "" : "; ") + name + " (" + why + ")";
  seconds[best] = std::numeric_limits<double>::infinity();
  best = -1;
  for (int i = 0; i < static_cast<int>(seconds.size()); ++i)
    if (std::isfinite(seconds[i]) && (best < 0 || seconds[i] < seconds[best])) best = i;
  return best >= 0;
}

AutotuneResult time_candidates(int count, const std::function<void(int, cudaStream_t)>& launch, cudaStream_t stream,
                               int rounds) {
  AutotuneResult r;
  r.seconds.assign(count, std::numeric_limits<double>::infinity());
  r.errors.assign(count, "");
  Timer timer(stream, L2Mode::hot);
  std::vector<int> batch(count, 0);  // 0: the candidate failed
  std::vector<double> probe(count, std::numeric_limits<double>::infinity());
  const auto candidate = [&](int i) { return [&launch, i](cudaStream_t s) { launch(i, s); }; };
  for (int i = 0; i < count; ++i) {
    const auto run = candidate(i);
    try {
      // The first launch loads the candidate's kernel; a batched probe then sizes its batch (a lone launch's
      // time is inflated by launch latency).
      const double first = timer.time_launches(run, 1);
      probe[i] = timer.time_launches(run, choose_batch(first));
      batch[i] = choose_batch(probe[i]);
    } catch (const OutOfMemoryError&) {
      throw;
    } catch (const std::exception& e) {
      r.errors[i] = e.what();
      OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    }
  }
  // Only candidates close to the fastest probe compete in the rounds; the others keep their probe time. A batched
  // probe is within a few percent of the median, so a candidate kProbeMargin behind cannot win, and skipping it
  // saves most of the tuning time on cases with many slow algorithms (cuDNN's FFT and GEMM paths).
  const double fastest_probe = *std::min_element(probe.begin(), probe.end());
  std::vector<std::vector<double>> samples(count);
  for (int round = 0; round < rounds; ++round)
    for (int i = 0; i < count; ++i)
      if (batch[i] > 0 && probe[i] <= kProbeMargin * fastest_probe)
        samples[i].push_back(timer.time_launches(candidate(i), batch[i]));
  for (int i = 0; i < count; ++i) {
    if (batch[i] == 0) continue;
    if (samples[i].empty()) {
      r.seconds[i] = probe[i];
    } else {
      std::nth_element(samples[i].begin(), samples[i].begin() + samples[i].size() / 2, samples[i].end());
      r.seconds[i] = samples[i][samples[i].size() / 2];
    }
    if (r.best < 0 || r.seconds[i] < r.seconds[r.best]) r.best = i;
  }
  return r;
}

}  // namespace opmark::bench
