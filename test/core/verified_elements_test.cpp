// core::verified_elements: the count check holds a verification's "all N elements" to, for the families that compare
// their whole output (the committed H200 bundle's counts), and none for those that compare a sample or several outputs.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/verified_elements.h"

using namespace opmark::core;

TEST(VerifiedElements, TheWholeOutputOfTheFamiliesThatCompareIt) {
  // The committed H200 bundle's verifications of these cases.
  EXPECT_EQ(verified_elements(parse_case_name("gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1")), 28160);
  EXPECT_EQ(verified_elements(parse_case_name("gemm/fwd/fp16/m=64/n=32/k=16/ta=N/tb=N/batch=3")), 6144);
  EXPECT_EQ(verified_elements(parse_case_name("pointwise/fwd/fp16/op=relu/rows=2048/cols=12544/impl=opmark")),
            25690112);
  EXPECT_EQ(verified_elements(parse_case_name("gather/fwd/fp16/rows=16384/cols=768/table_rows=30522")), 12582912);
  EXPECT_EQ(verified_elements(parse_case_name("permute/fwd/fp16/d0=1/d1=32/d2=3/d3=1024/perm=0132")), 98304);
  EXPECT_EQ(verified_elements(parse_case_name("spmm/fwd/fp16/m=7680/n=1/k=2560/sparsity=0.95/format=csr")), 7680);
  EXPECT_EQ(verified_elements(parse_case_name("allreduce/fwd/fp32/count=100000/ranks=1/op=sum/inplace=no")), 100000);
  EXPECT_EQ(verified_elements(parse_case_name("batchnorm/fwd/fp16/n=32/c=64/h=112/w=112/mode=inference/impl=opmark")),
            25690112);
  const std::string conv = "/fp16/n=4/c=1/d=1/h=161/w=700/k=32/t=1/r=5/s=20/pad_d=0/pad_h=0/pad_w=0/stride_d=1/"
                           "stride_h=2/stride_w=2/dil_h=1/dil_w=1/groups=1/layout=NCHW";
  EXPECT_EQ(verified_elements(parse_case_name("conv/fwd" + conv)), 3448192);
  EXPECT_EQ(verified_elements(parse_case_name("conv/bwd_data" + conv)), 450800);
  EXPECT_EQ(verified_elements(parse_case_name("conv/bwd_filter" + conv)), 3200);
  EXPECT_EQ(verified_elements(parse_case_name(
                "pool/fwd/fp16/n=32/c=64/h=112/w=112/r=3/s=3/pad_h=1/pad_w=1/stride_h=2/stride_w=2/mode=max/impl=opmark")),
            6422528);
}

TEST(VerifiedElements, NoneForFamiliesThatCompareASampleOrSeveralOutputs) {
  EXPECT_EQ(verified_elements(parse_case_name("reduce/fwd/fp16/op=softmax/rows=196608/cols=512/impl=opmark")),
            std::nullopt);
  EXPECT_EQ(verified_elements(parse_case_name("rnn/fwd/fp16/cell=lstm/hidden=512/batch=1/steps=25/input=512/layers=1/"
                                              "bidir=no/input_mode=linear")),
            std::nullopt);
}
