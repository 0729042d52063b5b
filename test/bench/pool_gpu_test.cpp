// The pool family on the GPU: max and average, every precision, opmark's kernel and cuDNN, verified against the
// float64 host reference on odd shapes with padding and strides; and NHWC (layout=NHWC) through cuDNN, verified
// against the reference indexing NHWC.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class PoolCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
class PoolNhwcCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(PoolCase, VerifiedWithPaddingAndStrides) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  struct Shape {
    std::int64_t n, c, h, w, r, pad, stride;
  };
  for (const std::string impl : {"opmark", "cudnn"})
    for (const Shape& s : {Shape{2, 3, 15, 17, 3, 1, 2}, Shape{4, 64, 56, 56, 2, 0, 2}, Shape{1, 1, 7, 7, 7, 0, 1}})
      test::expect_verified(core::make_case("pool", "fwd", precision,
                                            {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"r", s.r}, {"s", s.r},
                                             {"pad_h", s.pad}, {"pad_w", s.pad}, {"stride_h", s.stride},
                                             {"stride_w", s.stride}, {"mode", mode}, {"impl", impl}}),
                            &bench::make_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(BothModesAllPrecisions, PoolCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"max", "avg"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());

// NHWC runs cudnnPoolingForward with NHWC descriptors (opmark's kernel is NCHW only: the schema rejects it). fp32 and
// fp16 must run and verify (in a build with cuDNN); bf16 may be one the library does not take. ResNet-50's stem
// pool is among the shapes.
TEST_P(PoolNhwcCase, VerifiedWithPaddingAndStrides) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  struct Shape {
    std::int64_t n, c, h, w, r, pad, stride;
  };
  for (const Shape& s : {Shape{2, 3, 15, 17, 3, 1, 2}, Shape{4, 64, 56, 56, 2, 0, 2}, Shape{1, 1, 7, 7, 7, 0, 1},
                         Shape{2, 64, 112, 112, 3, 1, 2}, Shape{3, 5, 9, 8, 2, 1, 1}})
    test::expect_verified(core::make_case("pool", "fwd", precision,
                                          {{"n", s.n}, {"c", s.c}, {"h", s.h}, {"w", s.w}, {"r", s.r}, {"s", s.r},
                                           {"pad_h", s.pad}, {"pad_w", s.pad}, {"stride_h", s.stride},
                                           {"stride_w", s.stride}, {"mode", mode}, {"impl", std::string("cudnn")},
                                           {"layout", std::string("NHWC")}}),
                          &bench::make_workload, options, stream,
                          /*unsupported_ok=*/precision == "bf16" || !test::kBuiltWithCudnn);
}

INSTANTIATE_TEST_SUITE_P(BothModes, PoolNhwcCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"max", "avg"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
