#pragma once
// What a case's measurement is followed by, on the same chosen candidate and timer: the eager time (what an eager
// framework pays) and each launch timed alone, the launch's kernels and their own durations (CUPTI), and launches
// for a profiler (--opmark_profile_launches).
#include <cuda_runtime.h>

#include <optional>
#include <string>

#include "bench/harness/timing/measure_case.h"
#include "bench/harness/options.h"
#include "bench/harness/process_group.h"
#include "bench/harness/timing/timer.h"
#include "bench/harness/cases/workload.h"

namespace opmark::bench {

// m.eager_s: the same launches issued back to back from the host; with --opmark_isolated, m.isolated_s (each
// launch between its own events) and m.serial_s (no early start, where launches may overlap).
void time_eager_and_isolated(Timer& timer, Workload& w, cudaStream_t stream, const Options& options,
                             ProcessGroup* group, Measurement& m);

// Why no case of the run traces its kernels (kernel_trace.h), or nullopt where they do: turned off, under a profiler
// (--opmark_profile_launches: it holds CUPTI), in a multi-process run, or CUPTI unavailable. The run's context and
// each case ask the same question here.
std::optional<std::string> kernel_trace_off(const Options& options, bool multi_process);

// m.kernels: the launch's kernels and their own durations, where traced; per GPU for a launch over `gpus`.
void trace_kernels(Timer& timer, cudaStream_t stream, const Options& options, bool multi_process, int gpus,
                   Measurement& m);

// A marker kernel, then options.profile_launches launches (or replays) of the case for a profiler; prints one
// "opmark-profile:" line naming the case.
void profile_launches(Timer& timer, Workload& w, cudaStream_t s, const Options& options, const std::string& name,
                      double median_s);

}  // namespace opmark::bench
