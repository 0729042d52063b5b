// The pool family on the host: output sizes, checks, bytes and the float64 reference (padding in the average).
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/pool.h"

using namespace opmark;
using namespace opmark::core;

static Case pool(std::int64_t h, std::int64_t r, std::int64_t pad, std::int64_t stride, const char* mode = "max") {
  return make_case("pool", "fwd", "fp32",
                   {{"n", std::int64_t{1}}, {"c", std::int64_t{1}}, {"h", h}, {"w", h}, {"r", r}, {"s", r},
                    {"pad_h", pad}, {"pad_w", pad}, {"stride_h", stride}, {"stride_w", stride},
                    {"mode", std::string(mode)}});
}

TEST(Pool, OutputSizeChecksAndBytes) {
  const PoolProblem p = pool_problem(pool(112, 3, 1, 2));  // ResNet-50's max pool: 112 -> 56
  EXPECT_EQ(p.p, 56);
  EXPECT_EQ(p.q, 56);
  EXPECT_DOUBLE_EQ(work_of(pool(112, 3, 1, 2)).bytes(), (112.0 * 112 + 56.0 * 56) * 4);
  EXPECT_THROW(pool(2, 3, 0, 1), opmark::Error);  // window larger than the input
  EXPECT_THROW(pool(8, 3, 3, 1), opmark::Error);  // padding as large as the window
}

TEST(PoolReference, MaxIgnoresPaddingAverageCountsIt) {
  // 2 x 2 input {1, 2, 3, 4}, 2 x 2 window, padding 1, stride 2: the top-left window sees only the 1.
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_EQ(kernels::pool_reference(pool_problem(pool(2, 2, 1, 2, "max")), x), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(kernels::pool_reference(pool_problem(pool(2, 2, 1, 2, "avg")), x),
            (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
}
