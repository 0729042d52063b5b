// The library plumbing the families share: each element type's name in every library, from one table
// (bench/families/library_types.h); the families' check of the three float types they run.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "bench/families/library_types.h"
#include "core/error.h"

using opmark::core::DType;

// Every row of the table, column by column: each library's type for each element type.
template <class T>
void expect_column(T (*lookup)(DType), const std::vector<std::pair<DType, T>>& want) {
  for (const auto& [type, name] : want) EXPECT_EQ(lookup(type), name) << opmark::core::name_of(type);
}

TEST(LibraryTypes, EachElementTypeHasItsNameInEachLibrary) {
  expect_column<cudaDataType_t>(opmark::bench::cuda_data_type,
                                {{DType::f64, CUDA_R_64F}, {DType::f32, CUDA_R_32F}, {DType::f16, CUDA_R_16F},
                                 {DType::bf16, CUDA_R_16BF}, {DType::f8_e4m3, CUDA_R_8F_E4M3},
                                 {DType::i8, CUDA_R_8I}, {DType::i32, CUDA_R_32I}});
#ifdef OPMARK_HAVE_CUDNN
  expect_column<cudnnDataType_t>(
      opmark::bench::cudnn_data_type,
      {{DType::f64, CUDNN_DATA_DOUBLE}, {DType::f32, CUDNN_DATA_FLOAT}, {DType::f16, CUDNN_DATA_HALF},
       {DType::bf16, CUDNN_DATA_BFLOAT16}, {DType::f8_e4m3, CUDNN_DATA_FP8_E4M3}, {DType::i8, CUDNN_DATA_INT8},
       {DType::i32, CUDNN_DATA_INT32}});
#endif
#ifdef OPMARK_HAVE_NCCL
  expect_column<ncclDataType_t>(opmark::bench::nccl_data_type,
                                {{DType::f64, ncclFloat64}, {DType::f32, ncclFloat32}, {DType::f16, ncclFloat16},
                                 {DType::bf16, ncclBfloat16}, {DType::i8, ncclInt8}, {DType::i32, ncclInt32}});
#endif
}

TEST(LibraryTypes, AFamilyOfThreeFloatTypesNamesTheTypeItRefuses) {
  EXPECT_NO_THROW(opmark::core::require_float_type(DType::bf16, "spmm runs"));
  try {
    opmark::core::require_float_type(DType::i8, "spmm runs");
    FAIL() << "no error";
  } catch (const opmark::Error& e) {
    EXPECT_STREQ(e.what(), "spmm runs fp32, fp16 and bf16, not i8");
  }
}
