// The end-of-run account of where the time went.
#include <gtest/gtest.h>

#include "bench/harness/output/phase_times.h"

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

TEST(PhaseTimes, SplitsEachPhasePerFamilyAndCase) {
  PhaseTimes t;
  t.begin_case("gemm");
  t.add("tuning", 0.4);
  t.add("energy windows", 0.3);
  t.begin_case("gemm");
  t.add("tuning", 0.2);
  t.add("kernel trace", 0.001);  // under 0.01 s a case: left out
  t.begin_case("conv");
  t.add("energy windows", 0.1);
  t.end_cases();
  t.add("end-of-run re-time", 5);  // no family's
  const auto lines = t.family_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("gemm: 2 cases, "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("(tuning 0.30, energy windows 0.15)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("conv: 1 case, "), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("(energy windows 0.10)"), std::string::npos) << lines[1];
  EXPECT_EQ(t.summary(10).rfind("end-of-run re-time 5 s (50%)", 0), 0u) << t.summary(10);
}

TEST(PhaseTimes, TheSummaryFoldsAtTheConsolesWidth) {
  PhaseTimes t;
  t.add("energy windows", 33);
  t.add("end-of-run re-time", 9);
  t.add("building inputs", 8);
  const auto wide = t.summary_lines(66, 160);
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0], "opmark: 66 s, of which energy windows 33 s (50%), end-of-run re-time 9 s (14%), building inputs 8 s (12%)");
  const auto narrow = t.summary_lines(66, 60);
  ASSERT_EQ(narrow.size(), 3u);
  EXPECT_EQ(narrow[0], "opmark: 66 s, of which energy windows 33 s (50%),");
  EXPECT_EQ(narrow[1], "opmark:   end-of-run re-time 9 s (14%),");
  EXPECT_EQ(narrow[2], "opmark:   building inputs 8 s (12%)");
  for (const auto& l : narrow) EXPECT_LE(l.size(), 60u);
}
