// The allreduce family on the host: nccl-tests' bandwidth arithmetic and the size that gb_per_s divides.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/families.h"

using namespace opmark::core;

TEST(Allreduce, BusBandwidthFactorIsTwoTimesRanksMinusOneOverRanks) {
  EXPECT_DOUBLE_EQ(busbw_factor(1), 0.0);  // one rank moves nothing between GPUs
  EXPECT_DOUBLE_EQ(busbw_factor(2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(8), 1.75);
}

TEST(Allreduce, SizeIsCountTimesElementBytesPerRank) {
  const Case c = make_case("allreduce", "fwd", "bf16", {{"count", std::int64_t{1} << 20}, {"ranks", std::int64_t{2}}});
  EXPECT_EQ(make_case_name(c), "allreduce/fwd/bf16/count=1048576/ranks=2/op=sum/inplace=no");
  const Work w = work_of(c);
  EXPECT_DOUBLE_EQ(w.bytes(), 2.0 * (1 << 20));  // gb_per_s is then nccl-tests' algbw
  EXPECT_DOUBLE_EQ(w.flops, 0.0);
}
