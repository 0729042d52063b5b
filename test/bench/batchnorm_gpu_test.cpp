// The batchnorm family on the GPU: inference and training forward, every precision, opmark's kernels and cuDNN,
// verified against the float64 host reference on shapes with odd sizes; and NHWC (layout=NHWC): cuDNN in both modes,
// opmark's inference path, verified against the same reference over the NHWC view.
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

class BatchnormCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};
class BatchnormNhwcCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

struct BatchnormShape {
  std::int64_t n, c, h, w;
};

// Each shape through each implementation in `layout`, verified; `unsupported_ok` says which may be refused.
void expect_batchnorms_verified(const std::string& mode, const std::string& precision, const std::string& layout,
                                const std::vector<std::string>& impls, const std::vector<BatchnormShape>& shapes,
                                const std::function<bool(const std::string& impl)>& unsupported_ok) {
  bench::Options options;
  test::TestStream test_stream;
  for (const std::string& impl : impls)
    for (const BatchnormShape& s : shapes) {
      std::map<std::string, core::FieldValue> fields = {{"n", s.n}, {"c", s.c},       {"h", s.h},
                                                        {"w", s.w}, {"mode", mode}, {"impl", impl}};
      if (layout != "NCHW") fields["layout"] = layout;  // the name leaves the default out
      test::expect_verified(core::make_case("batchnorm", "fwd", precision, fields), &bench::make_workload, options,
                            test_stream.stream, unsupported_ok(impl));
    }
}

}  // namespace

TEST_P(BatchnormCase, VerifiedOnOddShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  expect_batchnorms_verified(mode, precision, "NCHW", {"opmark", "cudnn"},
                             {{2, 3, 5, 7}, {8, 64, 14, 14}, {1, 1, 1, 1}, {3, 17, 31, 1}, {2, 4, 128, 160}},
                             [](const std::string& impl) { return impl == "cudnn"; });
}

INSTANTIATE_TEST_SUITE_P(BothModesAllPrecisions, BatchnormCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"inference", "train"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());

// NHWC: cuDNN's legacy batch norm with NHWC descriptors (training and inference), and opmark's inference
// normalisation over N*H*W one-pixel planes (opmark's training is NCHW only: the schema rejects it). fp32 and fp16
// must run and verify (in a build with cuDNN); bf16 may be one the library does not take.
TEST_P(BatchnormNhwcCase, VerifiedOnOddShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [mode, precision] = GetParam();
  std::vector<std::string> impls = {"cudnn"};
  if (mode == "inference") impls.push_back("opmark");
  const bool bf16 = precision == "bf16";
  expect_batchnorms_verified(mode, precision, "NHWC", impls,
                             {{2, 3, 5, 7}, {8, 64, 14, 14}, {3, 17, 31, 1}, {2, 4, 128, 160}, {4, 256, 7, 7}},
                             [bf16](const std::string& impl) {
                               return bf16 || (impl == "cudnn" && !test::kBuiltWithCudnn);
                             });
}

INSTANTIATE_TEST_SUITE_P(BothModes, BatchnormNhwcCase,
                         ::testing::Combine(::testing::ValuesIn(std::vector<std::string>{"inference", "train"}),
                                            ::testing::ValuesIn(std::vector<std::string>{"fp32", "fp16", "bf16"})),
                         test::DirectionPrecisionName());
