// The batchnorm family on the host: byte counts and the float64 reference.
#include <gtest/gtest.h>

#include <cmath>

#include "core/case.h"
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
