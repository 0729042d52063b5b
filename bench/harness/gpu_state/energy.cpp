#include "bench/harness/gpu_state/energy.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/timing/regime.h"
#include "bench/harness/timing/timer.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

bool EnergyEdges::add(const EnergyPoll& p) {
  if (complete_) return true;
  if (have_previous_ && p.millijoules != previous_.millijoules) {
    // The counter stepped after the previous call read it and before this one did.
    const EnergyStep step{(previous_.begin_s + p.end_s) / 2, (p.end_s - previous_.begin_s) / 2, p.millijoules};
    steps_.push_back(step);
    if (!have_first_) {
      first_ = step;
      have_first_ = true;
    } else if (period_) {
      const int n = periods_to(step);
      const int least = std::max(1, static_cast<int>(std::ceil(min_window_s_ / period_->period_s - 0.05)));
      if (n >= least) end_at(step, n);
      // The steps left the period: timed by the calls around them, as without one.
      else if (n == 0 && step.at_s - first_.at_s >= min_window_s_ * (1 - 1e-9)) end_at(step, 0);
    } else if (step.at_s - first_.at_s >= min_window_s_ * (1 - 1e-9)) {
      end_at(step, 0);
    }
  }
  previous_ = p;
  have_previous_ = true;
  return complete_;
}

bool EnergyEdges::end_at(const EnergyStep& s, int periods) {
  last_ = s;
  periods_ = periods;
  complete_ = true;
  if (!restarted_ && joules() / window_s() > over_watts_) {
    // What ran so far was the lead-in of a heavy load: the window starts at this step.
    restarted_ = true;
    first_ = s;
    min_window_s_ = std::max(min_window_s_, kOverLimitEnergyWindowSeconds);
    complete_ = false;
    periods_ = 0;
  }
  return complete_;
}

double restart_watts(std::optional<double> limit_watts, double seconds_per_launch, double min_window_s,
                     bool sustained_follows) {
  if (!limit_watts) return std::numeric_limits<double>::infinity();
  const bool lead_in = !sustained_follows && seconds_per_launch >= kHeavyMinLaunchSeconds &&
                       min_window_s < kOverLimitEnergyWindowSeconds;
  return lead_in ? *limit_watts : *limit_watts * (1 + kPowerMargin);
}

int EnergyEdges::periods_to(const EnergyStep& s) const {
  const double apart = s.at_s - first_.at_s;
  const auto n = static_cast<int>(std::lround(apart / period_->period_s));
  const double slack = first_.half_width_s + s.half_width_s + kCounterStepJitterSeconds + 3 * n * period_->sd_s;
  return n >= 1 && std::abs(apart - n * period_->period_s) <= slack ? n : 0;
}

double EnergyEdges::window_s() const {
  return periods_ > 0 ? periods_ * period_->period_s : last_.at_s - first_.at_s;
}

double EnergyEdges::uncertainty() const {
  if (!complete_ || !(window_s() > 0) || !(joules() > 0)) return 0;
  const double ends = periods_ > 0 ? kCounterStepJitterSeconds + 2 * periods_ * period_->sd_s
                                   : first_.half_width_s + last_.half_width_s;
  return ends / window_s() + 1e-3 / joules();
}

std::optional<CounterPeriod> fit_counter_period(const std::vector<EnergyStep>& steps) {
  if (steps.size() < 2) return std::nullopt;
  // Consecutive steps first: their median gap numbers the others (a missed step is two periods, not a long one).
  std::vector<double> gaps;
  for (std::size_t i = 1; i < steps.size(); ++i) gaps.push_back(steps[i].at_s - steps[i - 1].at_s);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
  const double guess = gaps[gaps.size() / 2];
  if (!(guess > 0)) return std::nullopt;
  std::vector<double> n, t;
  for (const EnergyStep& s : steps)
    if (2 * s.half_width_s <= kMaxStepBracketSeconds) {
      n.push_back(std::round((s.at_s - steps.front().at_s) / guess));
      t.push_back(s.at_s);
    }
  if (static_cast<int>(n.size()) < kMinCalibrationSteps) return std::nullopt;
  const double k = static_cast<double>(n.size());
  double mn = 0, mt = 0;
  for (std::size_t i = 0; i < n.size(); ++i) mn += n[i] / k, mt += t[i] / k;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n.size(); ++i) sxx += (n[i] - mn) * (n[i] - mn), sxy += (n[i] - mn) * (t[i] - mt);
  if (!(sxx > 0)) return std::nullopt;
  const double period = sxy / sxx, t0 = mt - period * mn;
  double squares = 0;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double r = t[i] - (t0 + n[i] * period);
    if (std::abs(r) > kMaxStepBracketSeconds / 2 + kCounterStepJitterSeconds) return std::nullopt;
    squares += r * r;
  }
  CounterPeriod p;
  p.period_s = period;
  p.sd_s = n.size() > 2 ? std::sqrt(squares / (k - 2) / sxx) : 0;
  p.steps = static_cast<int>(n.size());
  return p;
}

namespace {

using Clock = std::chrono::steady_clock;
double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// Keeps batches queued on the timer's stream: kQueuedSeconds of work ahead, so the GPU never waits for the host.
// The host tops the queue up every 0.2 ms; NVML's calls (several milliseconds each under load on an H100 VM) run
// on the poller's thread. When they ran on this one, a queue of 6 batches of about a millisecond ran dry (the
// window's time per launch 5-25% above the median) and 50 ms were kept queued; what is queued when the window
// closes still runs, so the depth is paid on every case (50 ms: about 70 s of a 1446-case suite).
constexpr double kQueuedSeconds = 0.02;
constexpr std::size_t kUnknownBatchQueue = 8;  // where the batch's length is not known yet
class BatchQueue {
 public:
  BatchQueue(Timer& t, double batch_seconds)
      : t_(t),
        queued_(batch_seconds > 0 ? static_cast<std::size_t>(
                                        std::clamp(std::ceil(kQueuedSeconds / batch_seconds), 2.0, 2000.0))
                                  : kUnknownBatchQueue) {}
  ~BatchQueue() {
    for (cudaEvent_t e : done_) cudaEventDestroy(e);
    for (cudaEvent_t e : spare_) cudaEventDestroy(e);
  }
  void top_up() {
    while (!done_.empty() && cudaEventQuery(done_.front()) == cudaSuccess) {
      spare_.push_back(done_.front());
      done_.pop_front();
    }
    while (done_.size() < queued_) {
      launches_ += t_.enqueue_batch();
      cudaEvent_t e;
      if (spare_.empty()) {
        OPMARK_CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      } else {
        e = spare_.back();
        spare_.pop_back();
      }
      OPMARK_CHECK_CUDA(cudaEventRecord(e, t_.stream()));
      done_.push_back(e);
    }
  }
  long long launches() const { return launches_; }

 private:
  Timer& t_;
  std::size_t queued_;
  std::deque<cudaEvent_t> done_;
  std::vector<cudaEvent_t> spare_;
  long long launches_ = 0;
};

// Reads the energy counter back to back on its own thread until stopped; take() hands over the polls so far.
class EnergyPoller {
 public:
  explicit EnergyPoller(const GpuMonitor& monitor) : thread_([this, &monitor] { run(monitor); }) {}
  ~EnergyPoller() { stop(); }
  EnergyPoller(const EnergyPoller&) = delete;
  EnergyPoller& operator=(const EnergyPoller&) = delete;

  std::vector<EnergyPoll> take() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<EnergyPoll> out;
    out.swap(polls_);
    return out;
  }
  bool failed() const { return failed_; }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run(const GpuMonitor& monitor) {
    while (!stop_) {
      EnergyPoll p;
      p.begin_s = now_s();
      const auto mj = monitor.energy_millijoules();
      p.end_s = now_s();
      if (!mj) {
        failed_ = true;
        return;
      }
      p.millijoules = *mj;
      std::lock_guard<std::mutex> lock(mu_);
      polls_.push_back(p);
    }
  }

  std::atomic<bool> stop_{false}, failed_{false};
  std::mutex mu_;
  std::vector<EnergyPoll> polls_;
  std::thread thread_;  // last: started once the members it uses exist
};

}  // namespace

std::optional<CounterPeriod> calibrate_counter_period(const GpuMonitor& monitor) {
  if (!monitor.available() || !monitor.energy_millijoules()) return std::nullopt;
  EnergyEdges edges(std::numeric_limits<double>::infinity());
  EnergyPoller poller(monitor);
  std::this_thread::sleep_for(std::chrono::duration<double>(kCounterCalibrationSeconds));
  poller.stop();
  for (const EnergyPoll& p : poller.take()) edges.add(p);
  return fit_counter_period(edges.steps());
}

std::optional<EnergyWindow> measure_energy(Timer& timer, double batch_seconds, double min_window_s,
                                           double lead_in_s, std::optional<CounterPeriod> period, double over_watts) {
  const GpuMonitor* monitor = timer.monitor();
  if (!monitor || !monitor->available() || !monitor->energy_millijoules()) return std::nullopt;
  cudaStream_t s = timer.stream();
  cudaEvent_t start, stop;
  OPMARK_CHECK_CUDA(cudaEventCreate(&start));
  OPMARK_CHECK_CUDA(cudaEventCreate(&stop));
  EnergyEdges edges(min_window_s, period, over_watts);
  EnergyWindow w;
  bool stepped = false;
  try {
    BatchQueue queue(timer, batch_seconds);
    timer.stamp_clock(0);
    OPMARK_CHECK_CUDA(cudaEventRecord(start, s));
    const double t0 = now_s();
    while (now_s() - t0 < lead_in_s) queue.top_up();
    // The counter is read on a thread of its own, back to back, so each step is bracketed by two NVML calls alone;
    // polled between the queue's top-ups, a step's place was known only to within the host's launch calls too
    // (a median uncertainty of 3%, a tenth of the v5 suite's cases over 11%, on an H100 at be7714a).
    EnergyPoller poller(*monitor);
    const double give_up = now_s() + min_window_s + 1.0;
    while (now_s() < give_up && !poller.failed()) {
      queue.top_up();
      for (const EnergyPoll& p : poller.take())
        if (edges.add(p)) stepped = true;
      if (stepped) break;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    poller.stop();
    w.reasons = monitor->clock_events().reasons;
    OPMARK_CHECK_CUDA(cudaEventRecord(stop, s));
    timer.stamp_clock(1);
    w.sm_mhz = timer.clock_mhz();  // waits for the stream
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    w.launches = queue.launches();
    w.seconds_per_launch = w.launches > 0 ? ms * 1e-3 / static_cast<double>(w.launches) : 0;
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  OPMARK_CHECK_CUDA(cudaEventDestroy(start));
  OPMARK_CHECK_CUDA(cudaEventDestroy(stop));
  if (!stepped) return std::nullopt;
  w.window_s = edges.window_s();
  w.joules = edges.joules();
  w.uncertainty = edges.uncertainty();
  w.periods = edges.periods();
  return w;
}

}  // namespace opmark::bench
