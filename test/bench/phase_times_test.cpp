// The end-of-run account of where the time went.
#include <gtest/gtest.h>

#include "bench/harness/phase_times.h"

using opmark::bench::PhaseTimes;

TEST(PhaseTimes, SumsEachPhaseAndListsTheLargestFirst) {
  PhaseTimes t;
  t.add("tuning and verification", 30);
  t.add("energy windows", 20);
  t.add("energy windows", 25);
  t.add("kernel trace", 0.5);  // under 1% of the run: left out
  EXPECT_EQ(t.phases().size(), 3u);
  EXPECT_EQ(t.summary(100), "energy windows 45 s (45%), tuning and verification 30 s (30%)");
  EXPECT_EQ(t.summary(0), "");
}

TEST(PhaseTimes, AScopeAddsItsDuration) {
  PhaseTimes t;
  { PhaseTimes::Scope s(t, "warm-up"); }
  ASSERT_EQ(t.phases().size(), 1u);
  EXPECT_GE(t.phases()[0].second, 0.0);
}
