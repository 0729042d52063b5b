// The batchnorm family on the GPU: inference and training forward, every precision, opmark's kernels and cuDNN,
// verified against the float64 host reference on shapes with odd sizes; and NHWC (layout=NHWC): cuDNN in both modes,
// opmark's inference path, verified against the same reference over the NHWC view.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class BatchnormCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
class BatchnormNhwcCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(BatchnormCase, VerifiedOnOddShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  struct Shape {
    std::int64_t n, c, h, w;
  };
  for (const std::string impl : {"opmark", "cudnn"})
    for (const Shape& s : {Shape{2, 3, 5, 7}, Shape{8, 64, 14, 14}, Shape{1, 1, 1, 1}, Shape{3, 17, 31, 1},
                           Shape{2, 4, 128, 160}})
      test::expect_verified(core::make_case("batchnorm", "fwd", precision,
                                            {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"mode", mode},
                                             {"impl", impl}}),
                            &bench::make_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(BothModesAllPrecisions, BatchnormCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"inference", "train"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());

// NHWC: cuDNN's legacy batch norm with NHWC descriptors (training and inference), and opmark's inference
// normalisation over N*H*W one-pixel planes (opmark's training is NCHW only: the schema rejects it). fp32 and fp16
// must run and verify (in a build with cuDNN); bf16 may be one the library does not take.
TEST_P(BatchnormNhwcCase, VerifiedOnOddShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  struct Shape {
    std::int64_t n, c, h, w;
  };
  std::vector<std::string> impls = {"cudnn"};
  if (mode == "inference") impls.push_back("opmark");
  for (const std::string& impl : impls)
    for (const Shape& s : {Shape{2, 3, 5, 7}, Shape{8, 64, 14, 14}, Shape{3, 17, 31, 1}, Shape{2, 4, 128, 160},
                           Shape{4, 256, 7, 7}})
      test::expect_verified(core::make_case("batchnorm", "fwd", precision,
                                            {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"mode", mode},
                                             {"impl", impl}, {"layout", std::string("NHWC")}}),
                            &bench::make_workload, options, stream,
                            /*unsupported_ok=*/precision == "bf16" || (impl == "cudnn" && !test::kBuiltWithCudnn));
}

INSTANTIATE_TEST_SUITE_P(BothModes, BatchnormNhwcCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"inference", "train"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
