// The pointwise family on the GPU: every op and precision verified against the float64 host reference, on shapes
// that take the vectorised path (cols a multiple of the 16-byte vector) and the scalar one (odd, prime, single
// element), through opmark's kernel and, where cuDNN has the op, through cuDNN.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "core/families.h"
#include "bench/families/memory_bound.h"
#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/pointwise.h"

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
                            &bench::make_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(AllOpsAndPrecisions, PointwiseCase,
                         ::testing::Combine(::testing::ValuesIn(core::pointwise_ops()),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());

// One output element of scale and masked_fill overwritten after the launch: the comparison reports exactly it.
TEST(PointwiseGpu, APlantedWrongElementIsCaughtInScaleAndMaskedFill) {
  OPMARK_REQUIRE_GPU();
  test::TestStream ts;
  const cudaStream_t s = ts.stream;
  const std::int64_t rows = 33, cols = 1000;
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  for (auto op : {kernels::PointwiseOp::scale, kernels::PointwiseOp::masked_fill}) {
    kernels::DeviceBuffer x(core::DType::f32, n), mask(core::DType::i8, n), out(core::DType::f32, n);
    kernels::fill_random(x.get(), n, core::DType::f32, 5, s);
    kernels::fill_uniform(mask.get(), n, core::DType::i8, 6, 0, 1, s);
    kernels::launch_pointwise(op, core::DType::f32, x.get(), nullptr, nullptr, mask.get(), out.get(), rows, cols, s);
    const float wrong = 1e6f;
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(out.as<float>() + 777, &wrong, sizeof wrong, cudaMemcpyHostToDevice, s));
    const kernels::DeviceBuffer ref = bench::upload(
        kernels::pointwise_reference(op, bench::download_as_double(x, core::DType::f32, n, s), {}, {},
                                     bench::download_as_double(mask, core::DType::i8, n, s), rows, cols),
        s);
    const kernels::CompareResult r =
        kernels::compare_to_reference(out.get(), core::DType::f32, ref.as<double>(), n, 1e-4, s);
    EXPECT_EQ(r.wrong, 1u) << r.summary();
    EXPECT_EQ(r.first_wrong, 777u);
  }
}
