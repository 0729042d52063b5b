// The reduce family on the GPU: every op and precision verified against the float64 host reference on shapes that
// take every path of core::reduce_plan (one row per thread, 8 threads, a warp, the block in registers, shared memory,
// two passes, split rows), odd and prime lengths, a single element, and through cuDNN where cuDNN has the op; and a
// planted wrong element in each new op's output is caught.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/reduce.h"

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
  // Paths in order: tiles of very short rows, one thread, 8 threads, a warp (small and large cache), the block in registers, shared memory
  // (odd 50257, and 32000 in vectors), two passes / split rows (few long rows, 131072 and 262144 columns).
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {4, 1000}, {1, 1},     {3, 7919},  {64, 4096},  {1000, 33},  {2, 8192},   {5, 2048},   {1000, 1},
      {999, 7},  {513, 31},  {300, 197}, {200, 512},  {40, 4095},  {40, 12288}, {200, 50257}, {140, 32000},
      {3, 50257}, {5, 131072}, {4, 262144}, {2, 262143},
      // Tiles: many, the last one partial (13 columns: 630 fp16 rows a tile), even short rows (16 fp32 columns: 8
      // threads a row; 6 and 12: a thread a row), and sum/mean/max's tiled rows; a warp with a cache of 8 (97, 256).
      // Staged tiles (asynchronous copies): 31, 33, 97 and 197 columns, sums over 13 and 97, the last tile partial.
      {5000, 13}, {1000, 16}, {999, 3}, {1001, 6}, {777, 12}, {5000, 97}, {3000, 256},
      // Packed rows (1, 2, 4 columns, and 8 of 2-byte elements; fp32's 8 are two vectors, a thread's registers),
      // with rows past the last whole vector.
      {1003, 1}, {700, 2}, {999, 4}, {1001, 8}};
  std::vector<std::string> impls = {"opmark"};
  if (core::reduce_has_cudnn(op)) impls.push_back("cudnn");
  for (const auto& impl : impls)
    for (const auto& [rows, cols] : shapes)
      test::expect_verified(core::make_case("reduce", "fwd", precision,
                                            {{"op", op}, {"rows", rows}, {"cols", cols}, {"impl", impl}}),
                            &bench::make_workload, options, stream, /*unsupported_ok=*/impl == "cudnn");
}

INSTANTIATE_TEST_SUITE_P(AllOpsAndPrecisions, ReduceCase,
                         ::testing::Combine(::testing::ValuesIn(core::reduce_ops()),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());

// One output element overwritten after the launch: the comparison with the reference reports exactly it. For add_*,
// the planted element is in the sum (the second half of the output), so that half is checked too.
TEST(ReduceGpu, APlantedWrongElementIsCaughtOnEveryPath) {
  OPMARK_REQUIRE_GPU();
  test::TestStream test_stream;
  const cudaStream_t s = test_stream.stream;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{301, 1},    {301, 4},   {300, 7},  {300, 512},
                                                                     {40, 12288}, {20, 50257}, {3, 131072}};
  for (const char* name : {"rmsnorm", "log_softmax", "add_layernorm", "add_rmsnorm", "softmax", "layernorm", "sum"})
    for (const auto& [rows, cols] : shapes) {
      SCOPED_TRACE(std::string(name) + " " + std::to_string(rows) + " x " + std::to_string(cols));
      const kernels::ReduceOp op = kernels::reduce_op(name);
      const std::size_t n = static_cast<std::size_t>(rows * cols), c = static_cast<std::size_t>(cols);
      const std::size_t outputs = static_cast<std::size_t>(core::reduce_outputs(
          core::tensor_op_problem(core::make_case("reduce", "fwd", "fp32",
                                                  {{"op", std::string(name)}, {"rows", rows}, {"cols", cols}}))));
      // The add ops write their sum at an aligned offset after the normalised rows (kernels::reduce_sum_offset).
      const bool adds = core::reduce_adds_residual(name);
      const std::size_t sum_at = static_cast<std::size_t>(kernels::reduce_sum_offset(rows, cols));
      kernels::DeviceBuffer x(core::DType::f32, n), res(core::DType::f32, n), g(core::DType::f32, c),
          b(core::DType::f32, c), out(core::DType::f32, adds ? sum_at + n : outputs);
      kernels::fill_random(x.get(), n, core::DType::f32, 1, s);
      kernels::fill_random(res.get(), n, core::DType::f32, 2, s);
      kernels::fill_uniform(g.get(), c, core::DType::f32, 3, 0.5, 1.5, s);
      kernels::fill_random(b.get(), c, core::DType::f32, 4, s);
      kernels::ReduceTensors t{x.get(), res.get(), g.get(), b.get(), out.get(), nullptr};
      const core::ReducePlan plan = kernels::plan_reduce(name, core::DType::f32, t, rows, cols);
      kernels::DeviceBuffer workspace(kernels::reduce_workspace_bytes(plan, rows));
      t.workspace = workspace.get();
      kernels::launch_reduce(op, core::DType::f32, plan, t, rows, cols, s);
      if (adds && sum_at != n) {  // the sum moved next to the normalised rows, as the reference has them
        kernels::DeviceBuffer sum(core::DType::f32, n);
        OPMARK_CHECK_CUDA(cudaMemcpyAsync(sum.get(), out.as<float>() + sum_at, n * sizeof(float),
                                          cudaMemcpyDeviceToDevice, s));
        OPMARK_CHECK_CUDA(cudaMemcpyAsync(out.as<float>() + n, sum.get(), n * sizeof(float),
                                          cudaMemcpyDeviceToDevice, s));
        OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
      }
      const std::size_t at = outputs - 3;
      const float wrong = 1e6f;
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(out.as<float>() + at, &wrong, sizeof wrong, cudaMemcpyHostToDevice, s));
      const auto h = [&](const kernels::DeviceBuffer& d, std::size_t count) {
        return bench::download_as_double(d, core::DType::f32, count, s);
      };
      const kernels::DeviceBuffer ref =
          bench::upload(kernels::reduce_reference(op, h(x, n), h(res, n), h(g, c), h(b, c), rows, cols), s);
      const kernels::CompareResult r =
          kernels::compare_to_reference(out.get(), core::DType::f32, ref.as<double>(), outputs,
                                        core::depth_tolerance(1e-4, static_cast<double>(cols)), s);
      EXPECT_EQ(r.wrong, 1u) << plan.label << ": " << r.summary();
      EXPECT_EQ(r.first_wrong, at);
    }
}

// Tensors a few bytes off a 16-byte boundary (a slice of a larger tensor): short rows, which would be packed or
// tiled as 16-byte vectors, are read element by element instead, and every path still verifies. Tensors at
// different distances from a boundary are refused with a clear error.
TEST(ReduceGpu, TensorsOffA16ByteBoundaryVerify) {
  OPMARK_REQUIRE_GPU();
  test::TestStream test_stream;
  const cudaStream_t s = test_stream.stream;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1003, 1}, {700, 2}, {999, 4}, {999, 7}, {1001, 8}, {500, 16}, {300, 97}, {64, 4096}, {140, 32000}, {3, 131072}};
  for (const char* name : {"softmax", "layernorm", "add_rmsnorm", "sum", "max"})
    for (const auto& [rows, cols] : shapes) {
      SCOPED_TRACE(std::string(name) + " " + std::to_string(rows) + " x " + std::to_string(cols));
      const kernels::ReduceOp op = kernels::reduce_op(name);
      const std::size_t n = static_cast<std::size_t>(rows * cols), c = static_cast<std::size_t>(cols);
      const std::size_t outputs = static_cast<std::size_t>(core::reduce_outputs(
          core::tensor_op_problem(core::make_case("reduce", "fwd", "fp32",
                                                  {{"op", std::string(name)}, {"rows", rows}, {"cols", cols}}))));
      const bool adds = core::reduce_adds_residual(name);
      const std::size_t sum_at = static_cast<std::size_t>(kernels::reduce_sum_offset(rows, cols));
      // One element more than each tensor needs: the tensors start at element 1, 4 bytes past the boundary.
      kernels::DeviceBuffer x(core::DType::f32, n + 1), res(core::DType::f32, n + 1), g(core::DType::f32, c),
          b(core::DType::f32, c), out(core::DType::f32, (adds ? sum_at + n : outputs) + 1);
      kernels::fill_random(x.get(), n + 1, core::DType::f32, 1, s);
      kernels::fill_random(res.get(), n + 1, core::DType::f32, 2, s);
      kernels::fill_uniform(g.get(), c, core::DType::f32, 3, 0.5, 1.5, s);
      kernels::fill_random(b.get(), c, core::DType::f32, 4, s);
      float* out1 = out.as<float>() + 1;
      kernels::ReduceTensors t{x.as<float>() + 1, res.as<float>() + 1, g.get(), b.get(), out1, nullptr};
      const core::ReducePlan plan = kernels::plan_reduce(name, core::DType::f32, t, rows, cols);
      EXPECT_FALSE(plan.vectorised) << plan.label;
      kernels::DeviceBuffer workspace(kernels::reduce_workspace_bytes(plan, rows));
      t.workspace = workspace.get();
      kernels::launch_reduce(op, core::DType::f32, plan, t, rows, cols, s);
      const auto from_one = [&](const kernels::DeviceBuffer& d) {
        std::vector<double> v = bench::download_as_double(d, core::DType::f32, n + 1, s);
        v.erase(v.begin());
        return v;
      };
      const auto h = [&](const kernels::DeviceBuffer& d, std::size_t count) {
        return bench::download_as_double(d, core::DType::f32, count, s);
      };
      const kernels::DeviceBuffer ref =
          bench::upload(kernels::reduce_reference(op, from_one(x), from_one(res), h(g, c), h(b, c), rows, cols), s);
      const double tolerance = core::depth_tolerance(1e-4, static_cast<double>(cols));
      const std::size_t normalised = adds ? n : outputs;
      const kernels::CompareResult r =
          kernels::compare_to_reference(out1, core::DType::f32, ref.as<double>(), normalised, tolerance, s);
      EXPECT_EQ(r.wrong, 0u) << plan.label << ": " << r.summary();
      if (adds) {  // the sum, at its offset after the normalised rows
        const kernels::CompareResult sum =
            kernels::compare_to_reference(out1 + sum_at, core::DType::f32, ref.as<double>() + n, n, tolerance, s);
        EXPECT_EQ(sum.wrong, 0u) << plan.label << ": " << sum.summary();
      }
    }
  // x 4 bytes past a boundary, out on one: refused.
  kernels::DeviceBuffer x(core::DType::f32, 1025), out(core::DType::f32, 1024);
  const kernels::ReduceTensors mixed{x.as<float>() + 1, nullptr, nullptr, nullptr, out.get(), nullptr};
  try {
    kernels::plan_reduce("softmax", core::DType::f32, mixed, 8, 128);
    ADD_FAILURE() << "tensors at different offsets were accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("equally far from a 16-byte boundary"), std::string::npos) << e.what();
  }
}
