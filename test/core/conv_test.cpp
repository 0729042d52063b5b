#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"

using namespace opmark::core;

namespace {

Case conv(const std::string& direction, const std::string& precision, std::map<std::string, FieldValue> f) {
  return make_case("conv", direction, precision, f);
}

std::map<std::string, FieldValue> resnet_conv1() {
  return {{"n", std::int64_t{32}}, {"c", std::int64_t{3}},       {"h", std::int64_t{224}},
          {"w", std::int64_t{224}}, {"k", std::int64_t{64}},     {"r", std::int64_t{7}},
          {"s", std::int64_t{7}},   {"pad_h", std::int64_t{3}}, {"pad_w", std::int64_t{3}},
          {"stride_h", std::int64_t{2}}, {"stride_w", std::int64_t{2}}};
}

}  // namespace

TEST(Conv, NameHasEveryFieldInSchemaOrder) {
  EXPECT_EQ(make_case_name(conv("fwd", "fp16", resnet_conv1())),
            "conv/fwd/fp16/n=32/c=3/d=1/h=224/w=224/k=64/t=1/r=7/s=7/pad_d=0/pad_h=3/pad_w=3/stride_d=1/stride_h=2/"
            "stride_w=2/dil_h=1/dil_w=1/groups=1/layout=NCHW");
  const std::string name = make_case_name(conv("bwd_filter", "bf16", resnet_conv1()));
  EXPECT_EQ(make_case_name(parse_case_name(name)), name);
}

TEST(Conv, OutputSize) {
  ConvProblem p = conv_problem(conv("fwd", "fp32", resnet_conv1()));
  EXPECT_EQ(p.p, 112);  // (224 + 6 - 6 - 1) / 2 + 1
  EXPECT_EQ(p.q, 112);
  EXPECT_EQ(p.o, 1);
  auto dilated = resnet_conv1();
  dilated["c"] = std::int64_t{512};
  dilated["h"] = dilated["w"] = std::int64_t{33};
  dilated["r"] = dilated["s"] = std::int64_t{3};
  dilated["pad_h"] = dilated["pad_w"] = std::int64_t{6};
  dilated["stride_h"] = dilated["stride_w"] = std::int64_t{1};
  dilated["dil_h"] = dilated["dil_w"] = std::int64_t{6};
  ConvProblem d = conv_problem(conv("fwd", "fp32", dilated));
  EXPECT_EQ(d.p, 33);  // "same" padding: pad = dilation
  // DeepBench's first DeepSpeech row: 700x161 input, 20x5 filter, stride 2, no padding.
  ConvProblem ds = conv_problem(conv("fwd", "fp32", {{"n", std::int64_t{4}}, {"c", std::int64_t{1}},
                                                     {"h", std::int64_t{161}}, {"w", std::int64_t{700}},
                                                     {"k", std::int64_t{32}}, {"r", std::int64_t{5}},
                                                     {"s", std::int64_t{20}}, {"stride_h", std::int64_t{2}},
                                                     {"stride_w", std::int64_t{2}}}));
  EXPECT_EQ(ds.p, 79);
  EXPECT_EQ(ds.q, 341);
}

TEST(Conv, FlopsAreTwoNKPQCRSPerDirection) {
  for (const std::string dir : {"fwd", "bwd_data", "bwd_filter"}) {
    Work w = work_of(conv(dir, "fp16", resnet_conv1()));
    EXPECT_DOUBLE_EQ(w.flops, 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7) << dir;
  }
  auto grouped = resnet_conv1();
  grouped["c"] = grouped["k"] = std::int64_t{128};
  grouped["groups"] = std::int64_t{32};
  grouped["r"] = grouped["s"] = std::int64_t{3};
  grouped["pad_h"] = grouped["pad_w"] = std::int64_t{1};
  grouped["stride_h"] = grouped["stride_w"] = std::int64_t{1};
  grouped["h"] = grouped["w"] = std::int64_t{56};
  EXPECT_DOUBLE_EQ(work_of(conv("fwd", "fp16", grouped)).flops, 2.0 * 32 * 128 * 56 * 56 * (128 / 32) * 3 * 3);
  // 3D: O x P x Q outputs, T x R x S filters
  Work v = work_of(conv("fwd", "fp32", {{"n", std::int64_t{2}}, {"c", std::int64_t{3}}, {"d", std::int64_t{16}},
                                        {"h", std::int64_t{112}}, {"w", std::int64_t{112}}, {"k", std::int64_t{64}},
                                        {"t", std::int64_t{3}}, {"r", std::int64_t{3}}, {"s", std::int64_t{3}},
                                        {"pad_d", std::int64_t{1}}, {"pad_h", std::int64_t{1}},
                                        {"pad_w", std::int64_t{1}}}));
  EXPECT_DOUBLE_EQ(v.flops, 2.0 * 2 * 64 * 16 * 112 * 112 * 3 * 27);
}

TEST(Conv, BytesByDirection) {
  const double x = 32.0 * 3 * 224 * 224, f = 64.0 * 3 * 7 * 7, y = 32.0 * 64 * 112 * 112;
  Work fwd = work_of(conv("fwd", "fp16", resnet_conv1()));
  EXPECT_DOUBLE_EQ(fwd.bytes_read, (x + f) * 2);
  EXPECT_DOUBLE_EQ(fwd.bytes_written, y * 2);
  Work bd = work_of(conv("bwd_data", "fp32", resnet_conv1()));
  EXPECT_DOUBLE_EQ(bd.bytes_read, (y + f) * 4);
  EXPECT_DOUBLE_EQ(bd.bytes_written, x * 4);
  Work bf = work_of(conv("bwd_filter", "bf16", resnet_conv1()));
  EXPECT_DOUBLE_EQ(bf.bytes_read, (x + y) * 2);
  EXPECT_DOUBLE_EQ(bf.bytes_written, f * 2);
}

TEST(Conv, Int8PadsChannelsAndSpatialSizesToFour) {
  ConvProblem p = conv_problem(conv("fwd", "int8", resnet_conv1()));
  EXPECT_EQ(p.run_c, 4);
  EXPECT_EQ(p.run_h, 224);
  EXPECT_TRUE(p.is_padded());
  // Useful FLOPs stay the table's problem.
  EXPECT_DOUBLE_EQ(work_of(conv("fwd", "int8", resnet_conv1())).flops, 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7);
  EXPECT_FALSE(conv_problem(conv("fwd", "fp16", resnet_conv1())).is_padded());
}

TEST(Conv, ChecksAcrossFields) {
  auto bad_groups = resnet_conv1();
  bad_groups["groups"] = std::int64_t{2};  // does not divide c = 3
  EXPECT_THROW(conv("fwd", "fp32", bad_groups), opmark::Error);
  auto empty = resnet_conv1();
  empty["h"] = std::int64_t{2};
  empty["pad_h"] = std::int64_t{0};
  EXPECT_THROW(conv("fwd", "fp32", empty), opmark::Error);
  EXPECT_THROW(conv("bwd_data", "int8", resnet_conv1()), opmark::Error);
  EXPECT_NO_THROW(conv("fwd", "int8", resnet_conv1()));
}
