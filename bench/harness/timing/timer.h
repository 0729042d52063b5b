#pragma once
// GPU timing on the benchmark's stream. A batch of launches is captured once into a CUDA graph, outside the
// timing, and replayed between events: the time per launch is the GPU's own, without the host's launch gaps
// (back to back from the host, a kernel of a few microseconds is timed at the host's launch rate). The stream is
// held until the replay and its events are all enqueued, so the host's submission is not timed either. A workload that
// cannot be captured is timed with back-to-back launches instead, and says why. Also here: untimed warm-up, hot or
// cold L2, the eager time, and the clock reading of each sample.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/run_modes.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/options.h"
#include "bench/harness/cases/workload.h"
#include "kernels/l2_flush.h"
#include "kernels/launch_gate.h"
#include "kernels/sm_clock.h"

namespace opmark::bench {

// A timed batch lasts at least this long and holds at most kMaxBatch launches: long enough that the event pair's
// resolution (about 0.5 us) and the replay's start do not count, short enough that capturing it stays cheap.
constexpr double kBatchTargetSeconds = core::kDefaultBatchSeconds;
constexpr int kMaxBatch = 1000;

// What a captured graph holds.
struct GraphShape {
  double nodes = 0, kernel_nodes = 0, edges = 0;  // as captured
  double implied_edges = 0;                       // of those edges, the ones dropped before replaying (implied_edges.h)
};

// How many launches one timed batch holds, from the time one launch (with its untimed preparation) takes.
// Host-only arithmetic, tested on the CPU.
int choose_batch(double seconds_per_launch, double target_seconds = kBatchTargetSeconds);

using core::TimingMode;

struct Sample {
  double seconds_per_launch = 0;  // the timed launches only
  double wall_seconds = 0;        // the whole batch on the GPU, untimed flushes and preparation included
  int launches = 0;
  // sm_mhz: the mean SM clock over the batch, measured on the GPU (kernels/sm_clock.h); reasons: NVML's clock-event
  // reasons read while the batch ran (they lag the GPU by tens of milliseconds).
  ClockReading clock;
};

// What sample_until() runs to: at least `min_samples` samples and `min_seconds` of GPU time (on top of
// `spent_seconds` already spent), and no more once `max_launches` are passed.
struct SampleGoal {
  int min_samples = 0;
  double min_seconds = 0;
  double spent_seconds = 0;
  long long max_launches = 100000;
};

// Takes samples until `goal` is met, counting each sample's wall time as `agree` returns it (in a multi-process run
// the longest over the ranks; none: as measured), so every rank takes as many samples and makes as many collective
// calls. Host-only, tested on the CPU with scripted samples and thread ranks.
std::vector<Sample> sample_until(const std::function<Sample()>& sample, const std::function<double(double)>& agree,
                                 const SampleGoal& goal);

class Timer {
 public:
  // `agree` turns a value into the one every process of a multi-process run uses (their maximum), so that all of
  // them make the same calls; one process passes none. `monitor` may be null (no clock readings).
  // `batch_target_s`: how long a timed batch lasts (the tuner, ranking dozens of candidates, takes shorter ones).
  Timer(cudaStream_t stream, L2Mode mode, const GpuMonitor* monitor = nullptr,
        std::function<double(double)> agree = {}, double batch_target_s = kBatchTargetSeconds);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // Starts timing `w` (or another of its candidates): forgets any captured graph. With `allow_graph` false, or
  // --opmark_timing=eager, launches are timed back to back from the host.
  void begin(Workload& w, bool allow_graph = true);

  // Untimed launches for at least `warmup_ms` of GPU time (and at least 2), so clocks have ramped up and lazy
  // library setup is done; then sizes the batch and captures it. Returns seconds per launch.
  double warm_up(double warmup_ms);

  // One timed batch of batch() launches: a graph replay, or back-to-back launches where there is no graph.
  Sample sample();

  // After warm_up(): batches of `batch_target_s` from now on, sized from `seconds_per_launch` (a time already
  // measured, so nothing is launched to estimate it), and captured again where in a graph. The tuner's
  // confirmation lengthens its candidates' batches to the measurement's this way. Throws where the capture fails;
  // the timer is then unusable until begun again.
  void retarget(double batch_target_s, double seconds_per_launch);

  // Seconds per launch of `n` launches issued back to back from the host (what an eager framework pays).
  double eager(int n);
  // The same launches held behind the launch gate until the host has issued them all, or until `hold_s` has passed
  // on the GPU: the GPU's time for them, not the host's time to issue them (the tuner's screen, where a host
  // slow to issue one candidate's calls must not rule it out).
  double held_eager(int n, double hold_s);

  // Untimed: one batch as sample() runs it, enqueued without waiting (for windows of back-to-back batches, such as
  // the energy window). Returns its launches.
  int enqueue_batch();
  cudaStream_t stream() const { return stream_; }
  const GpuMonitor* monitor() const { return monitor_; }
  // Stamps the SM clock (slot 0 before a stretch of work, 1 after it); clock_mhz() reads the mean clock between
  // the two once the stream has passed the second.
  void stamp_clock(int slot);
  double clock_mhz();

  TimingMode mode() const { return mode_; }
  // Why the workload is timed eagerly ("" when in a graph).
  const std::string& eager_reason() const { return eager_reason_; }
  int batch() const { return batch_; }
  L2Mode l2() const { return l2_; }
  // Whether each launch is timed alone, with untimed work (flush, preparation) between launches.
  bool times_each_launch() const;
  // Times each launch between its own events even in hot mode with nothing between launches: no launch then
  // overlaps the next (a kernel that allows programmatic dependent launch starts before its predecessor ends when
  // replayed back to back), which is the time a profiler reports for the kernel alone. Call before begin().
  void time_each_launch(bool on) { each_launch_forced_ = on; }
  // Replays with every programmatic (early-start) dependency of the captured graph made a full one, so no launch
  // starts before its predecessor ends, and no event node sits between them. Call before begin().
  void serialize_launches(bool on) { serialize_ = on; }
  // Dependencies in the captured graph that let a kernel start before its predecessor ends (programmatic dependent
  // launch), per launch; 0 without a graph, or after serialize_launches(true) made them full ones.
  double overlap_edges_per_launch() const { return graph_batch_ ? double(overlap_edges_) / graph_batch_ : 0.0; }
  // The captured graph's nodes (all, and kernel nodes) and dependencies, and the dependencies dropped because others
  // imply them, per launch; 0 without a graph. A library call that captures more than a chain of kernels (memsets,
  // event nodes, forks, dependencies on every earlier call) shows here.
  GraphShape graph_shape_per_launch() const;

 private:
  void capture(int batch);
  void drop_graph();
  void ensure_events(std::size_t pairs);
  void untimed_before_launch();
  double agreed(double v) const { return agree_ ? agree_(v) : v; }
  Sample eager_sample(int n, double hold_s = 0);
  Sample graph_sample();
  Sample collect(int launches);

  cudaStream_t stream_;
  L2Mode l2_;
  const GpuMonitor* monitor_;
  std::function<double(double)> agree_;
  std::unique_ptr<kernels::L2Flush> flush_;
  std::unique_ptr<kernels::SmClockProbe> clock_probe_;
  std::unique_ptr<kernels::LaunchGate> gate_;
  std::vector<cudaEvent_t> start_, stop_;
  cudaEvent_t wall_start_ = nullptr, wall_stop_ = nullptr;
  Workload* w_ = nullptr;
  TimingMode mode_ = TimingMode::eager;
  std::string eager_reason_ = "nothing timed yet";
  bool allow_graph_ = true;
  int batch_ = 1;
  double batch_target_s_ = kBatchTargetSeconds;
  bool each_launch_forced_ = false;
  bool serialize_ = false;
  long overlap_edges_ = 0;
  GraphShape graph_shape_;  // of the whole captured graph
  int graph_batch_ = 0;  // launches in the captured graph; 0: none
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace opmark::bench
