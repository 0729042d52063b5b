// The anomaly guard and the end-of-run re-time on the CPU, with scripted cases: a probe that disagrees with the
// median is measured again (and the case is unstable where it disagrees twice), a throttled measurement is unstable,
// and a re-time that moved is measured again and kept or marked unstable.
#include <gtest/gtest.h>

#include <vector>

#include "bench/harness/timing/measure_guard.h"
#include "bench/harness/timing/retime.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

Measurement with_median(double seconds) {
  Measurement m;
  Repetition r;
  r.seconds_per_launch = seconds;
  m.reps = {r, r, r};
  summarize_repetitions(m);
  return m;
}

// Repetitions of these times (us), summarized as the harness does.
Measurement with_repetitions(const std::vector<double>& us) {
  Measurement m;
  for (double t : us) {
    Repetition r;
    r.seconds_per_launch = t * 1e-6;
    m.reps.push_back(r);
  }
  summarize_repetitions(m);
  return m;
}

// A case whose measurements and probes come from a script, counting the calls.
struct ScriptedCase final : GuardedCase {
  std::vector<Measurement> measurements;
  std::vector<double> probes;  // what each prepare_again() returns
  int measured = 0, prepared = 0;
  std::vector<double> previous_medians;  // what the measurement held when measure() was called
  Measurement* live = nullptr;
  Measurement measure() override {
    previous_medians.push_back(live ? live->median_s : -1);
    return measurements.at(static_cast<std::size_t>(measured++));
  }
  double prepare_again() override { return probes.at(static_cast<std::size_t>(prepared++)); }
};

// The guard over a scripted case from `probe` (0.9: the clock fraction its throttle reason quotes).
Outcome run_guard(ScriptedCase& c, double& probe, Measurement& m, Regime regime = Regime::burst) {
  Outcome o;
  measure_with_guard(c, probe, m, o, regime, 0.9);
  return o;
}

}  // namespace

TEST(Guard, AProbeThatAgreesMeasuresOnce) {
  ScriptedCase c;
  c.measurements = {with_median(100e-6)};
  double probe = 110e-6;
  Measurement m;
  const Outcome o = run_guard(c, probe, m);
  EXPECT_EQ(c.measured, 1);
  EXPECT_EQ(c.prepared, 0);
  EXPECT_EQ(o.status, Status::ok);
  EXPECT_DOUBLE_EQ(m.probe_s, 110e-6);
  EXPECT_DOUBLE_EQ(m.first_median_s, 0);
}

// Repetitions that span more than their spread allows (the checker's rule, core::allowed_span) are measured again,
// and spread twice the case is unstable: the H100 run of 2335f61 kept such a GEMM as ok (3.83-11.02 us).
TEST(Guard, RepetitionsThatSpreadAreMeasuredAgainThenUnstable) {
  const std::vector<double> spread = {11.016, 4.027, 10.742, 4.113, 4.105, 4.741, 3.830, 4.189, 4.084, 3.972};
  ScriptedCase c;
  c.measurements = {with_repetitions(spread), with_repetitions({4.10, 4.11, 4.09})};
  c.probes = {4.1e-6};
  double probe = 4.1e-6;
  Measurement m;
  const Outcome o = run_guard(c, probe, m);
  EXPECT_EQ(c.measured, 2);
  EXPECT_EQ(o.status, Status::ok);  // the second measurement is steady: kept

  ScriptedCase twice;
  twice.measurements = {with_repetitions(spread), with_repetitions(spread)};
  twice.probes = {4.1e-6};
  probe = 4.1e-6;
  const Outcome o2 = run_guard(twice, probe, m);
  EXPECT_EQ(o2.status, Status::unstable);
  EXPECT_NE(o2.reason.find("the repetitions spread: the slowest 2.88x the fastest"), std::string::npos) << o2.reason;
}

TEST(Guard, ADisagreementIsMeasuredAgainAndKeptWhenTheSecondAgrees) {
  ScriptedCase c;
  c.measurements = {with_median(200e-6), with_median(102e-6)};
  c.probes = {100e-6};
  double probe = 100e-6;
  Measurement m;
  c.live = &m;
  Outcome o;
  measure_with_guard(c, probe, m, o, Regime::burst, 0.9);
  EXPECT_EQ(c.measured, 2);
  EXPECT_EQ(c.prepared, 1);
  EXPECT_EQ(o.status, Status::ok);
  EXPECT_DOUBLE_EQ(m.median_s, 102e-6);
  EXPECT_DOUBLE_EQ(m.first_median_s, 200e-6);
  // The second measurement starts from the first one's median (it sizes a sustained window's batches).
  ASSERT_EQ(c.previous_medians.size(), 2u);
  EXPECT_DOUBLE_EQ(c.previous_medians[1], 200e-6);
}

// A median that agrees with the probe but is more than kSlowSpellFactor slower met a slow spell (an H100's
// 8448x1x2816 GEMM: probe 18.24 us, median 22.75 us, CUPTI's kernel 17.69 us, the end-of-run re-time 18.26 us):
// measured again as it is, not tuned again, and the faster median kept.
TEST(Guard, ASlowSpellIsMeasuredAgainAndTheFasterKept) {
  ScriptedCase c;
  c.measurements = {with_median(22.75e-6), with_median(18.3e-6)};
  double probe = 18.24e-6;
  Measurement m;
  c.live = &m;
  const Outcome o = run_guard(c, probe, m);
  EXPECT_EQ(c.measured, 2);
  EXPECT_EQ(c.prepared, 0);
  EXPECT_EQ(o.status, Status::ok);
  EXPECT_DOUBLE_EQ(m.median_s, 18.3e-6);
  EXPECT_DOUBLE_EQ(m.first_median_s, 22.75e-6);
  EXPECT_DOUBLE_EQ(m.probe_s, 18.24e-6);

  // Slower again: the first is kept, and the counter still says the case was measured twice.
  ScriptedCase slower;
  slower.measurements = {with_median(22.75e-6), with_median(23.5e-6)};
  probe = 18.24e-6;
  run_guard(slower, probe, m);
  EXPECT_EQ(slower.measured, 2);
  EXPECT_DOUBLE_EQ(m.median_s, 22.75e-6);
  EXPECT_DOUBLE_EQ(m.first_median_s, 22.75e-6);

  // A second measurement whose repetitions spread is not kept, however fast.
  ScriptedCase spread;
  spread.measurements = {with_median(22.75e-6), with_repetitions({11.0, 4.0, 10.7, 4.1, 4.1, 4.7, 3.8, 4.2})};
  probe = 18.24e-6;
  const Outcome o3 = run_guard(spread, probe, m);
  EXPECT_EQ(o3.status, Status::ok);
  EXPECT_DOUBLE_EQ(m.median_s, 22.75e-6);
}

TEST(Guard, NoSlowSpellWithinTheFactorNorInTheSustainedRegime) {
  ScriptedCase within;
  within.measurements = {with_median(1.07e-4)};
  double probe = 1e-4;
  Measurement m;
  run_guard(within, probe, m);
  EXPECT_EQ(within.measured, 1);
  EXPECT_DOUBLE_EQ(m.first_median_s, 0);

  // Sustained: the median runs at the power limit, 10-16% slower than a probe at full clock, by design.
  ScriptedCase sustained;
  sustained.measurements = {with_median(1.15e-4)};
  probe = 1e-4;
  run_guard(sustained, probe, m, Regime::sustained);
  EXPECT_EQ(sustained.measured, 1);
  EXPECT_DOUBLE_EQ(m.median_s, 1.15e-4);
}

TEST(Guard, DisagreeingTwiceIsUnstableWithBothNumbers) {
  ScriptedCase c;
  c.measurements = {with_median(200e-6), with_median(300e-6)};
  c.probes = {150e-6};
  double probe = 100e-6;
  Measurement m;
  const Outcome o = run_guard(c, probe, m);
  EXPECT_EQ(o.status, Status::unstable);
  EXPECT_EQ(o.reason,
            "the probe and the median disagree twice: probe 100 us vs median 200 us (2.00x), then probe 150 us vs "
            "median 300 us (2.00x)");
  EXPECT_DOUBLE_EQ(probe, 150e-6);
  EXPECT_DOUBLE_EQ(m.probe_s, 150e-6);
}

TEST(Guard, AThrottledMeasurementIsUnstableAndSaysWhy) {
  ScriptedCase c;
  Measurement throttled = with_median(100e-6);
  throttled.throttled = true;
  throttled.rested_mhz = 1520;
  throttled.recovery_s = 4.75;
  c.measurements = {throttled};
  double probe = 100e-6;
  Measurement m;
  const Outcome o = run_guard(c, probe, m);
  EXPECT_EQ(o.status, Status::unstable);
  EXPECT_EQ(o.reason,
            "throttled: no sample within 5% of the 1520 MHz the case ran at rested, nor at 90% of the maximum clock, "
            "after 4.75 s of pauses; the time kept is the GPU's throttled one");
}

namespace {

// Quick samples of a fixed time, ten launches each.
struct FixedSource final : SampleSource {
  double seconds_per_launch;
  int taken = 0;
  explicit FixedSource(double s) : seconds_per_launch(s) {}
  Sample sample() override {
    ++taken;
    Sample s;
    s.seconds_per_launch = seconds_per_launch;
    s.launches = 10;
    s.wall_seconds = 10 * seconds_per_launch;
    return s;
  }
};

}  // namespace

TEST(Retime, AReTimeThatAgreesOnlyAddsItsCounters) {
  FixedSource quick(105e-6);
  Measurement m = with_median(100e-6);
  Outcome o;
  int again = 0;
  retime_case(quick, nullptr, [&] { ++again; return with_median(100e-6); }, m, o);
  EXPECT_EQ(again, 0);
  EXPECT_EQ(quick.taken, 10);  // 10 ms of 1.05 ms samples
  EXPECT_DOUBLE_EQ(m.recheck_s, 105e-6);
  EXPECT_DOUBLE_EQ(o.counters.at("recheck_us"), 105);
  EXPECT_NEAR(o.counters.at("run_noise"), 0.05, 1e-12);
  EXPECT_EQ(o.counters.count("remeasured_us"), 0u);
  EXPECT_EQ(o.status, Status::ok);
}

TEST(Retime, AReTimeThatMovedIsMeasuredAgainAndKeptWhenThatAgrees) {
  FixedSource quick(200e-6);
  Measurement m = with_median(100e-6);
  Outcome o;
  retime_case(quick, nullptr, [&] { return with_median(101e-6); }, m, o);
  EXPECT_DOUBLE_EQ(m.remeasured_s, 101e-6);
  EXPECT_EQ(m.recheck_reps_s.size(), 3u);
  EXPECT_DOUBLE_EQ(o.counters.at("remeasured_us"), 101);
  EXPECT_EQ(o.status, Status::ok);
  EXPECT_DOUBLE_EQ(m.median_s, 100e-6);  // the case keeps its measurement
}

TEST(Retime, MeasuredAgainAndStillMovedIsUnstable) {
  FixedSource quick(200e-6);
  Measurement m = with_median(100e-6);
  Outcome o;
  retime_case(quick, nullptr, [&] { return with_median(190e-6); }, m, o);
  EXPECT_EQ(o.status, Status::unstable);
  EXPECT_EQ(o.reason,
            "re-timed at the end of the run at 200 us and measured again at 190 us, against a median of 100 us "
            "(1.90x)");
}
