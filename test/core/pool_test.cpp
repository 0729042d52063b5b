// The pool family on the host: output sizes, checks, bytes, the layout field and its names, and the float64
// reference (padding in the average) in NCHW and NHWC.
#include <gtest/gtest.h>

#include <cmath>

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

namespace {

Case pool_in(const char* layout, const char* impl, const char* mode = "max") {
  return make_case("pool", "fwd", "fp16",
                   {{"n", std::int64_t{2}}, {"c", std::int64_t{3}}, {"h", std::int64_t{5}}, {"w", std::int64_t{6}},
                    {"r", std::int64_t{3}}, {"s", std::int64_t{2}}, {"pad_h", std::int64_t{1}},
                    {"pad_w", std::int64_t{1}}, {"stride_h", std::int64_t{2}}, {"stride_w", std::int64_t{1}},
                    {"mode", std::string(mode)}, {"impl", std::string(impl)}, {"layout", std::string(layout)}});
}

}  // namespace

// NCHW keeps the names published before the layout existed; NHWC is named, and runs through cuDNN only.
TEST(Pool, LayoutIsNamedOnlyWhenNhwcAndNhwcIsCudnns) {
  const std::string nchw =
      "pool/fwd/fp16/n=2/c=3/h=5/w=6/r=3/s=2/pad_h=1/pad_w=1/stride_h=2/stride_w=1/mode=max/impl=cudnn";
  EXPECT_EQ(make_case_name(pool_in("NCHW", "cudnn")), nchw);
  EXPECT_EQ(make_case_name(pool_in("NHWC", "cudnn")), nchw + "/layout=NHWC");
  EXPECT_TRUE(pool_problem(parse_case_name(nchw + "/layout=NHWC")).nhwc);
  EXPECT_FALSE(pool_problem(parse_case_name(nchw)).nhwc);
  EXPECT_THROW(parse_case_name(nchw + "/layout=NCHW"), opmark::Error);  // the default is not a second name
  try {
    pool_in("NHWC", "opmark");
    FAIL() << "opmark's NCHW pooling kernel was given an NHWC case";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout=NHWC runs through cuDNN only (impl=cudnn)"), std::string::npos)
        << e.what();
  }
  EXPECT_DOUBLE_EQ(work_of(pool_in("NHWC", "cudnn")).bytes(), work_of(pool_in("NCHW", "cudnn")).bytes());
}

// The reference indexes NHWC input and output: the NCHW reference's numbers, element for element moved to NHWC.
TEST(PoolReference, NhwcMatchesNchwTransposed) {
  for (const char* mode : {"max", "avg"}) {
    const PoolProblem nchw = pool_problem(pool_in("NCHW", "cudnn", mode));
    const PoolProblem nhwc = pool_problem(pool_in("NHWC", "cudnn", mode));
    const auto to_nhwc = [&](const std::vector<double>& v, std::int64_t rows, std::int64_t cols) {
      std::vector<double> out(v.size());
      for (std::int64_t b = 0; b < nchw.n; ++b)
        for (std::int64_t ch = 0; ch < nchw.c; ++ch)
          for (std::int64_t i = 0; i < rows * cols; ++i)
            out[static_cast<std::size_t>((b * rows * cols + i) * nchw.c + ch)] =
                v[static_cast<std::size_t>((b * nchw.c + ch) * rows * cols + i)];
      return out;
    };
    std::vector<double> x(static_cast<std::size_t>(nchw.n * nchw.c * nchw.h * nchw.w));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(double(i) * 1.7) * 3;
    const std::vector<double> expected = to_nhwc(kernels::pool_reference(nchw, x), nchw.p, nchw.q);
    EXPECT_EQ(kernels::pool_reference(nhwc, to_nhwc(x, nchw.h, nchw.w)), expected) << mode;
  }
}
