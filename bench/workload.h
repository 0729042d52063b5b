#pragma once
// The interface a family implements. A family owns what a case means (allocate, fill with seeded random data,
// the one timed call, how to check the output, a label); the harness owns everything else (timing, warm-up,
// counters, verification policy, skips and errors, the results log).
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "bench/device_info.h"
#include "bench/options.h"
#include "bench/process_group.h"
#include "core/case.h"
#include "kernels/compare.h"

namespace opmark::bench {

// What a family's factory gets besides the case.
struct RunContext {
  cudaStream_t stream = nullptr;
  const DeviceInfo& device;
  const Options& options;
  std::uint64_t seed = 0;  // derived from --opmark_seed and the case name: same inputs on every run
  // The processes of this run: one, or one per GPU under MPI (only collective families look at it).
  ProcessGroup* group = nullptr;
};

class Workload {
 public:
  virtual ~Workload() = default;

  // The one timed call: enqueue the operation on `stream`. No allocation, no synchronization, no host work
  // that depends on the device (the harness may call it many times back to back).
  virtual void launch(cudaStream_t stream) = 0;

  // Work that must precede every launch but is not part of the operation, e.g. restoring a buffer the call
  // consumes (cuDNN's RNN backward rewrites the reserve space its forward left). When a workload needs it, the
  // timer times each launch between its own events with this untimed in between, as in cold-L2 mode.
  virtual bool needs_before_launch() const { return false; }
  virtual void before_launch(cudaStream_t /*stream*/) {}

  // Called once, before any timing: poison the output, launch, and compare with an independent reference.
  virtual kernels::CompareResult verify(cudaStream_t stream) = 0;

  // After a wrong result: leave out the candidate that computed it and switch to the next fastest, so the case
  // reports the fastest configuration that computes the right answer (the label names what was left out).
  // Returns false when none is left; families without candidates keep this default.
  virtual bool drop_chosen(const std::string& /*why*/) { return false; }

  // What the library chose and how the case ran ("cublasLt algo 21 ... | in f16, compute fp32, out f16").
  virtual std::string label() const { return {}; }

  // Extra per-case numbers reported as counters (e.g. the heuristic default's time, the autotune speedup).
  virtual std::map<std::string, double> counters() const { return {}; }
};

using WorkloadFactory = std::unique_ptr<Workload> (*)(const core::Case&, const RunContext&);

}  // namespace opmark::bench
