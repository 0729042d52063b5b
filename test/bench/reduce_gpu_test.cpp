// The reduce family on the GPU: every op and precision verified against the float64 host reference, on rows
// shorter and longer than a block, a single element, prime lengths, and through cuDNN where cuDNN has the op.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families.h"
#include "core/case.h"
#include "core/families.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class ReduceCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

}  // namespace

TEST_P(ReduceCase, VerifiedOnShortLongAndOddRows) {
  OPMARK_REQUIRE_GPU();
  const auto [op, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{4, 1000}, {1, 1}, {3, 7919}, {64, 4096},
                                                                     {1000, 33}, {2, 8192}, {5, 2048}};
  std::vector<std::string> impls = {"opmark"};
  if (core::reduce_has_cudnn(op)) impls.push_back("cudnn");
  for (const auto& impl : impls)
    for (const auto& [rows, cols] : shapes)
      test::expect_verified(core::make_case("reduce", "fwd", precision,
                                            {{"op", op}, {"rows", rows}, {"cols", cols}, {"impl", impl}}),
                            &bench::make_reduce_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(AllOpsAndPrecisions, ReduceCase,
                         ::testing::Combine(::testing::ValuesIn(core::reduce_ops()),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
