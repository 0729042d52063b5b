#pragma once
// "Time the library's candidate algorithms once, keep the fastest", shared by every family that asks a library
// for algorithms (cuBLASLt now; cuDNN and cuSPARSE later). Runs outside the timed region.
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace opmark::bench {

// How far behind the fastest candidate's first batched sample another may be and still compete in the rounds.
constexpr double kProbeMargin = 1.25;

struct AutotuneResult {
  int best = -1;                    // index of the fastest candidate that ran, -1 if none did
  std::vector<double> seconds;      // per candidate, median seconds per launch; infinity where it failed
  std::vector<std::string> errors;  // per candidate, why it failed (empty when it ran)
  std::string dropped;               // candidates left out after a wrong result: "name (why); ..."
  double best_seconds() const { return best >= 0 ? seconds[best] : 0; }
  // What autotuning buys over a default that takes `default_seconds` (the library's own first choice); 0 when
  // that default's time is unknown.
  double speedup_over(double default_seconds) const {
    return default_seconds > 0 && best_seconds() > 0 ? default_seconds / best_seconds() : 0.0;
  }
  // Leaves the best candidate (`name`) out because it computed a wrong result (`why`), and makes the next fastest
  // the best; false when no candidate that ran is left.
  bool drop_best(const std::string& name, const std::string& why);
  // " | left out after a wrong result: ..." for a label, or nothing.
  std::string dropped_note() const { return dropped.empty() ? "" : " | left out after a wrong result: " + dropped; }
};

// Launches candidate i through `launch(i, stream)`. Each candidate is launched once untimed (a candidate that
// throws is marked failed and the others go on), then timed in `rounds` rounds that visit every candidate in
// turn, so clock and temperature drift during tuning falls on all candidates alike; a candidate's time is its
// median over the rounds. Short kernels are timed in batches (see choose_batch). A candidate whose batched probe
// is more than kProbeMargin times the fastest probe skips the rounds and keeps its probe time.
AutotuneResult time_candidates(int count, const std::function<void(int, cudaStream_t)>& launch, cudaStream_t stream,
                               int rounds = 5);

}  // namespace opmark::bench
