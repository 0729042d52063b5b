#pragma once
// The interface a family implements. A family owns what a case means (allocate, fill with seeded random data,
// the one timed call, how to check the output, a label); the harness owns everything else (timing, warm-up,
// tuning, counters, verification policy, skips and errors, the results log).
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "core/case.h"
#include "kernels/compare.h"

namespace opmark::bench {

class Measurer;

// What a family's factory gets besides the case.
struct RunContext {
  cudaStream_t stream = nullptr;
  const DeviceInfo& device;
  const Options& options;
  std::uint64_t seed = 0;  // derived from --opmark_seed and the case name: same inputs on every run
  // The processes of this run: one, or one per GPU under MPI (only collective families look at it).
  ProcessGroup* group = nullptr;
  // The run's measuring entry point (measure_case.h), for what a family times beside its case (spmm's dense
  // product); null outside a run (a test's context): the family measures with one of its own, without NVML.
  Measurer* measurer = nullptr;
  // The end-of-run re-time builds a case again to run the candidate it ran (this name): a workload whose candidates
  // are costly to list may list just that one. Empty: every candidate.
  std::string only_candidate;
};

class Workload {
 public:
  virtual ~Workload() = default;

  // The one timed call: enqueue the operation on `stream`. No allocation, no synchronization, no host work
  // that depends on the device: the harness captures a batch of these calls into a CUDA graph once and times its
  // replays, and also calls it back to back from the host (the eager time).
  virtual void launch(cudaStream_t stream) = 0;

  // Work that must precede every launch but is not part of the operation, e.g. restoring a buffer the call
  // consumes (cuDNN's RNN backward rewrites the reserve space its forward left). When a workload needs it, each
  // launch is timed between its own events with this untimed in between, as in cold-L2 mode.
  virtual bool needs_before_launch() const { return false; }
  virtual void before_launch(cudaStream_t /*stream*/) {}

  // Called after the last launch of every batch the harness enqueues or captures (after each launch where launches
  // are timed alone), before the batch's closing event: a launch may leave work forked from `stream` onto other
  // streams, which this joins back. The all-reduce over several GPUs in one process forks its GPUs' streams once a
  // batch, so that back-to-back collectives follow each other on each GPU as they do in one process per GPU.
  virtual void end_batch(cudaStream_t /*stream*/) {}

  // Called once per candidate the harness keeps, before any timing: poison the output, launch, and compare with an
  // independent reference.
  virtual kernels::CompareResult verify(cudaStream_t stream) = 0;

  // What the library chose and how the case ran ("in f16, compute fp32, out f16 | C stored row-major"). The
  // harness puts the chosen candidate and the timing mode in front of it.
  virtual std::string label() const { return {}; }

  // Extra per-case numbers reported as counters (e.g. a sparse case's dense time).
  virtual std::map<std::string, double> counters() const { return {}; }

  // The GPUs this process runs the case on (the all-reduce in one process spans several). The energy window reads
  // one GPU's counter, so a case over several carries no energy rather than a part of it.
  virtual int gpus_used() const { return 1; }

  // Candidates: the algorithms, engines or kernels a library offers for the case. A tunable workload lists them and
  // launches the one chosen; the harness times them all (autotune.h), leaves out those that compute a wrong result,
  // keeps the fastest, and reports the library's own default beside it. count 0: nothing to tune.
  virtual int candidate_count() const { return 0; }
  virtual std::string candidate_name(int /*candidate*/) const { return {}; }
  // The candidate a library user gets without tuning (the heuristic's first choice), or -1 when none is.
  virtual int default_candidate() const { return 0; }
  // The candidate that calls the library as PyTorch does for the same op (its API, layouts, workspace and
  // heuristic request), or -1 where none is listed: the tuner confirms it beside the winner, so a tuned time is
  // never behind PyTorch's own call to the same library.
  virtual int reference_candidate() const { return -1; }
  void choose(int candidate) { chosen_ = candidate; }
  int chosen() const { return chosen_; }

 protected:
  int chosen_ = 0;
};

using WorkloadFactory = std::unique_ptr<Workload> (*)(const core::Case&, const RunContext&);

// The factory of a family whose workload W is built from the case and the run's context: each family's file names
// its one line, `const WorkloadFactory make_X_workload = construct_workload<XWorkload>;`.
template <class W>
std::unique_ptr<Workload> construct_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<W>(c, ctx);
}

}  // namespace opmark::bench
