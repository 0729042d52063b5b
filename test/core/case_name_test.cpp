#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"

using namespace opmark::core;

namespace {

// What parse_case_name says about `name`: its error, or "no error".
std::string parse_message(const std::string& name) {
  try {
    parse_case_name(name);
  } catch (const opmark::Error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace

TEST(CaseName, EveryFieldInSchemaOrderDefaultsIncluded) {
  Case c = make_case("gemm", "fwd", "fp16", {{"m", std::int64_t{1760}}, {"n", std::int64_t{16}}, {"k", std::int64_t{1760}}});
  EXPECT_EQ(make_case_name(c), "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1");
}

TEST(CaseName, RoundTrips) {
  for (const std::string name : {"gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1",
                                 "gemm/fwd/int8/m=35/n=8457/k=2560/ta=T/tb=N/batch=1",
                                 "gemm/fwd/bf16/m=512/n=512/k=64/ta=T/tb=N/batch=384"}) {
    Case c = parse_case_name(name);
    EXPECT_EQ(make_case_name(c), name);
  }
  Case c = parse_case_name("gemm/fwd/tf32/m=7/n=8/k=9/ta=T/tb=T/batch=2");
  EXPECT_EQ(c.int_field("m"), 7);
  EXPECT_EQ(c.int_field("batch"), 2);
  EXPECT_EQ(c.str_field("tb"), "T");
  EXPECT_EQ(c.precision, "tf32");
}

TEST(CaseName, ParseErrorsNameThePart) {
  EXPECT_NE(parse_message("gemm").find("expected <family>/<direction>/<precision>"), std::string::npos);
  EXPECT_NE(parse_message("conv2/fwd/fp16/m=1").find("unknown family 'conv2'"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=1/n=2/k=3").find("has 9 parts"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/n=1/m=2/k=3/ta=N/tb=N/batch=1").find("should be 'm=...'"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=x/n=2/k=3/ta=N/tb=N/batch=1").find("expected an integer"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=0/n=2/k=3/ta=N/tb=N/batch=1").find("positive integer"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=1/n=2/k=3/ta=X/tb=N/batch=1").find("expected one of N, T"), std::string::npos);
  EXPECT_NE(parse_message("gemm/bwd/fp16/m=1/n=2/k=3/ta=N/tb=N/batch=1").find("unknown direction"), std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp64/m=1/n=2/k=3/ta=N/tb=N/batch=1").find("precision 'fp64'"), std::string::npos);
}

TEST(CaseName, MakeCaseRejectsUnknownAndMissingFields) {
  EXPECT_THROW(make_case("gemm", "fwd", "fp16", {{"m", std::int64_t{1}}, {"n", std::int64_t{1}}}), opmark::Error);
  EXPECT_THROW(make_case("gemm", "fwd", "fp16",
                         {{"m", std::int64_t{1}}, {"n", std::int64_t{1}}, {"k", std::int64_t{1}}, {"q", std::int64_t{1}}}),
               opmark::Error);
}

// Issue 21: the aggregator reads names from results files; a value past a field's range is an error naming the
// field (it looped about 2^63 times counting an RNN's work), and an integer has one spelling.
TEST(CaseName, OutOfRangeValuesAreRejectedNamingTheField) {
  const std::string rnn = "rnn/fwd/fp16/cell=lstm/hidden=512/batch=16/steps=50/input=512/layers=9223372036854775807/"
                          "bidir=no/input_mode=skip";
  EXPECT_EQ(parse_message(rnn), "case name '" + rnn +
                              "': rnn: field 'layers': expected an integer from 1 to 1024, got 9223372036854775807");
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=4294967296/n=2/k=3/ta=N/tb=N/batch=1")
                .find("field 'm': expected an integer from 1 to 2147483648, got 4294967296"),
            std::string::npos);
  EXPECT_NE(parse_message("gemm/fwd/fp16/m=99999999999999999999/n=2/k=3/ta=N/tb=N/batch=1")
                .find("field 'm': expected an integer, got '99999999999999999999'"),
            std::string::npos);
  EXPECT_NE(parse_message("conv/fwd/fp16/n=1/c=8/d=1/h=8/w=8/k=8/t=1/r=1/s=1/pad_d=0/pad_h=4611686018427387904/pad_w=0/"
                    "stride_d=1/stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NCHW")
                .find("field 'pad_h': expected an integer from 0 to 65536"),
            std::string::npos);
  EXPECT_NE(parse_message("spmm/fwd/fp16/m=64/n=16/k=64/sparsity=0.50000000001/format=csr")
                .find("field 'sparsity': '0.50000000001' and 0.5 would have the same case name"),
            std::string::npos);
  // Only make_case_name's spelling: another would be a second name for the same case.
  for (const char* m : {"+5", "05", " 5", "5 ", "-0"})
    EXPECT_NE(parse_message(std::string("gemm/fwd/fp16/m=") + m + "/n=2/k=3/ta=N/tb=N/batch=1").find("expected an integer"),
              std::string::npos)
        << m;
}

TEST(CaseName, ShortNameDropsDefaultFields) {
  const Case conv = parse_case_name("conv/fwd/fp16/n=2/c=8/d=1/h=16/w=16/k=8/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/"
                                    "stride_d=1/stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NCHW");
  const std::string short_name = short_case_name(conv);
  EXPECT_EQ(short_name.find("d=1/"), std::string::npos) << short_name;
  EXPECT_EQ(short_name.find("groups"), std::string::npos) << short_name;
  EXPECT_EQ(short_name.find("layout"), std::string::npos) << short_name;
  EXPECT_NE(short_name.find("/n=2/c=8/h=16/w=16/k=8/r=3/s=3/"), std::string::npos) << short_name;
  // A field away from its default stays.
  const Case grouped = parse_case_name("conv/fwd/fp16/n=2/c=8/d=1/h=16/w=16/k=8/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/"
                                       "stride_d=1/stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=2/layout=NCHW");
  EXPECT_NE(short_case_name(grouped).find("/groups=2"), std::string::npos);
  // Required fields always stay; gemm's defaults (ta=N, tb=N, batch=1) go.
  EXPECT_EQ(short_case_name(parse_case_name("gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1")),
            "gemm/fwd/fp16/m=1760/n=16/k=1760");
}

// A field a family gained after its results were published (batchnorm's and pool's layout) is named only away from
// its default, so those results keep their names; the parts around it are still read in schema order.
TEST(CaseName, AFieldAddedLaterIsNamedOnlyAwayFromItsDefault) {
  const std::string bn = "batchnorm/fwd/fp16/n=1/c=2/h=3/w=4/mode=inference/impl=opmark";
  EXPECT_EQ(make_case_name(parse_case_name(bn)), bn);
  EXPECT_EQ(make_case_name(parse_case_name(bn + "/layout=NHWC")), bn + "/layout=NHWC");
  EXPECT_NE(parse_message("batchnorm/fwd/fp16/n=1/c=2").find("a batchnorm name has 9 to 10 parts"), std::string::npos);
  EXPECT_NE(parse_message("batchnorm/fwd/fp16/n=1/c=2/h=3/w=4/mode=inference/layout=NHWC/impl=opmark")
                .find("part 9 should be 'impl=...', got 'layout=NHWC'"),
            std::string::npos);
  EXPECT_NE(parse_message(bn + "/colour=red").find("part 10 ('colour=red') is not the next batchnorm field"),
            std::string::npos);
  EXPECT_NE(parse_message(bn + "/layout=NCHW").find("is the default, which batchnorm names leave out"), std::string::npos);
  EXPECT_NE(parse_message(bn + "/layout=CHWN").find("expected one of NCHW, NHWC"), std::string::npos);
  // Conv had its layout from the start: named at its default as before.
  EXPECT_NE(make_case_name(make_case("conv", "fwd", "fp16",
                                     {{"n", std::int64_t{1}}, {"c", std::int64_t{8}}, {"h", std::int64_t{8}},
                                      {"w", std::int64_t{8}}, {"k", std::int64_t{8}}, {"r", std::int64_t{1}},
                                      {"s", std::int64_t{1}}}))
                .find("/layout=NCHW"),
            std::string::npos);
  // The only such fields: every other field of every family is in every name.
  std::vector<std::string> later;
  for (const auto& info : families())
    for (const auto& field : info.schema.fields)
      if (!field.named_at_default) later.push_back(info.schema.family + "." + field.name);
  EXPECT_EQ(later, (std::vector<std::string>{"batchnorm.layout", "pool.layout"}));
}
