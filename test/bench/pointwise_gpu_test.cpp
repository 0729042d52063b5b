// The pointwise family on the GPU: every op and precision verified against the float64 host reference, on shapes
// that take the vectorised path (cols a multiple of the 16-byte vector) and the scalar one (odd, prime, single
// element), through opmark's kernel and, where cuDNN has the op, through cuDNN.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families.h"
#include "core/case.h"
#include "core/families.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class PointwiseCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(PointwiseCase, VerifiedOnVectorAndOddShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [op, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{64, 1024}, {3, 1001}, {1, 1}, {1, 7919},
                                                                     {33, 24}, {7, 4104}};
  std::vector<std::string> impls = {"opmark"};
  if (core::pointwise_has_cudnn(op)) impls.push_back("cudnn");
  for (const auto& impl : impls)
    for (const auto& [rows, cols] : shapes)
      test::expect_verified(core::make_case("pointwise", "fwd", precision,
                                            {{"op", op}, {"rows", rows}, {"cols", cols}, {"impl", impl}}),
                            &bench::make_pointwise_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(AllOpsAndPrecisions, PointwiseCase,
                         ::testing::Combine(::testing::ValuesIn(core::pointwise_ops()),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
