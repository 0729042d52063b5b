// The regimes' rules and the energy arithmetic, on the CPU: which burst sample is dropped, how the pauses for the
// clock grow and run out, which case is heavy, how the energy counter's steps bound a window, and the energy
// counters that follow (J/op = power x time by construction).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "bench/harness/output/counters.h"
#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/harness.h"
#include "bench/harness/timing/regime.h"
#include "kernels/sm_clock.h"

using namespace opmark;
using namespace opmark::bench;

TEST(Regime, NamesParseBack) {
  EXPECT_STREQ(name_of(Regime::burst), "burst");
  EXPECT_EQ(parse_regime("sustained"), Regime::sustained);
  EXPECT_EQ(parse_regime("Burst"), std::nullopt);
}

TEST(Regime, BurstKeepsSamplesAtTheMaximumClockAndDropsSlowdowns) {
  BurstClock b(1980);
  EXPECT_FALSE(b.throttled(1980, 0, false));
  EXPECT_FALSE(b.throttled(1790, 0, false));  // 90.4% of the maximum
  EXPECT_FALSE(b.throttled(1980, clock_event::sw_power_cap, false));  // the cap alone drops nothing
  EXPECT_TRUE(b.throttled(1980, clock_event::hw_thermal, false));
  EXPECT_TRUE(b.throttled(1980, clock_event::sw_thermal, false));
  EXPECT_TRUE(b.throttled(1980, clock_event::hw_slowdown, false));
  EXPECT_TRUE(b.throttled(1980, clock_event::hw_power_brake, false));
  EXPECT_TRUE(b.throttled(1700, 0, false));  // 86%, and 14% under the 1980 the case ran at
  EXPECT_FALSE(b.throttled(1980, clock_event::gpu_idle | clock_event::applications_clocks, false));
  EXPECT_FALSE(b.throttled(0, 0, false));  // unknown clock: only a reason drops it
  EXPECT_TRUE(b.throttled(0, clock_event::hw_thermal, false));
  EXPECT_FALSE(BurstClock(0).throttled(1000, 0, false));  // unknown maximum
}

TEST(Regime, BurstHoldsAHeavyCaseToTheClockItRunsAtRested) {
  BurstClock b(1980);
  EXPECT_TRUE(b.throttled(1350, clock_event::sw_power_cap, false));  // hot from tuning, nothing rested yet: idle
  EXPECT_FALSE(b.throttled(1520, clock_event::sw_power_cap, true));  // after the pause: the rested clock
  EXPECT_DOUBLE_EQ(b.rested_mhz(), 1520);
  EXPECT_FALSE(b.throttled(1450, clock_event::sw_power_cap, false));  // 4.6% under it
  EXPECT_TRUE(b.throttled(1430, clock_event::sw_power_cap, false));   // 5.9% under it: idle again
  EXPECT_FALSE(b.throttled(1530, 0, true));
  EXPECT_DOUBLE_EQ(b.rested_mhz(), 1530);
}

// A lucky sample after one pause (1859 MHz) does not hold the case to its clock: after the next pause the GPU gives
// 1759, which is kept and becomes the rested clock, and so are the samples at it that follow.
TEST(Regime, TheLatestSampleAfterAPauseIsTheRestedClock) {
  BurstClock b(1980);
  EXPECT_FALSE(b.throttled(1859, 0, true));
  EXPECT_TRUE(b.throttled(1759, 0, false));  // 5.4% under 1859, under 90% of the maximum: idle
  EXPECT_FALSE(b.throttled(1758, 0, true));
  EXPECT_DOUBLE_EQ(b.rested_mhz(), 1758);
  EXPECT_FALSE(b.throttled(1754, 0, false));
  EXPECT_TRUE(b.throttled(1758, clock_event::hw_thermal, true));  // a slowdown's reason still drops it
}

TEST(Regime, RecoveryPausesGrowToTheirCapAndRunOut) {
  Recovery r(RecoveryRule{0.05, 0.5, 1.0, 40});
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.05);
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.1);
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.2);
  r.after_keep();  // a kept sample: the next drop starts small again
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.05);
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.1);
  EXPECT_DOUBLE_EQ(*r.after_drop(), 0.2);
  EXPECT_NEAR(r.paused_s(), 0.7, 1e-12);
  EXPECT_FALSE(r.after_drop());  // 0.4 more would pass the 1 s budget
  EXPECT_TRUE(r.exhausted());
  EXPECT_EQ(r.drops(), 7);
}

TEST(Regime, RecoveryStopsAtItsDropCount) {
  Recovery r(RecoveryRule{0.001, 0.001, 100.0, 3});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(r.after_drop());
  EXPECT_FALSE(r.after_drop());
  EXPECT_TRUE(r.exhausted());
}

TEST(Regime, HeavyCasesAreThoseTheirEnergyWindowThrottled) {
  EXPECT_TRUE(is_heavy(1980, 1650, 0, 600e-6));
  EXPECT_TRUE(is_heavy(1980, 1980, clock_event::sw_power_cap, 600e-6));
  EXPECT_FALSE(is_heavy(1980, 1965, 0, 600e-6));
  EXPECT_FALSE(is_heavy(0, 1500, 0, 600e-6));  // no burst clock to hold it against
  // Under the cap but short: a 12 us GEMM keeps its burst time and energy only.
  EXPECT_FALSE(is_heavy(1980, 1650, clock_event::sw_power_cap, 12e-6));
  EXPECT_TRUE(is_heavy(1980, 1650, 0, kHeavyMinLaunchSeconds));
}

TEST(Energy, StepsOfTheCounterBoundTheWindow) {
  EnergyEdges e(0.1);
  // Polls a millisecond apart; the counter steps every 100 ms by 48 J (480 W).
  unsigned long long mj = 1000000;
  bool done = false;
  for (int i = 0; i < 400 && !done; ++i) {
    const double t = i * 1e-3;
    if (i == 30 || i == 130 || i == 230) mj += 48000;
    done = e.add({t, t + 0.5e-3, mj});
  }
  ASSERT_TRUE(e.complete());
  EXPECT_NEAR(e.window_s(), 0.1, 1e-9);  // from the step at 30 ms to the one at 130 ms
  EXPECT_NEAR(e.joules(), 48.0, 1e-9);
  // Each step known to within 0.75 ms: (0.75 + 0.75) / 100 ms, and a millijoule in 48 J.
  EXPECT_NEAR(e.uncertainty(), 1.5e-3 / 0.1 + 1e-3 / 48.0, 1e-9);
}

// Polls of a counter that steps every `period` by `mj_per_step`, each call `call_s` long, the first step at
// `first_step`; `jitter(k)` moves step k.
std::vector<EnergyPoll> counter_polls(double seconds, double period, double first_step, double call_s,
                                      unsigned long long mj_per_step, double (*jitter)(int) = nullptr) {
  std::vector<EnergyPoll> out;
  for (double t = 0; t < seconds; t += call_s) {
    int steps = 0;
    while (true) {
      const double at = first_step + steps * period + (jitter ? jitter(steps) : 0);
      if (at > t + call_s / 2) break;  // a call reads the value of its middle
      ++steps;
    }
    out.push_back({t, t + call_s, 1000000 + steps * mj_per_step});
  }
  return out;
}

TEST(Energy, TheCounterPeriodIsFittedToItsSteps) {
  EnergyEdges e(1e9);
  for (const EnergyPoll& p : counter_polls(1.25, 0.1000016, 0.037, 2.9e-3, 7600)) e.add(p);
  const auto period = fit_counter_period(e.steps());
  ASSERT_TRUE(period);
  EXPECT_EQ(period->steps, 13);  // at 37, 137, ..., 1237 ms
  EXPECT_NEAR(period->period_s, 0.1000016, 0.2e-3);
  EXPECT_LT(period->sd_s, 0.2e-3);
  // Too few steps fix no period.
  EnergyEdges few(1e9);
  for (const EnergyPoll& p : counter_polls(0.5, 0.1, 0.037, 2.9e-3, 7600)) few.add(p);
  EXPECT_FALSE(fit_counter_period(few.steps()));
}

TEST(Energy, StepsThatKeepNoPeriodFixNone) {
  EnergyEdges e(1e9);
  // Steps 60 and 140 ms apart by turns: no one period fits them within a bracket.
  for (const EnergyPoll& p : counter_polls(2.0, 0.1, 0.037, 1e-3, 7600, [](int k) { return k % 2 ? 0.04 : 0.0; }))
    e.add(p);
  EXPECT_FALSE(fit_counter_period(e.steps()));
}

TEST(Energy, AWindowOfWholePeriodsLastsThatManyPeriods) {
  const CounterPeriod period{0.1000016, 2e-6, 12};
  EnergyEdges e(kDefaultEnergyWindowSeconds, period);
  bool done = false;
  for (const EnergyPoll& p : counter_polls(1.0, 0.1000016, 0.037, 2.9e-3, 48000))
    if (!done) done = e.add(p);
  ASSERT_TRUE(e.complete());
  EXPECT_TRUE(e.by_period());
  EXPECT_EQ(e.periods(), 1);  // 0.1 s is one step
  EXPECT_DOUBLE_EQ(e.window_s(), 0.1000016);
  EXPECT_NEAR(e.joules(), 48.0, 1e-9);
  // The steps' jitter and the period's error, not the 2.9 ms calls around each end.
  EXPECT_NEAR(e.uncertainty(), (kCounterStepJitterSeconds + 4e-6) / 0.1000016 + 1e-3 / 48.0, 1e-9);
  // 0.15 s is two steps, one second ten.
  EnergyEdges two(0.15, period), ten(1.0, period);
  for (const EnergyPoll& p : counter_polls(2.0, 0.1000016, 0.037, 2.9e-3, 48000)) {
    two.add(p);
    ten.add(p);
  }
  EXPECT_EQ(two.periods(), 2);
  EXPECT_EQ(ten.periods(), 10);
  EXPECT_NEAR(ten.joules(), 480.0, 1e-9);
}

TEST(Energy, AWindowOverTheLimitAndItsMarginStartsAgain) {
  // 972 W over the first step (97.2 J in 100 ms), against a 700 W limit and its margin (875 W), then 700 W: the first
  // step was the limiter's lead-in, and the window is the three steps after it.
  const CounterPeriod period{0.1, 2e-6, 12};
  EnergyEdges heavy(kDefaultEnergyWindowSeconds, period, 700 * (1 + kPowerMargin));
  unsigned long long mj = 1000000;
  for (int i = 0; i < 1000 && !heavy.complete(); ++i) {
    const double t = i * 1e-3;
    if (i % 100 == 37) mj += i < 100 ? 50000 : i < 200 ? 97200 : 70000;  // the first step starts the window
    heavy.add({t, t + 0.5e-3, mj});
  }
  ASSERT_TRUE(heavy.complete());
  EXPECT_EQ(heavy.periods(), 3);
  EXPECT_NEAR(heavy.joules(), 3 * 70.0, 1e-9);
  // Over again after starting again: it ends as it is.
  EnergyEdges over(kDefaultEnergyWindowSeconds, period, 700 * (1 + kPowerMargin));
  for (const EnergyPoll& p : counter_polls(1.0, 0.1, 0.037, 1e-3, 97200)) over.add(p);
  ASSERT_TRUE(over.complete());
  EXPECT_EQ(over.periods(), 3);
  EXPECT_NEAR(over.joules(), 3 * 97.2, 1e-9);
  // Within the margin, one step.
  EnergyEdges light(kDefaultEnergyWindowSeconds, period, 700 * (1 + kPowerMargin));
  for (const EnergyPoll& p : counter_polls(1.0, 0.1, 0.037, 1e-3, 80000)) light.add(p);
  EXPECT_EQ(light.periods(), 1);
}

TEST(Energy, AStepOffThePeriodIsTimedByItsCalls) {
  // The counter was re-phased: the step after the first comes 60 ms later, then every 100 ms again.
  const CounterPeriod period{0.1, 2e-6, 12};
  EnergyEdges e(kDefaultEnergyWindowSeconds, period);
  bool done = false;
  for (const EnergyPoll& p : counter_polls(1.0, 0.1, 0.037, 1e-3, 48000, [](int k) { return k >= 1 ? -0.04 : 0.0; }))
    if (!done) done = e.add(p);
  ASSERT_TRUE(e.complete());
  EXPECT_FALSE(e.by_period());
  EXPECT_NEAR(e.window_s(), 0.16, 1.5e-3);  // first step to the first one 0.1 s on, by the calls
}

TEST(Energy, NoWindowWithoutTwoSteps) {
  EnergyEdges e(0.1);
  for (int i = 0; i < 50; ++i) EXPECT_FALSE(e.add({i * 1e-3, i * 1e-3 + 1e-4, 5}));
  EXPECT_FALSE(e.complete());
  EXPECT_EQ(e.uncertainty(), 0);
}

TEST(Energy, JoulesPerOpIsPowerTimesTimeByConstruction) {
  core::Work compute{2e12, 3e9, 1e9};
  EnergyWindow w;
  w.window_s = 0.2;
  w.joules = 96;  // 480 W
  w.seconds_per_launch = 0.004;
  w.sm_mhz = 1650;
  w.uncertainty = 0.02;
  auto c = energy_counters(compute, w);
  EXPECT_DOUBLE_EQ(c.at("power_w"), 480);
  EXPECT_DOUBLE_EQ(c.at("joules_per_op"), c.at("power_w") * c.at("energy_us") * 1e-6);
  EXPECT_NEAR(c.at("tflops_per_w"), 500.0 / 480.0, 1e-12);  // TFLOPS / W is TFLOP / J
  EXPECT_DOUBLE_EQ(c.at("energy_window_ms"), 200);
  EXPECT_DOUBLE_EQ(c.at("energy_sm_clock_mhz"), 1650);
  EXPECT_DOUBLE_EQ(c.at("energy_uncertainty"), 0.02);
  EXPECT_EQ(c.count("gb_per_s_per_w"), 0u);
  auto s = energy_counters(compute, w, "sustained_");
  EXPECT_DOUBLE_EQ(s.at("sustained_us"), 4000);
  EXPECT_DOUBLE_EQ(s.at("sustained_power_w"), 480);
  EXPECT_DOUBLE_EQ(s.at("sustained_sm_clock_mhz"), 1650);
  core::Work copy{0, 1e9, 1e9};
  w.seconds_per_launch = 1e-3;
  w.joules = 80;  // 400 W
  auto m = energy_counters(copy, w);
  EXPECT_NEAR(m.at("gb_per_s_per_w"), 2000.0 / 400.0, 1e-12);
  EXPECT_EQ(m.count("tflops_per_w"), 0u);
  w.joules = 0;
  EXPECT_TRUE(energy_counters(copy, w).empty());  // unknown energy: no counters
}

TEST(SmClock, MedianOverMultiprocessorsStampedTwice) {
  using kernels::SmStamp;
  // Three SMs at 1980, 1975 and 1985 MHz over 1 ms; a fourth never stamped the second time.
  std::vector<SmStamp> a = {{1000, 0}, {5000, 10}, {2000, 20}, {7, 7}};
  std::vector<SmStamp> b = {{1000 + 1980000, 1000000}, {5000 + 1975000, 1000010}, {2000 + 1985000, 1000020}, {0, 0}};
  EXPECT_NEAR(kernels::median_mhz(a, b), 1980, 1e-9);
  EXPECT_EQ(kernels::median_mhz({}, {}), 0);
}

// Which power restarts a window: launches of 200 us or more in a short (burst) window restart over the enforced limit
// itself, the limiter's lead-in; shorter launches, and sustained windows of a second, over the limit and its margin.
TEST(Energy, HeavyLaunchesRestartTheirBurstWindowOverTheLimitItself) {
  EXPECT_DOUBLE_EQ(restart_watts(700.0, 1.34e-3, 0.1), 700.0);
  EXPECT_DOUBLE_EQ(restart_watts(700.0, kHeavyMinLaunchSeconds, 0.1), 700.0);
  EXPECT_DOUBLE_EQ(restart_watts(700.0, 150e-6, 0.1), 700.0 * (1 + kPowerMargin));
  EXPECT_DOUBLE_EQ(restart_watts(700.0, 1.34e-3, 1.0), 700.0 * (1 + kPowerMargin));
  EXPECT_TRUE(std::isinf(restart_watts(std::nullopt, 1.34e-3, 0.1)));
  // Where a heavy case's sustained windows follow, they give its energy: its burst window keeps the margin.
  EXPECT_DOUBLE_EQ(restart_watts(700.0, 1.34e-3, 0.1, true), 700.0 * (1 + kPowerMargin));
}

// A heavy case's energy (joules_per_op, power_w, energy_us, ...) is its sustained windows', said by
// energy_from_sustained; its burst window, the limiter's lead-in, gives none of it. A light case keeps its window's.
TEST(Energy, AHeavyCasesEnergyComesFromItsSustainedWindows) {
  CaseFacts facts;
  facts.work = core::Work{2e12, 1e8, 1e8};
  facts.precision = "bf16";
  Measurement m;
  m.median_s = 1.35e-3;
  EnergyWindow burst;
  burst.window_s = 0.3, burst.joules = 231, burst.launches = 220, burst.seconds_per_launch = 1.36e-3,
  burst.sm_mhz = 1367;  // 770 W
  EnergyWindow sustained;
  sustained.window_s = 1.0, sustained.joules = 700, sustained.launches = 625, sustained.seconds_per_launch = 1.6e-3,
  sustained.sm_mhz = 1300;  // 700 W
  m.energy = burst;
  auto light = case_counters(facts, m, Peaks{});
  EXPECT_NEAR(light.at("power_w"), 770, 1e-9);
  EXPECT_EQ(light.count("energy_from_sustained"), 0u);
  m.sustained = sustained;
  auto heavy = case_counters(facts, m, Peaks{});
  EXPECT_NEAR(heavy.at("power_w"), 700, 1e-9);
  EXPECT_NEAR(heavy.at("energy_us"), 1600, 1e-9);
  EXPECT_NEAR(heavy.at("joules_per_op"), 700 * 1.6e-3, 1e-12);
  EXPECT_DOUBLE_EQ(heavy.at("joules_per_op"), heavy.at("sustained_joules_per_op"));
  EXPECT_DOUBLE_EQ(heavy.at("energy_from_sustained"), 1);
}

