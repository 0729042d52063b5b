#include "bench/harness/timing/after_measure.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/harness/timing/kernel_trace.h"
#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/profile_marker.h"

namespace opmark::bench {

// What an eager framework pays (the same launches issued back to back from the host), and each launch timed alone.
void time_eager_and_isolated(Timer& timer, Workload& w, cudaStream_t stream, const Options& options,
                             ProcessGroup* group, Measurement& m) {
  const bool multi_process = group && group->multi_process();
  auto agree_mean = [&](double v) { return multi_process ? group->agree_mean(v) : v; };
  std::vector<double> eager;
  for (int i = 0; i < 3; ++i) eager.push_back(agree_mean(timer.eager(timer.batch())));
  m.eager_s = median_of(eager);
  // The same launches, each timed alone between event nodes of the graph (none overlaps the next), as a profiler
  // times a kernel: where this and the back-to-back median differ, launches overlap or gaps count.
  if (options.isolated && !timer.times_each_launch() && timer.mode() == TimingMode::graph &&
      !multi_process) {
    auto time_alone = [&](bool each_launch, bool serialize) {
      Timer alone(stream, options.l2);
      alone.time_each_launch(each_launch);
      alone.serialize_launches(serialize);
      alone.begin(w, true);
      alone.warm_up(1.0);
      std::vector<double> t;
      for (int i = 0; i < 3; ++i) t.push_back(alone.sample().seconds_per_launch);
      return median_of(t);
    };
    m.isolated_s = time_alone(true, false);
    // Without event nodes between launches, but none starting before its predecessor ends: where this matches
    // the profiler and the median does not, the difference is programmatic dependent launch's overlap.
    if (timer.overlap_edges_per_launch() > 0) m.serial_s = time_alone(false, true);
  }
}

std::optional<std::string> kernel_trace_off(const Options& options, bool multi_process) {
  if (!options.kernel_trace) return "off (--opmark_kernel_trace=off)";
  if (options.profile_launches > 0) return "off (a profiler holds CUPTI: --opmark_profile_launches)";
  if (multi_process) return "off (a multi-process run)";
  const KernelTracer& tracer = KernelTracer::instance();
  if (!tracer.available()) return "unavailable: " + tracer.why();
  return std::nullopt;
}

// The launch's kernels and their own durations, from CUPTI's records of three replays of the timed graph (after the
// median, so tracing's cost stays out of it). Not where untimed work (a flush, a preparation) sits in the graph: its
// kernels would be counted. Where CUPTI refuses during the run, that is said once on stderr and no later case tries
// (tracer.available() turns false). A launch over `gpus` GPUs (the all-reduce in one process) counts per GPU: each
// runs its own kernels at the same time as the others, and their sum is no duration of the launch.
void trace_kernels(Timer& timer, cudaStream_t stream, const Options& options, bool multi_process, int gpus,
                   Measurement& m) {
  if (kernel_trace_off(options, multi_process) || timer.mode() != TimingMode::graph ||
      timer.times_each_launch())
    return;
  KernelTracer& tracer = KernelTracer::instance();
  const auto refused = [](const Error& e) {
    std::fprintf(stderr, "opmark: no kernel durations from here on: %s\n", e.what());
  };
  try {
    tracer.begin();
  } catch (const Error& e) {
    refused(e);
    return;
  }
  long long launches = 0;
  try {
    // Batches alone: sample() would add its clock stamps to the kernels traced.
    for (int i = 0; i < 3; ++i) launches += timer.enqueue_batch();
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  } catch (...) {
    tracer.end_quietly();  // the case's own error goes on; the tracing stops with it
    throw;
  }
  try {
    m.kernels = summarize_kernels(tracer.end(), launches * std::max(gpus, 1));
  } catch (const Error& e) {
    refused(e);
    m.kernels = {};
  }
}


// After the measurement, with the same chosen candidate: a marker kernel, then K launches for a profiler, each right
// after about 10 ms of unprofiled launches of the same operation, so it finds the clocks and the L2 as the timing
// did (a GPU left idle while the profiler works between kernels drops its clock).
void profile_launches(Timer& timer, Workload& w, cudaStream_t s, const Options& options, const std::string& name,
                      double median_s) {
  const int warm = std::max(1, static_cast<int>(std::ceil(0.01 / std::max(median_s, 1e-7))));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
  OPMARK_CHECK_CUDA(cudaProfilerStart());
  kernels::launch_profile_marker(s);
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
  OPMARK_CHECK_CUDA(cudaProfilerStop());
  // A whole replay of the timed graph, for ncu --graph-profiling graph: the profiler's duration of exactly what
  // the timing timed (in cold-L2 mode the replay's flushes are in it too).
  const bool graph = options.profile_graph && timer.mode() == TimingMode::graph;
  for (int i = 0; i < options.profile_launches; ++i) {
    timer.eager(std::min(warm, 20000));
    if (graph) {
      OPMARK_CHECK_CUDA(cudaProfilerStart());
      timer.enqueue_batch();  // no clock stamps: the profiler sees the replay alone
    } else {
      if (w.needs_before_launch()) w.before_launch(s);
      OPMARK_CHECK_CUDA(cudaProfilerStart());
      w.launch(s);
      w.end_batch(s);
    }
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
    OPMARK_CHECK_CUDA(cudaProfilerStop());
  }
  const int launches = options.profile_launches * (graph ? timer.batch() : 1);
  std::printf("opmark-profile: %s launches=%d%s\n", name.c_str(), launches, graph ? " graph" : "");
  std::fflush(stdout);
}


}  // namespace opmark::bench
