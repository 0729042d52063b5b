// Convolution through cuDNN on the GPU: every direction and precision verified against the float64 reference on
// small shapes (odd sizes, stride, padding, dilation, groups, NHWC, 3D).
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "bench/harness/harness.h"
#include "core/case.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"

#ifdef OPMARK_HAVE_CUDNN
using namespace opmark;

namespace {

std::map<std::string, core::FieldValue> fields(std::initializer_list<std::pair<const char*, std::int64_t>> ints,
                                               const char* layout = "NCHW") {
  std::map<std::string, core::FieldValue> f;
  for (const auto& [k, v] : ints) f[k] = v;
  f["layout"] = std::string(layout);
  return f;
}

class ConvCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(ConvCase, VerifiedOnSmallShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [direction, precision] = GetParam();
  if (std::string(precision) == "int8" && std::string(direction) != "fwd") GTEST_SKIP() << "int8 is forward only";
  const std::vector<std::map<std::string, core::FieldValue>> shapes = {
      fields({{"n", 2}, {"c", 8}, {"h", 15}, {"w", 17}, {"k", 16}, {"r", 3}, {"s", 3}, {"pad_h", 1}, {"pad_w", 1}}),
      fields({{"n", 3}, {"c", 16}, {"h", 20}, {"w", 20}, {"k", 8}, {"r", 1}, {"s", 1}, {"stride_h", 2}, {"stride_w", 2}},
             "NHWC"),
      fields({{"n", 1}, {"c", 32}, {"h", 9}, {"w", 9}, {"k", 32}, {"r", 3}, {"s", 3}, {"pad_h", 2}, {"pad_w", 2},
              {"dil_h", 2}, {"dil_w", 2}, {"groups", 32}}),
      fields({{"n", 2}, {"c", 4}, {"d", 5}, {"h", 8}, {"w", 8}, {"k", 8}, {"t", 3}, {"r", 3}, {"s", 3}, {"pad_d", 1},
              {"pad_h", 1}, {"pad_w", 1}}),
  };
  bench::Options options;
  options.candidates = 4;
  options.workspace_bytes = 256ull << 20;
  cudaStream_t stream;
  OPMARK_CHECK_CUDA(cudaStreamCreate(&stream));
  for (const auto& f : shapes)
    test::expect_verified(core::make_case("conv", direction, precision, f), &bench::make_workload, options,
                          stream, /*unsupported_ok=*/true);
  OPMARK_CHECK_CUDA(cudaStreamDestroy(stream));
}

const std::vector<std::string> kDirections = {"fwd", "bwd_data", "bwd_filter"};
const std::vector<std::string> kPrecisions = {"fp32", "tf32", "fp16", "bf16", "int8"};
INSTANTIATE_TEST_SUITE_P(AllDirectionsAndPrecisions, ConvCase,
                         ::testing::Combine(::testing::ValuesIn(kDirections), ::testing::ValuesIn(kPrecisions)),
                         test::DirectionPrecisionName());
#endif
