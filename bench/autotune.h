#pragma once
// "Time the library's candidate algorithms once, keep the fastest", shared by every family that asks a library
// for algorithms (cuBLASLt now; cuDNN and cuSPARSE later). Runs outside the timed region.
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace opmark::bench {

struct AutotuneResult {
  int best = -1;                 // index of the fastest candidate that ran, -1 if none did
  std::vector<double> seconds;   // per candidate, seconds per launch; infinity where it failed
  std::vector<std::string> errors;  // per candidate, why it failed (empty when it ran)
  double best_seconds() const { return best >= 0 ? seconds[best] : 0; }
};

// Launches candidate i through `launch(i, stream)`: one untimed launch, then `reps` timed back to back.
// A candidate that throws is marked failed and the others still run.
AutotuneResult time_candidates(int count, const std::function<void(int, cudaStream_t)>& launch, cudaStream_t stream,
                               int reps = 3);

}  // namespace opmark::bench
