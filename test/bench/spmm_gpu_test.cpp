// The spmm family on the GPU: SpMM and SpMV verified against a float64 dense product in every precision, on small
// shapes with odd sizes, and the dense comparison timed through the GEMM family.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class SpmmCase : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(SpmmCase, VerifiedAgainstTheDenseProduct) {
  OPMARK_REQUIRE_GPU();
  const std::string precision = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  struct Shape {
    std::int64_t m, n, k;
    const char* sparsity;
  };
  for (const Shape& s : {Shape{128, 64, 256, "0.9"}, Shape{77, 1, 301, "0.95"}, Shape{200, 33, 100, "0.5"},
                         Shape{64, 8, 512, "0.99"}})
    test::expect_verified(core::make_case("spmm", "fwd", precision,
                                          {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"sparsity", std::string(s.sparsity)}}),
                          &bench::make_workload, options, stream, /*unsupported_ok=*/precision != "fp32");
}

TEST_P(SpmmCase, BlockedEllVerifiedAgainstTheDenseProduct) {
  OPMARK_REQUIRE_GPU();
  const std::string precision = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  // Blocks of 32 (256 x 512), of 4 (100 x 300, n = 1 through SpMM) and one block per row.
  struct Shape {
    std::int64_t m, n, k;
    const char* sparsity;
  };
  for (const Shape& s : {Shape{256, 64, 512, "0.75"}, Shape{100, 1, 300, "0.9"}, Shape{64, 40, 128, "0.99"}})
    test::expect_verified(core::make_case("spmm", "fwd", precision,
                                          {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"sparsity", std::string(s.sparsity)},
                                           {"format", std::string("bell")}}),
                          &bench::make_workload, options, test_stream.stream, /*unsupported_ok=*/true);
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, SpmmCase, ::testing::Values("fp32", "fp16", "bf16"));
