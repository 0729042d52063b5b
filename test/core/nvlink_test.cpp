// NVLink's rates by generation, for the all-reduce's % of the links' bandwidth.
#include <gtest/gtest.h>

#include "core/nvlink.h"

using namespace opmark::core;

TEST(Nvlink, GenerationFollowsNvmlsVersionCode) {
  EXPECT_EQ(nvlink_generation(1, 60), 1);
  EXPECT_EQ(nvlink_generation(3, 70), 2);  // 2.2
  EXPECT_EQ(nvlink_generation(4, 80), 3);
  EXPECT_EQ(nvlink_generation(7, 100), 5);
  EXPECT_EQ(nvlink_generation(0, 80), 0);
  EXPECT_EQ(nvlink_generation(42, 80), 0);
}

TEST(Nvlink, HopperLinksAreGenerationFourWhateverTheCodeSays) {
  EXPECT_EQ(nvlink_generation(6, 90), 4);
  EXPECT_EQ(nvlink_generation(7, 90), 4);
  EXPECT_EQ(nvlink_generation(0, 90), 0);  // no answer from NVML stays no answer
}

TEST(Nvlink, PeakIsLinksTimesThePerLinkRateInOneDirection) {
  const NvlinkPeak h100 = nvlink_peak(18, 4);
  EXPECT_DOUBLE_EQ(h100.gb_per_s, 450);
  EXPECT_EQ(h100.text, "18 x NVLink 4 (450 GB/s per direction)");
  EXPECT_DOUBLE_EQ(nvlink_peak(18, 5).gb_per_s, 900);
  EXPECT_DOUBLE_EQ(nvlink_peak(12, 3).gb_per_s, 300);
  EXPECT_DOUBLE_EQ(nvlink_peak(0, 4).gb_per_s, 0);
  EXPECT_EQ(nvlink_peak(18, 0).text, "");
}
