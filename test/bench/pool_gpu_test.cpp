// The pool family on the GPU: max and average, every precision, opmark's kernel and cuDNN, verified against the
// float64 host reference on odd shapes with padding and strides; and NHWC (layout=NHWC) through cuDNN, verified
// against the reference indexing NHWC.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/cuda_check.h"

using namespace opmark;

namespace {

class PoolCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
class PoolNhwcCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

struct PoolShape {
  std::int64_t n, c, h, w, r, pad, stride;
};

// Each shape through each implementation in `layout`, verified; `unsupported_ok` says which may be refused.
void expect_pools_verified(const std::string& mode, const std::string& precision, const std::string& layout,
                           const std::vector<std::string>& impls, const std::vector<PoolShape>& shapes,
                           const std::function<bool(const std::string& impl)>& unsupported_ok) {
  bench::Options options;
  test::TestStream test_stream;
  for (const std::string& impl : impls)
    for (const PoolShape& s : shapes) {
      std::map<std::string, core::FieldValue> fields = {
          {"n", s.n},           {"c", s.c},           {"h", s.h},           {"w", s.w},
          {"r", s.r},           {"s", s.r},           {"pad_h", s.pad},     {"pad_w", s.pad},
          {"stride_h", s.stride}, {"stride_w", s.stride}, {"mode", mode},   {"impl", impl}};
      if (layout != "NCHW") fields["layout"] = layout;  // the name leaves the default out
      test::expect_verified(core::make_case("pool", "fwd", precision, fields), &bench::make_workload, options,
                            test_stream.stream, unsupported_ok(impl));
    }
}

}  // namespace

TEST_P(PoolCase, VerifiedWithPaddingAndStrides) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  expect_pools_verified(mode, precision, "NCHW", {"opmark", "cudnn"},
                        {{2, 3, 15, 17, 3, 1, 2}, {4, 64, 56, 56, 2, 0, 2}, {1, 1, 7, 7, 7, 0, 1}},
                        [](const std::string& impl) { return impl == "cudnn"; });
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
  const bool bf16 = precision == "bf16";
  expect_pools_verified(mode, precision, "NHWC", {"cudnn"},
                        {{2, 3, 15, 17, 3, 1, 2}, {4, 64, 56, 56, 2, 0, 2}, {1, 1, 7, 7, 7, 0, 1},
                         {2, 64, 112, 112, 3, 1, 2}, {3, 5, 9, 8, 2, 1, 1}},
                        [bf16](const std::string&) { return bf16 || !test::kBuiltWithCudnn; });
}

INSTANTIATE_TEST_SUITE_P(BothModes, PoolNhwcCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"max", "avg"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
