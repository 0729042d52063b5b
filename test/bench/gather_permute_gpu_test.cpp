// The gather and permute families on the GPU: every precision verified exactly against the float64 host reference,
// on vector and odd widths, every permutation offered, tile edges (sizes not multiples of 32); and a planted wrong
// element caught.
#include <gtest/gtest.h>

#include <array>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/case.h"
#include "core/families.h"
#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/gather.h"
#include "kernels/permute.h"

using namespace opmark;

namespace {

class PrecisionCase : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(PrecisionCase, GatherVerified) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  for (const auto& [rows, cols, table] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {1, 1, 1}, {100, 768, 50257}, {64, 4096, 32000}, {33, 7, 5}, {1000, 1001, 300}})
    test::expect_verified(core::make_case("gather", "fwd", GetParam(),
                                          {{"rows", rows}, {"cols", cols}, {"table_rows", table}}),
                          &bench::make_workload, options, ts.stream);
}

TEST_P(PrecisionCase, PermuteVerified) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  const std::vector<std::array<std::int64_t, 4>> shapes = {{2, 33, 12, 64}, {2, 12, 65, 64}, {1, 1, 1, 1},
                                                           {3, 5, 7, 9},   {2, 70, 33, 31}, {4, 32, 64, 128}};
  for (const std::string& perm : core::permute_perms())
    for (const auto& d : shapes)
      test::expect_verified(core::make_case("permute", "fwd", GetParam(),
                                            {{"d0", d[0]}, {"d1", d[1]}, {"d2", d[2]}, {"d3", d[3]}, {"perm", perm}}),
                            &bench::make_workload, options, ts.stream);
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, PrecisionCase, ::testing::Values("fp32", "fp16", "bf16"));

namespace {

// Overwrites out[at] after the launch and compares with the exact reference: exactly that element is wrong.
void expect_planted_caught(const kernels::DeviceBuffer& out, const std::vector<double>& reference, std::size_t at,
                           cudaStream_t s) {
  const float wrong = 1e6f;
  OPMARK_CHECK_CUDA(cudaMemcpyAsync(out.as<float>() + at, &wrong, sizeof wrong, cudaMemcpyHostToDevice, s));
  const kernels::DeviceBuffer ref = bench::upload(reference, s);
  const kernels::CompareResult r =
      kernels::compare_to_reference(out.get(), core::DType::f32, ref.as<double>(), reference.size(), 0.0, s);
  EXPECT_EQ(r.wrong, 1u) << r.summary();
  EXPECT_EQ(r.first_wrong, at);
}

}  // namespace

TEST(GatherPermuteGpu, APlantedWrongElementIsCaught) {
  OPMARK_REQUIRE_GPU();
  test::TestStream ts;
  const cudaStream_t s = ts.stream;
  {
    const std::int64_t rows = 50, cols = 768, table_rows = 1000;
    kernels::DeviceBuffer table(core::DType::f32, table_rows * cols), out(core::DType::f32, rows * cols);
    kernels::fill_random(table.get(), table_rows * cols, core::DType::f32, 7, s);
    std::vector<std::int64_t> idx(rows);
    for (std::int64_t i = 0; i < rows; ++i) idx[i] = (i * 37) % table_rows;
    kernels::DeviceBuffer idx_dev(rows * sizeof(std::int64_t));
    OPMARK_CHECK_CUDA(cudaMemcpy(idx_dev.get(), idx.data(), idx_dev.bytes(), cudaMemcpyHostToDevice));
    kernels::launch_gather(table.get(), idx_dev.as<std::int64_t>(), out.get(), rows, cols, 4, s);
    const auto host = bench::download_as_double(table, core::DType::f32, table_rows * cols, s);
    expect_planted_caught(out, kernels::gather_reference(host, idx, cols), 1234, s);
  }
  for (const std::string& perm : core::permute_perms()) {
    SCOPED_TRACE(perm);
    core::PermuteProblem p;
    p.d[0] = 2, p.d[1] = 33, p.d[2] = 40, p.d[3] = 64, p.perm = perm;
    const core::PermuteView v = core::permute_view(p);
    const std::size_t n = static_cast<std::size_t>(p.elements());
    kernels::DeviceBuffer in(core::DType::f32, n), out(core::DType::f32, n);
    kernels::fill_random(in.get(), n, core::DType::f32, 8, s);
    kernels::launch_permute(v, in.get(), out.get(), 4, s);
    const auto host = bench::download_as_double(in, core::DType::f32, n, s);
    expect_planted_caught(out, kernels::permute_reference(v, host), n / 2 + 5, s);
  }
}
