// The verdict on one case in two runs (aggregate/verdict.h): where each run's noise comes from, the floor on it, the
// limit, `unclear` between the least change and the limit, and the change judged in cycles where the SM clocks of a
// compute-bound case differ.
#include <gtest/gtest.h>

#include "aggregate/verdict.h"

using namespace opmark::aggregate;

namespace {

CaseResult timed(double us, std::map<std::string, double> counters = {}) {
  CaseResult r;
  r.time_us = us;
  r.reps_us = {us, us, us};
  r.counters = std::move(counters);
  return r;
}

// A case nearer the compute roof than the bandwidth one, at an SM clock.
CaseResult compute_bound(double us, double clock_mhz) {
  return timed(us, {{"flops", 1e12}, {"pct_peak", 70}, {"pct_peak_bw", 5}, {"sm_clock_mhz", clock_mhz}});
}

}  // namespace

TEST(RunNoise, RunNoiseThenTheRetimeThenTheRepetitions) {
  EXPECT_EQ(run_noise_of(timed(100, {{"run_noise", 0.03}, {"recheck_us", 110}, {"noise", 0.001}})).source, "run_noise");
  const RunNoise retime = run_noise_of(timed(100, {{"recheck_us", 104}, {"noise", 0.001}}));
  EXPECT_EQ(retime.source, "re-time");
  EXPECT_NEAR(retime.measured, 0.04, 1e-12);
  EXPECT_EQ(run_noise_of(timed(100, {{"noise", 0.002}})).source, "repetitions");
  CaseResult reps = timed(100);
  reps.reps_us = {90, 100, 110};
  EXPECT_NEAR(run_noise_of(reps).measured, 0.1, 1e-12);
  CaseResult none = timed(100);
  none.reps_us = {100};
  EXPECT_EQ(run_noise_of(none).source, "none");
  EXPECT_EQ(run_noise_of(none).used(), kNoiseFloor);
  // A noise under the floor counts as the floor.
  EXPECT_EQ(run_noise_of(timed(100, {{"noise", 0.0002}})).used(), kNoiseFloor);
}

TEST(CaseVerdict, SameWithinTheLeastChangeEitherWay) {
  EXPECT_EQ(case_verdict(timed(100), timed(101.9)).verdict, Verdict::same);
  EXPECT_EQ(case_verdict(timed(100), timed(100 / 1.019)).verdict, Verdict::same);
}

TEST(CaseVerdict, QuietRunsCallAChangeBeyondTheFlooredNoise) {
  // Both runs' noise floored at 1%: limit 2 x sqrt(2) x 1% = 2.83%.
  const CaseVerdict v = case_verdict(timed(100, {{"noise", 0.0002}}), timed(103, {{"noise", 0.0003}}));
  EXPECT_NEAR(v.limit, kNoiseMultiple * std::sqrt(2.0) * kNoiseFloor, 1e-12);
  EXPECT_EQ(v.verdict, Verdict::slower);
  EXPECT_EQ(case_verdict(timed(100), timed(97)).verdict, Verdict::faster);
  // Past the least change but within the floored noise: too close to call.
  EXPECT_EQ(case_verdict(timed(100), timed(102.5)).verdict, Verdict::unclear);
}

TEST(CaseVerdict, NoisyRunsAreUnclearUntilTheChangeOutgrowsTheNoise) {
  const CaseResult before = timed(100, {{"recheck_us", 110}});  // 10% run to run
  EXPECT_EQ(case_verdict(before, timed(115)).verdict, Verdict::unclear);  // limit 2 x sqrt(10%^2 + 1%^2) = 20.1%
  const CaseVerdict v = case_verdict(before, timed(125));
  EXPECT_EQ(v.verdict, Verdict::slower);
  EXPECT_NE(v.detail.find("10.00% (re-time) before"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("the limit 20.10%"), std::string::npos) << v.detail;
}

TEST(CaseVerdict, UnstableOrUntimedIsUnclear) {
  CaseResult unstable = timed(100);
  unstable.status = "unstable";
  EXPECT_EQ(case_verdict(unstable, timed(200)).verdict, Verdict::unclear);
  EXPECT_EQ(case_verdict(timed(100), unstable).verdict, Verdict::unclear);
  EXPECT_EQ(case_verdict(timed(100), timed(0)).verdict, Verdict::unclear);
}

TEST(CaseVerdict, ARunAgainstItselfIsTheSameWhateverItsNoise) {
  for (const CaseResult& r : {timed(5), timed(100, {{"recheck_us", 140}}), compute_bound(700, 1455)})
    EXPECT_EQ(case_verdict(r, r).verdict, Verdict::same);
}

TEST(CaseVerdict, ComputeBoundAtAnotherClockIsConfirmedInCycles) {
  // 12.8% longer at a clock 11.4% lower: slower in time, the same in cycles: the clock explains it, no call.
  const CaseVerdict v = case_verdict(compute_bound(100, 1980), compute_bound(100 * 1980 / 1755.0, 1755));
  EXPECT_EQ(v.basis, "cycles");
  EXPECT_NEAR(v.ratio, 1.0, 1e-12);
  EXPECT_NEAR(v.time_ratio, 1980 / 1755.0, 1e-12);
  EXPECT_EQ(v.verdict, Verdict::unclear);
  EXPECT_NE(v.detail.find("time and cycles disagree (slower in time, same in cycles)"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("+12.82% in time and +0.00% in cycles (compute bound, SM clock 1980 -> 1755 MHz)"),
            std::string::npos) << v.detail;
  // 20% more time and 6% more cycles at the lower clock: slower both ways.
  const CaseVerdict slower = case_verdict(compute_bound(100, 1980), compute_bound(120, 1870));
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_EQ(slower.basis, "cycles");
  // Faster in time only because the clock rose: more cycles, unclear.
  EXPECT_EQ(case_verdict(compute_bound(100, 1545), compute_bound(96, 1980)).verdict, Verdict::unclear);
  // The same time at another clock: unclear too (same in time, faster in cycles).
  EXPECT_EQ(case_verdict(compute_bound(100, 1980), compute_bound(100, 1755)).verdict, Verdict::unclear);
}

TEST(CaseVerdict, MemoryBoundOrTheSameClockIsJudgedInTime) {
  CaseResult memory = compute_bound(100, 1980);
  memory.counters["pct_peak"] = 2;
  memory.counters["pct_peak_bw"] = 80;
  CaseResult slower_clock = memory;
  slower_clock.time_us = 110;
  slower_clock.counters["sm_clock_mhz"] = 1755;
  const CaseVerdict v = case_verdict(memory, slower_clock);
  EXPECT_EQ(v.basis, "time");
  EXPECT_EQ(v.verdict, Verdict::slower);
  EXPECT_NE(v.detail.find("memory bound"), std::string::npos) << v.detail;
  // Clocks within a reading's step: time.
  EXPECT_EQ(case_verdict(compute_bound(100, 1980), compute_bound(110, 1965)).basis, "time");
  // Only one run records its clock: time.
  EXPECT_EQ(case_verdict(compute_bound(100, 1980), timed(110)).basis, "time");
}
