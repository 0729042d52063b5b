// The batchnorm family on the host: byte counts, the layout field and its names, and the float64 reference in NCHW
// and NHWC.
#include <gtest/gtest.h>

#include <cmath>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/batchnorm.h"

using namespace opmark;
using namespace opmark::core;

TEST(Batchnorm, BytesAreTensorOnceAndChannelParameters) {
  const auto bn = [](const char* mode) {
    return make_case("batchnorm", "fwd", "fp16",
                     {{"n", std::int64_t{2}}, {"c", std::int64_t{3}}, {"h", std::int64_t{4}}, {"w", std::int64_t{5}},
                      {"mode", std::string(mode)}});
  };
  EXPECT_EQ(make_case_name(bn("train")), "batchnorm/fwd/fp16/n=2/c=3/h=4/w=5/mode=train/impl=opmark");
  const Work inf = work_of(bn("inference"));
  EXPECT_DOUBLE_EQ(inf.bytes_read, 120.0 * 2 + 4 * 3 * 4);  // x, and scale, bias, mean, var in fp32
  EXPECT_DOUBLE_EQ(inf.bytes_written, 120.0 * 2);
  const Work train = work_of(bn("train"));
  EXPECT_DOUBLE_EQ(train.bytes_read, 120.0 * 2 + 2 * 3 * 4);     // x, scale, bias
  EXPECT_DOUBLE_EQ(train.bytes_written, 120.0 * 2 + 2 * 3 * 4);  // y, saved mean and inverse deviation
}

TEST(BatchnormReference, InferenceUsesTheGivenStatisticsTrainingTheBatchs) {
  // N = 2, C = 1, HW = 2: x = {1, 3 | 5, 7}: batch mean 4, variance 5.
  const std::vector<double> x = {1, 3, 5, 7}, scale = {2}, bias = {1}, mean = {0}, var = {1};
  const auto inf = kernels::batchnorm_reference(false, x, scale, bias, mean, var, 2, 1, 2);
  EXPECT_NEAR(inf[0], 1.0 / std::sqrt(1.0 + kernels::kBatchNormEps) * 2 + 1, 1e-12);
  const auto train = kernels::batchnorm_reference(true, x, scale, bias, mean, var, 2, 1, 2);
  EXPECT_NEAR(train[0], (1.0 - 4.0) / std::sqrt(5.0 + kernels::kBatchNormEps) * 2 + 1, 1e-12);
  EXPECT_NEAR(train[3], (7.0 - 4.0) / std::sqrt(5.0 + kernels::kBatchNormEps) * 2 + 1, 1e-12);
}

namespace {

Case bn_case(const char* mode, const char* impl, const char* layout) {
  return make_case("batchnorm", "fwd", "fp16",
                   {{"n", std::int64_t{2}}, {"c", std::int64_t{3}}, {"h", std::int64_t{4}}, {"w", std::int64_t{5}},
                    {"mode", std::string(mode)}, {"impl", std::string(impl)}, {"layout", std::string(layout)}});
}

}  // namespace

// The layout came after results were published: NCHW (the default) keeps the names those results have, NHWC is
// named; both parse back, and the default spelled out is not a second name of the NCHW case.
TEST(Batchnorm, LayoutIsNamedOnlyWhenNhwc) {
  const std::string nchw = "batchnorm/fwd/fp16/n=2/c=3/h=4/w=5/mode=inference/impl=opmark";
  EXPECT_EQ(make_case_name(bn_case("inference", "opmark", "NCHW")), nchw);
  EXPECT_EQ(make_case_name(bn_case("inference", "opmark", "NHWC")), nchw + "/layout=NHWC");
  EXPECT_EQ(parse_case_name(nchw).str_field("layout"), "NCHW");
  EXPECT_EQ(make_case_name(parse_case_name(nchw + "/layout=NHWC")), nchw + "/layout=NHWC");
  EXPECT_TRUE(batchnorm_problem(parse_case_name(nchw + "/layout=NHWC")).nhwc);
  EXPECT_EQ(short_case_name(bn_case("inference", "opmark", "NHWC")),
            "batchnorm/fwd/fp16/n=2/c=3/h=4/w=5/layout=NHWC");
  try {
    parse_case_name(nchw + "/layout=NCHW");
    FAIL() << "layout=NCHW spelled out was read as a second name";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("layout=NCHW is the default, which batchnorm names leave out"),
              std::string::npos)
        << e.what();
  }
  // The same bytes in either layout.
  EXPECT_DOUBLE_EQ(work_of(bn_case("train", "cudnn", "NHWC")).bytes(),
                   work_of(bn_case("train", "cudnn", "NCHW")).bytes());
}

// opmark's NHWC path is inference only; NHWC training is cuDNN's.
TEST(Batchnorm, NhwcTrainingRunsThroughCudnnOnly) {
  EXPECT_NO_THROW(bn_case("inference", "opmark", "NHWC"));
  EXPECT_NO_THROW(bn_case("train", "cudnn", "NHWC"));
  try {
    bn_case("train", "opmark", "NHWC");
    FAIL() << "opmark's NHWC training was accepted";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs through cuDNN only (impl=cudnn)"), std::string::npos) << e.what();
  }
}

// The NHWC view (N*H*W images of one pixel) gives the NCHW reference's numbers, element for element moved to NHWC.
TEST(BatchnormReference, NhwcViewMatchesNchwTransposed) {
  const std::int64_t n = 2, c = 3, h = 2, w = 3, hw = h * w;
  std::vector<double> x_nchw(static_cast<std::size_t>(n * c * hw)), x_nhwc(x_nchw.size());
  const auto nchw_at = [&](std::int64_t b, std::int64_t ch, std::int64_t i) {
    return static_cast<std::size_t>((b * c + ch) * hw + i);
  };
  const auto nhwc_at = [&](std::int64_t b, std::int64_t ch, std::int64_t i) {
    return static_cast<std::size_t>((b * hw + i) * c + ch);
  };
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t ch = 0; ch < c; ++ch)
      for (std::int64_t i = 0; i < hw; ++i)
        x_nchw[nchw_at(b, ch, i)] = x_nhwc[nhwc_at(b, ch, i)] = std::sin(double(1 + b * 31 + ch * 7 + i)) * (ch + 1);
  const std::vector<double> scale = {0.5, 1.0, 2.0}, bias = {-1, 0, 1}, mean = {0.1, -0.2, 0.3}, var = {1, 2, 3};
  for (const bool train : {false, true}) {
    BatchnormProblem p;
    p.n = n, p.c = c, p.h = h, p.w = w, p.nhwc = true;
    const BatchnormProblem::Planes v = p.planes();
    EXPECT_EQ(v.images, n * h * w);
    EXPECT_EQ(v.pixels, 1);
    const auto ref_nchw = kernels::batchnorm_reference(train, x_nchw, scale, bias, mean, var, n, c, hw);
    const auto ref_nhwc = kernels::batchnorm_reference(train, x_nhwc, scale, bias, mean, var, v.images, v.channels,
                                                       v.pixels);
    for (std::int64_t b = 0; b < n; ++b)
      for (std::int64_t ch = 0; ch < c; ++ch)
        for (std::int64_t i = 0; i < hw; ++i)
          EXPECT_NEAR(ref_nhwc[nhwc_at(b, ch, i)], ref_nchw[nchw_at(b, ch, i)], 1e-12) << train << " " << b << ch << i;
  }
}
