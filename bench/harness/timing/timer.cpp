#include "bench/harness/timing/timer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "bench/harness/timing/graph_edits.h"
#include "bench/harness/timing/measure.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

int choose_batch(double seconds_per_launch, double target_seconds) {
  if (!(seconds_per_launch > 0) || seconds_per_launch >= target_seconds) return 1;
  const double n = std::ceil(target_seconds / seconds_per_launch - 1e-9);  // 100/2 is 50, not 51
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxBatch)));
}

std::vector<Sample> sample_until(const std::function<Sample()>& sample, const std::function<double(double)>& agree,
                                 const SampleGoal& goal) {
  std::vector<Sample> taken;
  double spent = goal.spent_seconds;
  long long launches = 0;
  while ((static_cast<int>(taken.size()) < goal.min_samples || spent < goal.min_seconds) &&
         launches <= goal.max_launches) {
    taken.push_back(sample());
    spent += agree ? agree(taken.back().wall_seconds) : taken.back().wall_seconds;
    launches += taken.back().launches;
  }
  return taken;
}

Timer::Timer(cudaStream_t stream, L2Mode mode, const GpuMonitor* monitor, std::function<double(double)> agree,
             double batch_target_s)
    : stream_(stream), l2_(mode), monitor_(monitor), agree_(std::move(agree)), batch_target_s_(batch_target_s) {
  if (l2_ == L2Mode::cold) flush_ = std::make_unique<kernels::L2Flush>();
  ensure_events(1);
  OPMARK_CHECK_CUDA(cudaEventCreate(&wall_start_));
  OPMARK_CHECK_CUDA(cudaEventCreate(&wall_stop_));
}

Timer::~Timer() {
  drop_graph();
  for (auto e : start_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(e));
  for (auto e : stop_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(e));
  if (wall_start_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(wall_start_));
  if (wall_stop_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaEventDestroy(wall_stop_));
}

void Timer::ensure_events(std::size_t pairs) {
  while (start_.size() < pairs) {
    cudaEvent_t a, b;
    OPMARK_CHECK_CUDA(cudaEventCreate(&a));
    OPMARK_CHECK_CUDA(cudaEventCreate(&b));
    start_.push_back(a);
    stop_.push_back(b);
  }
}

void Timer::drop_graph() {
  if (exec_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaGraphExecDestroy(exec_));
  exec_ = nullptr;
  graph_batch_ = 0;
  overlap_edges_ = 0;
  graph_shape_ = {};
}

GraphShape Timer::graph_shape_per_launch() const {
  if (!graph_batch_) return {};
  const double b = graph_batch_;
  return {graph_shape_.nodes / b, graph_shape_.kernel_nodes / b, graph_shape_.edges / b,
          graph_shape_.implied_edges / b};
}

void Timer::begin(Workload& w, bool allow_graph) {
  drop_graph();
  w_ = &w;
  allow_graph_ = allow_graph;
  mode_ = TimingMode::eager;
  eager_reason_ = allow_graph ? "not captured yet" : "graph timing turned off (--opmark_timing=eager)";
  batch_ = 1;
}

bool Timer::times_each_launch() const {
  return each_launch_forced_ || l2_ == L2Mode::cold || (w_ && w_->needs_before_launch());
}

// Work between launches that is not timed: the L2 flush (cold mode) and the workload's own preparation.
void Timer::untimed_before_launch() {
  if (flush_) flush_->flush(stream_);
  if (w_->needs_before_launch()) w_->before_launch(stream_);
}

// Captures `batch` launches. Each launch is bracketed by its own event record nodes where untimed work sits
// between launches; otherwise the replay is timed as a whole. Throws when the workload cannot be captured: the
// stream is left out of capture mode and the error cleared, so eager launches can go on.
void Timer::capture(int batch) {
  drop_graph();
  const bool each = times_each_launch();
  if (each) ensure_events(static_cast<std::size_t>(batch));
  cudaGraph_t graph = nullptr;
  OPMARK_CHECK_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < batch; ++i) {
      if (each) {
        untimed_before_launch();
        OPMARK_CHECK_CUDA(cudaEventRecordWithFlags(start_[i], stream_, cudaEventRecordExternal));
      }
      w_->launch(stream_);
      if (each) {
        w_->end_batch(stream_);
        OPMARK_CHECK_CUDA(cudaEventRecordWithFlags(stop_[i], stream_, cudaEventRecordExternal));
      }
    }
    if (!each) w_->end_batch(stream_);
  } catch (...) {
    cudaStreamEndCapture(stream_, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  if (ended != cudaSuccess || !graph) {
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw Error(std::string("stream capture failed: ") + cudaGetErrorString(ended));
  }
  long overlap = 0;
  try {
    graph_shape_ = shape_of(graph);
    overlap = programmatic_edges(graph, serialize_);
    // Only where the replay is timed as a whole: between per-launch event nodes, dropping them made cuDNN's RNN
    // backward launches slower (docs/measurement.md), so such graphs stay as captured.
    if (!each) graph_shape_.implied_edges = static_cast<double>(drop_implied_edges(graph));
  } catch (...) {
    cudaGraphDestroy(graph);
    throw;
  }
  const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    exec_ = nullptr;
    cudaGetLastError();
    throw Error(std::string("graph instantiation failed: ") + cudaGetErrorString(made));
  }
  graph_batch_ = batch;
  overlap_edges_ = overlap;
  // The first launch of a graph uploads it to the device and runs slower: do it now, untimed.
  OPMARK_CHECK_CUDA(cudaGraphUpload(exec_, stream_));
  OPMARK_CHECK_CUDA(cudaGraphLaunch(exec_, stream_));
  OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream_));
  OPMARK_CHECK_LAUNCH();
}

double Timer::warm_up(double warmup_ms) {
  // The first launch loads the workload's kernels and finishes lazy library setup, so capture sees none of it.
  Sample s = eager_sample(1);
  double per_launch = agreed(s.wall_seconds);
  s = eager_sample(choose_batch(per_launch, batch_target_s_));  // a lone launch's time is inflated by the launch latency
  per_launch = agreed(s.wall_seconds / s.launches);
  // Agreed, not this rank's own: ranks that start from different times spent take different numbers of warm-up
  // samples, and their collectives no longer pair up (issue 36's end-of-run hang under mpirun).
  const double spent_s = agreed(s.wall_seconds);
  batch_ = choose_batch(per_launch, batch_target_s_);
  if (allow_graph_) {
    std::string why;
    try {
      capture(batch_);
    } catch (const OutOfMemoryError&) {
      throw;
    } catch (const std::exception& e) {
      why = e.what();
      drop_graph();
    }
    // Every process must time the same way: one rank's failure sends all of them to eager launches.
    if (agreed(why.empty() ? 0.0 : 1.0) > 0) {
      drop_graph();
      mode_ = TimingMode::eager;
      eager_reason_ = why.empty() ? "another rank could not capture its launches" : "not capturable: " + why;
    } else {
      mode_ = TimingMode::graph;
      eager_reason_.clear();
    }
  }
  SampleGoal goal;
  goal.min_seconds = warmup_ms * 1e-3;
  goal.spent_seconds = spent_s;
  const std::vector<Sample> warm = sample_until([this] { return sample(); }, agree_, goal);
  if (!warm.empty()) s = warm.back();
  // The batch that lasts the target time, sized from the way it is timed now (a graph replays faster than the
  // host launches): capture again when it is far off.
  per_launch = agreed(s.wall_seconds / s.launches);
  const int wanted = choose_batch(per_launch, batch_target_s_);
  if (wanted > batch_ * 3 / 2 || wanted * 3 / 2 < batch_) {
    batch_ = wanted;
    if (mode_ == TimingMode::graph) capture(batch_);
  }
  // The estimate: the median of three batches, as the tuner's probe is a median too.
  std::vector<double> estimate;
  for (int i = 0; i < 3; ++i) estimate.push_back(sample().seconds_per_launch);
  return agreed(median_of(estimate));
}

Sample Timer::sample() { return mode_ == TimingMode::graph ? graph_sample() : eager_sample(batch_); }

void Timer::retarget(double batch_target_s, double seconds_per_launch) {
  batch_target_s_ = batch_target_s;
  const int wanted = choose_batch(seconds_per_launch, batch_target_s_);
  if (wanted == batch_) return;
  batch_ = wanted;
  if (mode_ == TimingMode::graph) capture(batch_);
}

Sample Timer::graph_sample() {
  // Held, the start event waits for the replay: on an idle stream it would be stamped while the host still submits
  // the graph, whose submission time grows with its nodes.
  if (!gate_) gate_ = std::make_unique<kernels::LaunchGate>();
  gate_->close(stream_);
  stamp_clock(0);
  OPMARK_CHECK_CUDA(cudaEventRecord(wall_start_, stream_));
  OPMARK_CHECK_CUDA(cudaGraphLaunch(exec_, stream_));
  OPMARK_CHECK_CUDA(cudaEventRecord(wall_stop_, stream_));
  stamp_clock(1);
  gate_->open();
  Sample s = collect(graph_batch_);
  if (gate_->timed_out()) {
    static bool said = false;
    if (!said)
      std::fprintf(stderr, "opmark: a timed replay's submission took the host over %.0f ms; its start was stamped "
                   "before the host had submitted it\n", kernels::LaunchGate::kTimeoutSeconds * 1e3);
    said = true;
  }
  return s;
}

int Timer::enqueue_batch() {
  if (mode_ == TimingMode::graph) {
    OPMARK_CHECK_CUDA(cudaGraphLaunch(exec_, stream_));
    return graph_batch_;
  }
  const bool each = times_each_launch();
  for (int i = 0; i < batch_; ++i) {
    if (each) untimed_before_launch();
    w_->launch(stream_);
    if (each) w_->end_batch(stream_);
  }
  if (!each) w_->end_batch(stream_);
  return batch_;
}

void Timer::stamp_clock(int slot) {
  if (!clock_probe_) clock_probe_ = std::make_unique<kernels::SmClockProbe>();
  clock_probe_->stamp(stream_, slot);
}

double Timer::clock_mhz() { return clock_probe_ ? clock_probe_->mhz(stream_) : 0.0; }

Sample Timer::eager_sample(int n, double hold_s) {
  const bool each = times_each_launch();
  if (each) ensure_events(static_cast<std::size_t>(n));
  if (hold_s > 0) {
    if (!gate_) gate_ = std::make_unique<kernels::LaunchGate>();
    gate_->close(stream_, hold_s);
  }
  stamp_clock(0);
  OPMARK_CHECK_CUDA(cudaEventRecord(wall_start_, stream_));
  for (int i = 0; i < n; ++i) {
    if (each) {
      untimed_before_launch();  // it keeps the GPU busy while the host queues the launch
      OPMARK_CHECK_CUDA(cudaEventRecord(start_[i], stream_));
    }
    w_->launch(stream_);
    if (each) {
      w_->end_batch(stream_);
      OPMARK_CHECK_CUDA(cudaEventRecord(stop_[i], stream_));
    }
  }
  if (!each) w_->end_batch(stream_);
  OPMARK_CHECK_CUDA(cudaEventRecord(wall_stop_, stream_));
  stamp_clock(1);
  if (hold_s > 0) gate_->open();
  return collect(n);
}

// A batch of `launches` enqueued between the wall events (and, one pair per launch, the launch events where each
// launch is timed alone): reads the clocks while it runs, waits for it, and takes the time per launch.
Sample Timer::collect(int launches) {
  Sample s;
  s.launches = launches;
  if (monitor_) s.clock = monitor_->clock_events();
  OPMARK_CHECK_CUDA(cudaEventSynchronize(wall_stop_));
  OPMARK_CHECK_LAUNCH();
  s.clock.sm_mhz = static_cast<unsigned>(std::lround(clock_mhz()));
  float ms = 0;
  OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, wall_start_, wall_stop_));
  s.wall_seconds = ms * 1e-3;
  if (!times_each_launch()) {
    s.seconds_per_launch = s.wall_seconds / launches;
    return s;
  }
  double total_ms = 0;
  for (int i = 0; i < launches; ++i) {
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start_[static_cast<std::size_t>(i)], stop_[static_cast<std::size_t>(i)]));
    total_ms += ms;
  }
  s.seconds_per_launch = total_ms * 1e-3 / launches;
  return s;
}

double Timer::eager(int n) { return eager_sample(std::max(n, 1)).seconds_per_launch; }

double Timer::held_eager(int n, double hold_s) { return eager_sample(std::max(n, 1), hold_s).seconds_per_launch; }

}  // namespace opmark::bench
