// GEMM on the GPU: every precision verified against the float64 reference on several shapes, odd sizes,
// transposes and batches included.
#include <gtest/gtest.h>

#include <vector>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "bench/harness/harness.h"
#include "core/case.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

struct Shape {
  std::int64_t m, n, k;
  const char* ta;
  const char* tb;
  std::int64_t batch;
};

const Shape kShapes[] = {
    {64, 48, 80, "N", "N", 1},
    {1760, 16, 1760, "N", "N", 1},     // DeepBench train
    {35, 700, 2048, "T", "N", 1},      // DeepBench inference, odd m
    {123, 77, 61, "N", "T", 1},        // nothing a multiple of anything
    {256, 128, 64, "T", "N", 3},       // strided batch
};

class GemmPrecision : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(GemmPrecision, VerifiedOnSeveralShapes) {
  OPMARK_REQUIRE_GPU();
  const auto& device = *test::test_device();
  const std::string precision = GetParam();
  if (device.compute_capability < core::precision_info(precision).min_compute_capability)
    GTEST_SKIP() << precision << " needs a newer GPU than " << device.name;
  bench::Options options;
  options.candidates = 4;
  cudaStream_t stream;
  OPMARK_CHECK_CUDA(cudaStreamCreate(&stream));
  for (const Shape& s : kShapes) {
    core::Case c = core::make_case("gemm", "fwd", precision,
                                   {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"ta", std::string(s.ta)},
                                    {"tb", std::string(s.tb)}, {"batch", s.batch}});
    test::expect_verified(c, &bench::make_workload, options, stream);
  }
  OPMARK_CHECK_CUDA(cudaStreamDestroy(stream));
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, GemmPrecision,
                         ::testing::Values("fp32", "tf32", "fp16", "bf16", "int8", "fp8"));

// PyTorch's own call (cublasGemmEx or cublasSgemm, their strided-batched forms for a batch) is a candidate of every
// float precision, named as such, and computes the right product in every layout and batch.
TEST(GemmGpu, PyTorchsCallIsACandidateAndVerifies) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  for (const char* precision : {"fp32", "tf32", "fp16", "bf16"})
    for (const Shape& s : kShapes) {
      const core::Case c = core::make_case("gemm", "fwd", precision,
                                           {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"ta", std::string(s.ta)},
                                            {"tb", std::string(s.tb)}, {"batch", s.batch}});
      SCOPED_TRACE(core::make_case_name(c));
      bench::RunContext ctx{ts.stream, *test::test_device(), options, bench::case_seed(1, core::make_case_name(c))};
      auto w = bench::make_workload(c, ctx);
      const int reference = w->reference_candidate();
      ASSERT_GE(reference, 0);
      EXPECT_NE(w->candidate_name(reference).find("PyTorch's call: "), std::string::npos)
          << w->candidate_name(reference);
      w->choose(reference);
      const bench::Outcome o = bench::verify_workload(*w, ts.stream);
      EXPECT_EQ(o.status, bench::Status::ok) << o.reason;
    }
}
