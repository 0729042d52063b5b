// The reduce family on the GPU: every op and precision verified against the float64 host reference on shapes that
// take every path of core::reduce_plan (one row per thread, 8 threads, a warp, the block in registers, shared memory,
// two passes, split rows), odd and prime lengths, a single element, and through cuDNN where cuDNN has the op; and a
// planted wrong element in each new op's output is caught.
#include <gtest/gtest.h>

#include <functional>

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

// One fp32 reduce launch on seeded tensors, each starting `offset` elements into its allocation (1: 4 bytes past a
// 16-byte boundary), with its float64 reference: the normalised rows (or one value per row), then for the residual
// ops the sum, which the launch writes at kernels::reduce_sum_offset after its normalised rows. `change`, where given,
// edits the plan before the launch.
struct ReduceLaunch {
  ReduceLaunch(const char* name, std::int64_t rows, std::int64_t cols, std::size_t offset, cudaStream_t s,
               const std::function<void(core::ReducePlan&)>& change = {})
      : n(static_cast<std::size_t>(rows * cols)),
        outputs(static_cast<std::size_t>(core::reduce_outputs(core::tensor_op_problem(core::make_case(
            "reduce", "fwd", "fp32", {{"op", std::string(name)}, {"rows", rows}, {"cols", cols}}))))),
        adds(core::reduce_adds_residual(name)),
        sum_at(static_cast<std::size_t>(kernels::reduce_sum_offset(rows, cols))),
        x(core::DType::f32, n + offset),
        res(core::DType::f32, n + offset),
        g(core::DType::f32, static_cast<std::size_t>(cols)),
        b(core::DType::f32, static_cast<std::size_t>(cols)),
        out(core::DType::f32, (adds ? sum_at + n : outputs) + offset),
        tensors{x.as<float>() + offset, res.as<float>() + offset, g.get(), b.get(), out.as<float>() + offset,
                nullptr},
        plan(kernels::plan_reduce(name, core::DType::f32, tensors, rows, cols)),
        workspace(kernels::reduce_workspace_bytes(plan, rows)) {
    const std::size_t c = static_cast<std::size_t>(cols);
    kernels::fill_random(x.get(), n + offset, core::DType::f32, 1, s);
    kernels::fill_random(res.get(), n + offset, core::DType::f32, 2, s);
    kernels::fill_uniform(g.get(), c, core::DType::f32, 3, 0.5, 1.5, s);
    kernels::fill_random(b.get(), c, core::DType::f32, 4, s);
    if (change) change(plan);
    tensors.workspace = workspace.get();
    const kernels::ReduceOp op = kernels::reduce_op(name);
    kernels::launch_reduce(op, core::DType::f32, plan, tensors, rows, cols, s);
    const auto download = [&](const kernels::DeviceBuffer& d, std::size_t count, std::size_t from) {
      std::vector<double> v = bench::download_as_double(d, core::DType::f32, count + from, s);
      v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(from));
      return v;
    };
    reference = bench::upload(kernels::reduce_reference(op, download(x, n, offset), download(res, n, offset),
                                                        download(g, c, 0), download(b, c, 0), rows, cols),
                              s);
  }
  float* output() const { return static_cast<float*>(tensors.out); }
  // No element of the output (the residual ops: the normalised rows and the sum after them) off the reference.
  void expect_verified(std::int64_t cols, cudaStream_t s) const {
    const double tolerance = core::depth_tolerance(1e-4, static_cast<double>(cols));
    const double* ref = reference.as<double>();
    const kernels::CompareResult r =
        kernels::compare_to_reference(output(), core::DType::f32, ref, adds ? n : outputs, tolerance, s);
    EXPECT_EQ(r.wrong, 0u) << plan.label << ": " << r.summary();
    if (adds) {  // the sum, at its offset after the normalised rows
      const kernels::CompareResult sum =
          kernels::compare_to_reference(output() + sum_at, core::DType::f32, ref + n, n, tolerance, s);
      EXPECT_EQ(sum.wrong, 0u) << plan.label << ": " << sum.summary();
    }
  }

  std::size_t n, outputs;
  bool adds;
  std::size_t sum_at;
  kernels::DeviceBuffer x, res, g, b, out;
  kernels::ReduceTensors tensors;
  core::ReducePlan plan;
  kernels::DeviceBuffer workspace, reference;
};

}  // namespace

TEST_P(ReduceCase, VerifiedOnShortLongAndOddRows) {
  OPMARK_REQUIRE_GPU();
  const auto [op, precision] = GetParam();
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  // Paths in order: tiles of very short rows, one thread, 8 threads, a warp (small and large cache), the block in
  // registers, shared memory (odd 50257, and 32000 in vectors), rereads (2-byte layer norms over 32001), two passes /
  // split rows (few long rows, 131072 and 262144 columns); clusters (300 rows of 4095, 70 of 131072, 200 of 50257,
  // fp32 140 of 32000).
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {4, 1000}, {1, 1},     {3, 7919},  {64, 4096},  {1000, 33},  {2, 8192},   {5, 2048},   {1000, 1},
      {999, 7},  {513, 31},  {300, 197}, {200, 512},  {40, 4095},  {40, 12288}, {200, 50257}, {140, 32000},
      {3, 50257}, {5, 131072}, {4, 262144}, {2, 262143}, {264, 32001},
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
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {301, 1}, {301, 4}, {300, 7}, {300, 512}, {40, 12288}, {20, 50257}, {3, 131072}, {300, 4095}, {40, 131072},
      {140, 32001}};
  for (const char* name : {"rmsnorm", "log_softmax", "add_layernorm", "add_rmsnorm", "softmax", "layernorm", "sum"})
    for (const auto& [rows, cols] : shapes) {
      SCOPED_TRACE(std::string(name) + " " + std::to_string(rows) + " x " + std::to_string(cols));
      ReduceLaunch launch(name, rows, cols, 0, s);
      const std::size_t n = launch.n, outputs = launch.outputs;
      float* out = launch.output();
      if (launch.adds && launch.sum_at != n) {  // the sum moved next to the normalised rows, as the reference has them
        kernels::DeviceBuffer sum(core::DType::f32, n);
        OPMARK_CHECK_CUDA(
            cudaMemcpyAsync(sum.get(), out + launch.sum_at, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        OPMARK_CHECK_CUDA(cudaMemcpyAsync(out + n, sum.get(), n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        OPMARK_CHECK_CUDA(cudaStreamSynchronize(s));
      }
      const std::size_t at = outputs - 3;
      const float wrong = 1e6f;
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(out + at, &wrong, sizeof wrong, cudaMemcpyHostToDevice, s));
      const kernels::CompareResult r =
          kernels::compare_to_reference(out, core::DType::f32, launch.reference.as<double>(), outputs,
                                        core::depth_tolerance(1e-4, static_cast<double>(cols)), s);
      EXPECT_EQ(r.wrong, 1u) << launch.plan.label << ": " << r.summary();
      EXPECT_EQ(r.first_wrong, at);
    }
}

// The cluster path with every cache and with clusters of 1 to 16 blocks, rows that are whole vectors and rows that are
// not (tensors on and off a 16-byte boundary), and more rows than the grid's clusters (each cluster walks several).
TEST(ReduceGpu, ClustersOfEverySizeVerify) {
  OPMARK_REQUIRE_GPU();
  test::TestStream test_stream;
  const cudaStream_t s = test_stream.stream;
  struct Shape {
    std::int64_t rows, cols;
    int blocks, cache;
    std::size_t offset;
  };
  const std::vector<Shape> shapes = {{300, 4095, 1, 4, 0},  {300, 4095, 3, 2, 1},    {9000, 2049, 1, 4, 0},
                                     {50, 50257, 13, 4, 0}, {50, 50257, 7, 8, 1},    {20, 131072, 16, 8, 0},
                                     {20, 65536, 8, 8, 0},  {600, 4096, 16, 2, 0}};
  for (const char* name : {"softmax", "log_softmax", "layernorm", "rmsnorm", "add_layernorm", "add_rmsnorm"})
    for (const Shape& shape : shapes) {
      SCOPED_TRACE(std::string(name) + " " + std::to_string(shape.rows) + " x " + std::to_string(shape.cols) + ", " +
                   std::to_string(shape.blocks) + " blocks, " + std::to_string(shape.cache) + " a thread");
      const ReduceLaunch launch(name, shape.rows, shape.cols, shape.offset, s, [&](core::ReducePlan& plan) {
        plan.path = core::ReducePath::cluster;
        plan.cluster = shape.blocks;
        plan.cache = shape.cache;
        plan.passes = 1;
      });
      launch.expect_verified(shape.cols, s);
    }
  // 16 vectors a thread lost everywhere and is not compiled: a plan asking for it is refused, not run wrong.
  try {
    ReduceLaunch("layernorm", 20, 65536, 0, s, [](core::ReducePlan& plan) {
      plan.path = core::ReducePath::cluster;
      plan.cluster = 4;
      plan.cache = 16;
      plan.passes = 1;
    });
    ADD_FAILURE() << "a cluster plan of 16 vectors a thread ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 8 vectors a thread, not 16"), std::string::npos) << e.what();
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
      const ReduceLaunch launch(name, rows, cols, 1, s);
      EXPECT_FALSE(launch.plan.vectorised) << launch.plan.label;
      launch.expect_verified(cols, s);
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
