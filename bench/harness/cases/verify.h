#pragma once
// Every case is verified before it is timed, and a tuned case's wrong candidate is left out for the next fastest;
// in a multi-process run every rank ends a case with the same outcome. Used by the harness for each case and by a
// family that builds another's workload (spmm's dense product).
#include <cuda_runtime.h>

#include "bench/harness/tuning/autotune.h"
#include "bench/harness/output/outcome.h"
#include "bench/harness/output/phase_times.h"
#include "bench/harness/process_group.h"
#include "bench/harness/cases/workload.h"

namespace opmark::bench {

// Verifies a workload: a wrong result becomes a failed outcome carrying the comparison, never a time. With a
// tuning result, the candidate that computed the wrong result is left out and the next fastest verified, at most
// kMaxVerifyAttempts times in all.
constexpr int kMaxVerifyAttempts = 6;
Outcome verify_workload(Workload& w, cudaStream_t stream, TuningResult* tuning = nullptr);

// Tunes a workload that lists candidates (leaving it on the fastest) and verifies it as above; a workload without
// candidates is only verified. Throws UnsupportedError when every candidate failed to run.
Outcome tune_and_verify(Workload& w, cudaStream_t stream, bool allow_graph, TuningResult* tuning,
                        PhaseTimes* phases = nullptr, double measure_batch_s = kBatchTargetSeconds);

// A multi-process case's outcome, the same on every rank: ok only where every rank's is; otherwise the most severe
// status (failed over skipped) with its rank's reason ("rank 3: wrong result: ..."). One all-gather, and two
// broadcasts when a rank is not ok: every rank must call it at the same point.
Outcome agree_across_ranks(ProcessGroup& group, Outcome mine);

}  // namespace opmark::bench
