// The burst repetition loop on the CPU, with scripted samples and host clocks: the stopping rule, drops with
// pauses that grow and run out, and two ranks (threads, with a stand-in collective) that keep making the same
// calls even when their host clocks run at different speeds (issue 36: under mpirun a rank that stopped at the
// time cap left the other waiting in its collective for ever).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/timing/repetitions.h"
#include "bench/harness/timing/retime.h"
#include "core/error.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

// Samples from a script: each call returns the next (time per launch, clock, reasons), the last one repeating.
struct ScriptedSource final : SampleSource {
  struct Step {
    double seconds_per_launch;
    unsigned mhz;
    std::uint64_t reasons = 0;
  };
  std::vector<Step> steps;
  std::size_t next = 0;
  int launches = 10;
  Sample sample() override {
    const Step& st = steps[std::min(next, steps.size() - 1)];
    ++next;
    Sample s;
    s.seconds_per_launch = st.seconds_per_launch;
    s.wall_seconds = st.seconds_per_launch * launches;
    s.launches = launches;
    s.clock.sm_mhz = st.mhz;
    s.clock.reasons = st.reasons;
    return s;
  }
};

// A host clock that each sample or pause moves on: `per_call_s` for each reading (a slow host reads later).
struct ScriptedHost {
  double t = 0, per_call_s = 0, slept = 0;
  HostTime time() {
    return {[this] { return t += per_call_s; }, [this](double s) {
              t += s;
              slept += s;
            }};
  }
};

// Ranks as threads: all_gather waits until every rank has called it as many times, and fails (instead of hanging)
// when the others do not come within a second: ranks that diverged.
class ThreadRanks {
 public:
  explicit ThreadRanks(int n) : n_(n), values_(static_cast<std::size_t>(n)) {}
  std::vector<double> gather(int rank, double v) {
    std::unique_lock<std::mutex> lock(mu_);
    const long long round = round_;
    values_[static_cast<std::size_t>(rank)] = v;
    if (++arrived_ == n_) {
      last_ = values_;
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else if (!cv_.wait_for(lock, std::chrono::seconds(1), [&] { return round_ != round; })) {
      throw Error("rank " + std::to_string(rank) + " waited alone in a collective: the ranks diverged");
    }
    return last_;
  }
  void leave() {  // a rank that is done: the others' next collective can no longer complete
    std::lock_guard<std::mutex> lock(mu_);
    --n_;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, arrived_ = 0;
  long long round_ = 0;
  std::vector<double> values_, last_;
};

class ThreadRank final : public ProcessGroup {
 public:
  ThreadRank(ThreadRanks& all, int me, int n) : all_(all), me_(me), n_(n) {}
  int rank() const override { return me_; }
  int size() const override { return n_; }
  int local_rank() const override { return me_; }
  void broadcast(void*, std::size_t, int) override {}
  std::vector<double> all_gather(double v) override { return all_.gather(me_, v); }
  std::string describe() const override { return "threads"; }
  [[noreturn]] void abort(const std::string& why) override { throw Error(why); }

 private:
  ThreadRanks& all_;
  int me_, n_;
};

BurstRule rule_of(int min_reps, int max_reps, double noise, double cap_s) {
  BurstRule r;
  r.stop = {min_reps, max_reps, noise, cap_s};
  r.min_time_s = 0.005;
  r.max_mhz = 1980;
  return r;
}

}  // namespace

TEST(Repetitions, SteadySamplesStopAtTheMinimum) {
  ScriptedSource src;
  src.steps = {{100e-6, 1980}};
  ScriptedHost host;
  host.per_call_s = 1e-3;
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule_of(3, 10, 0.01, 2.0), host.time());
  ASSERT_EQ(r.reps.size(), 3u);
  EXPECT_EQ(r.stop, StopReason::steady);
  EXPECT_EQ(r.reps[0].launches, 50);  // 5 samples of 10 launches of 100 us hold 5 ms
  EXPECT_DOUBLE_EQ(r.reps[0].sm_clock_mhz, 1980);
  EXPECT_FALSE(r.throttled);
}

TEST(Repetitions, AThrottledSampleIsDroppedAndTakenAgainAfterAPause) {
  ScriptedSource src;
  // Hot from tuning (nothing rested yet), then rested at 1520 under the power cap, then steady.
  src.steps = {{1.6e-3, 1350, clock_event::sw_power_cap}, {1.4e-3, 1520, clock_event::sw_power_cap}};
  src.launches = 1;
  ScriptedHost host;
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule_of(3, 10, 0.01, 2.0), host.time());
  ASSERT_EQ(r.reps.size(), 3u);
  EXPECT_EQ(r.reps[0].discarded, 1);
  EXPECT_DOUBLE_EQ(r.reps[0].seconds_per_launch, 1.4e-3);  // the dropped 1.6 ms sample counts nowhere
  EXPECT_DOUBLE_EQ(host.slept, 0.05);
  EXPECT_DOUBLE_EQ(r.rested_mhz, 1520);
  EXPECT_FALSE(r.throttled);
}

// A rest: one idle pause before the first sample, which is then the rested clock a later sample is held to.
TEST(Repetitions, ARestBeforeTheFirstSampleMakesItTheRestedOne) {
  ScriptedSource src;
  src.steps = {{1e-3, 1876}};
  src.launches = 1;
  ScriptedHost host;
  BurstRule rule = rule_of(3, 10, 0.01, 2.0);
  rule.rest_s = 0.2;
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule, host.time());
  EXPECT_DOUBLE_EQ(host.slept, 0.2);
  EXPECT_DOUBLE_EQ(r.rested_mhz, 1876);
  EXPECT_DOUBLE_EQ(r.recovery_s, 0);  // a rest is not a recovery from a dropped sample
  EXPECT_EQ(r.reps.size(), 3u);
}

// A rest shorter than a recovery pause leaves the first sample as it was: hot from tuning under the fraction, it is
// dropped and the GPU idles first.
TEST(Repetitions, AShortRestDoesNotMakeAHotSampleTheRestedOne) {
  ScriptedSource src;
  src.steps = {{1.6e-3, 1350, clock_event::sw_power_cap}, {1.4e-3, 1520, clock_event::sw_power_cap}};
  src.launches = 1;
  ScriptedHost host;
  BurstRule rule = rule_of(3, 10, 0.01, 2.0);
  rule.rest_s = 0.01;
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule, host.time());
  EXPECT_EQ(r.reps[0].discarded, 1);
  EXPECT_DOUBLE_EQ(host.slept, 0.01 + 0.05);
  EXPECT_DOUBLE_EQ(r.rested_mhz, 1520);
}

TEST(Repetitions, PausesRunOutAndTheCaseIsThrottled) {
  ScriptedSource src;
  src.steps = {{1e-3, 1000, clock_event::hw_thermal}};
  ScriptedHost host;
  BurstRule rule = rule_of(3, 10, 0.01, 100.0);
  rule.recovery = {0.05, 0.5, 1.0, 40};
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule, host.time());
  EXPECT_TRUE(r.throttled);
  EXPECT_NEAR(r.recovery_s, 0.75, 1e-12);  // 0.05 + 0.1 + 0.2 + 0.4; 0.5 more would pass the 1 s budget
  EXPECT_EQ(r.reps.size(), 3u);            // the case goes on with what it gets, marked throttled
}

TEST(Repetitions, TwoRanksWithHostClocksAtDifferentSpeedsStopTogether) {
  // Noisy times never settle, so each case ends at the 50 ms time cap; rank 1's host reads its clock later than
  // rank 0's, so by its own clock it reaches the cap repetitions earlier. Several cases in a row, as the end-of-run
  // re-time measures them.
  ThreadRanks all(2);
  std::vector<BurstRepetitions> results[2];
  auto run_rank = [&](int me) {
    ThreadRank group(all, me, 2);
    for (int c = 0; c < 4; ++c) {
      ScriptedSource src;
      for (int i = 0; i < 400; ++i) src.steps.push_back({100e-6 * (1 + 0.5 * ((i * i * 7 + c) % 13) / 13.0), 1980});
      ScriptedHost host;
      host.per_call_s = me == 0 ? 1e-3 : 1.7e-3;
      results[me].push_back(run_burst_repetitions(src, &group, rule_of(3, 30, 0.0, 0.05), host.time()));
    }
    all.leave();
  };
  std::string failure[2];
  std::thread rank1([&] {
    try {
      run_rank(1);
    } catch (const std::exception& e) {
      failure[1] = e.what();
      all.leave();
    }
  });
  try {
    run_rank(0);
  } catch (const std::exception& e) {
    failure[0] = e.what();
    all.leave();
  }
  rank1.join();
  ASSERT_EQ(failure[0], "");
  ASSERT_EQ(failure[1], "");
  ASSERT_EQ(results[0].size(), 4u);
  ASSERT_EQ(results[1].size(), 4u);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(results[0][c].reps.size(), results[1][c].reps.size()) << "case " << c;
    EXPECT_EQ(results[0][c].stop, StopReason::time_cap);
    // Both ranks report the mean over the ranks, so their repetitions agree to the bit.
    for (std::size_t i = 0; i < results[0][c].reps.size() && i < results[1][c].reps.size(); ++i)
      EXPECT_EQ(results[0][c].reps[i].seconds_per_launch, results[1][c].reps[i].seconds_per_launch);
  }
}

namespace {

// Runs `body(rank group)` on two thread ranks; returns each rank's failure ("" when none).
std::array<std::string, 2> on_two_ranks(const std::function<void(ProcessGroup&)>& body) {
  ThreadRanks all(2);
  std::array<std::string, 2> failure;
  auto run_rank = [&](int me) {
    try {
      ThreadRank group(all, me, 2);
      body(group);
    } catch (const std::exception& e) {
      failure[static_cast<std::size_t>(me)] = e.what();
    }
    all.leave();
  };
  std::thread rank1(run_rank, 1);
  run_rank(0);
  rank1.join();
  return failure;
}

}  // namespace

TEST(Repetitions, SampleUntilCountsTheTimeEveryRankAgreesOn) {
  // Rank 1's batches take 1.2 ms on its own clock, rank 0's 0.8 ms: by its own time rank 0 takes 3 samples to pass
  // 2 ms and rank 1 takes 2; through the agreement both count the longer and take 2.
  ScriptedSource fast, slow;
  fast.steps = {{0.8e-4, 1980}};
  slow.steps = {{1.2e-4, 1980}};
  SampleGoal goal;
  goal.min_seconds = 2e-3;
  EXPECT_EQ(sample_until([&] { return fast.sample(); }, {}, goal).size(), 3u);
  EXPECT_EQ(sample_until([&] { return slow.sample(); }, {}, goal).size(), 2u);
  std::size_t taken[2] = {0, 0};
  const auto failure = on_two_ranks([&](ProcessGroup& g) {
    ScriptedSource& mine = g.rank() == 0 ? fast : slow;
    mine.next = 0;
    taken[g.rank()] = sample_until([&] { return mine.sample(); }, [&](double v) { return g.agree_max(v); }, goal).size();
  });
  EXPECT_EQ(failure[0], "");
  EXPECT_EQ(failure[1], "");
  EXPECT_EQ(taken[0], 2u);
  EXPECT_EQ(taken[1], 2u);
}

TEST(Repetitions, TheEndOfRunReTimeOfSeveralCasesKeepsTwoRanksInStep) {
  // The harness's re-time of each case (Harness::recheck): a warm-up that starts from the agreed time of a first
  // eager batch, about 10 ms of quick samples, and where the quick median disagrees with the case's median a
  // burst measurement again. Each rank's batches take a different time, and rank 1's host clock runs slower.
  constexpr int kCases = 6;
  std::vector<double> quick_median[2];
  std::vector<std::size_t> remeasured_reps[2];
  const auto failure = on_two_ranks([&](ProcessGroup& g) {
    const int me = g.rank();
    auto agree = [&](double v) { return g.agree_max(v); };
    for (int c = 0; c < kCases; ++c) {
      ScriptedSource src;
      const double t = 1e-4 * (1 + c) * (me == 0 ? 0.9 : 1.1);
      src.steps = {{t, 1980}};
      src.launches = 10 + c;
      ScriptedHost host;
      host.per_call_s = me == 0 ? 1e-3 : 1.7e-3;
      SampleGoal warm_up;
      warm_up.min_seconds = 2e-3;
      warm_up.spent_seconds = agree(src.sample().wall_seconds);  // the first eager batch
      sample_until([&] { return src.sample(); }, agree, warm_up);
      SampleGoal quick_goal;
      quick_goal.min_samples = 3;
      quick_goal.min_seconds = 0.01;
      std::vector<double> quick;
      for (const Sample& s : sample_until([&] { return src.sample(); }, agree, quick_goal))
        quick.push_back(g.agree_mean(s.seconds_per_launch));
      quick_median[me].push_back(median_of(quick));
      // Odd cases were measured at half their time now: they are measured again.
      const double case_median = c % 2 ? median_of(quick) / 2 : median_of(quick);
      std::size_t reps = 0;
      if (!times_agree(median_of(quick), case_median))
        reps = run_burst_repetitions(src, &g, rule_of(3, 10, 0.0, 0.05), host.time()).reps.size();
      remeasured_reps[me].push_back(reps);
    }
  });
  ASSERT_EQ(failure[0], "");
  ASSERT_EQ(failure[1], "");
  ASSERT_EQ(quick_median[0].size(), static_cast<std::size_t>(kCases));
  EXPECT_EQ(quick_median[0], quick_median[1]);
  EXPECT_EQ(remeasured_reps[0], remeasured_reps[1]);
  for (int c = 0; c < kCases; ++c) EXPECT_EQ(remeasured_reps[0][c] > 0, c % 2 == 1) << "case " << c;
}

TEST(Repetitions, TheReTimeOfTwoRanksAgreesOnEveryDecision) {
  // retime_case itself (the harness's re-time of one case) on two ranks whose batches take different times and
  // whose host clocks run at different speeds: both take as many quick samples, agree on the quick median, measure
  // again the same cases and reach the same status.
  constexpr int kCases = 4;
  std::vector<double> recheck[2];
  std::vector<Status> status[2];
  const auto failure = on_two_ranks([&](ProcessGroup& g) {
    const int me = g.rank();
    for (int c = 0; c < kCases; ++c) {
      ScriptedSource src;
      src.steps = {{1e-4 * (1 + c) * (me == 0 ? 0.9 : 1.1), 1980}};
      ScriptedHost host;
      host.per_call_s = me == 0 ? 1e-3 : 1.7e-3;
      Measurement m;
      Repetition r;
      r.seconds_per_launch = c % 2 ? 5e-5 * (1 + c) : 1e-4 * (1 + c);  // odd cases ran at half their time
      m.reps = {r, r, r};
      summarize_repetitions(m);
      Outcome o;
      retime_case(src, &g, [&] { return measurement_of(run_burst_repetitions(src, &g, rule_of(3, 10, 0.0, 0.05),
                                                                            host.time())); },
                  m, o);
      recheck[me].push_back(m.recheck_s);
      status[me].push_back(o.status);
    }
  });
  ASSERT_EQ(failure[0], "");
  ASSERT_EQ(failure[1], "");
  EXPECT_EQ(recheck[0], recheck[1]);
  EXPECT_EQ(status[0], status[1]);
  for (int c = 0; c < kCases; ++c) EXPECT_EQ(status[0][c] == Status::unstable, c % 2 == 1) << "case " << c;
}

TEST(Repetitions, AfterARecoveryTheNextDropPausesFromTheFirstPauseAgain) {
  // Thermal slowdown, recovered after one pause, then a second slowdown: the kept sample between them starts the
  // pauses over (0.05 s twice, not 0.05 then 0.1), and the case ends unthrottled with both drops counted.
  ScriptedSource src;
  src.steps = {{1e-4, 1980, clock_event::hw_thermal}, {1e-4, 1980},
               {1e-4, 1980, clock_event::hw_thermal}, {1e-4, 1980}};
  ScriptedHost host;
  const BurstRepetitions r = run_burst_repetitions(src, nullptr, rule_of(3, 10, 0.01, 2.0), host.time());
  EXPECT_DOUBLE_EQ(host.slept, 0.1);
  EXPECT_DOUBLE_EQ(r.recovery_s, 0.1);
  ASSERT_EQ(r.reps.size(), 3u);
  EXPECT_EQ(r.reps[0].discarded, 2);
  EXPECT_FALSE(r.throttled);
  EXPECT_EQ(r.stop, StopReason::steady);
}
