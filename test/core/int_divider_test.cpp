// kernels/int_divider.h: the multiply-high division the permute kernels index with is exact, checked on the host
// (the same code the GPU runs, with the host's multiply-high).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "kernels/int_divider.h"

using opmark::kernels::IntDivider;

TEST(IntDivider, MatchesDivisionForEveryDivisorKind) {
  std::mt19937 random(7);
  std::uniform_int_distribution<unsigned> numerator(0, (1u << 31) - 1);
  for (const unsigned d : {1u, 2u, 3u, 5u, 7u, 33u, 64u, 65u, 1000u, 4093u, 65536u, 65537u, 1u << 30, (1u << 31) - 1}) {
    const IntDivider divider(d);
    for (const unsigned n : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, (1u << 31) - 1, (1u << 31) - 2}) {
      unsigned rem = 0;
      EXPECT_EQ(divider.divmod(n, &rem), n / d) << n << " / " << d;
      EXPECT_EQ(rem, n % d) << n << " % " << d;
    }
    for (int i = 0; i < 20000; ++i) {
      const unsigned n = numerator(random);
      ASSERT_EQ(divider.div(n), n / d) << n << " / " << d;
    }
  }
}

TEST(IntDivider, MatchesDivisionForRandomDivisors) {
  std::mt19937 random(11);
  std::uniform_int_distribution<unsigned> any(0, (1u << 31) - 1);
  for (int k = 0; k < 2000; ++k) {
    const unsigned d = 1 + any(random) % ((1u << 31) - 1) / (1u << (k % 31));
    const IntDivider divider(d);
    for (int i = 0; i < 200; ++i) {
      const unsigned n = any(random);
      ASSERT_EQ(divider.div(n), n / d) << n << " / " << d;
    }
  }
}
