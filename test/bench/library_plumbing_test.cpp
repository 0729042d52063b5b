// The library plumbing the families share: each element type's name in every library, from one table
// (bench/families/library_types.h); the families' check of the three float types they run; one classifier family
// for failed calls (kernels/cuda_check.h, bench/families/library_check.h); one lazy handle (bench/families/handles.h).
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/families/handles.h"
#include "bench/families/library_check.h"
#include "bench/families/library_types.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

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

namespace {

// The message of the error `f` throws, which must be of type E (and not a more derived skip for a plain Error).
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const opmark::OutOfMemoryError& e) {
    EXPECT_TRUE((std::is_same_v<E, opmark::OutOfMemoryError>)) << e.what();
    return e.what();
  } catch (const opmark::UnsupportedError& e) {
    EXPECT_TRUE((std::is_same_v<E, opmark::UnsupportedError>)) << e.what();
    return e.what();
  } catch (const opmark::Error& e) {
    EXPECT_TRUE((std::is_same_v<E, opmark::Error>)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

}  // namespace

TEST(CallFailure, EachKindThrowsItsErrorTypeWithOneMessageShape) {
  using opmark::kernels::CallFailure;
  using opmark::kernels::throw_failed_call;
  EXPECT_EQ(message_of<opmark::OutOfMemoryError>([] {
              throw_failed_call(CallFailure::out_of_memory, "out of device memory", "f(x)", "a.cpp", 7, "BAD");
            }),
            "out of device memory: a.cpp:7: f(x) returned BAD");
  EXPECT_EQ(message_of<opmark::UnsupportedError>(
                [] { throw_failed_call(CallFailure::unsupported, "", "f(x)", "a.cpp", 7, "NO"); }),
            "a.cpp:7: f(x) returned NO");
  EXPECT_EQ(message_of<opmark::Error>([] { throw_failed_call(CallFailure::error, "", "f(x)", "a.cpp", 7, "E"); }),
            "a.cpp:7: f(x) returned E");
}

TEST(CallFailure, EachLibrarySortsItsStatuses) {
  using namespace opmark;
  const std::string cuda = message_of<OutOfMemoryError>([] { OPMARK_CHECK_CUDA(cudaErrorMemoryAllocation); });
  EXPECT_NE(cuda.find("out of device memory: "), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("library_plumbing_test.cpp:"), std::string::npos) << cuda;
  EXPECT_NE(cuda.find("cudaErrorMemoryAllocation returned cudaErrorMemoryAllocation: "), std::string::npos) << cuda;
  const std::string cublas = message_of<UnsupportedError>([] { OPMARK_CHECK_CUBLAS(CUBLAS_STATUS_NOT_SUPPORTED); });
  EXPECT_EQ(cublas.find("cuBLAS does not support this case: "), 0u) << cublas;
  message_of<OutOfMemoryError>([] { OPMARK_CHECK_CUBLAS(CUBLAS_STATUS_ALLOC_FAILED); });
  message_of<Error>([] { OPMARK_CHECK_CUBLAS(CUBLAS_STATUS_INTERNAL_ERROR); });
  message_of<UnsupportedError>([] { OPMARK_CHECK_CUSPARSE(CUSPARSE_STATUS_NOT_SUPPORTED); });
  message_of<OutOfMemoryError>([] { OPMARK_CHECK_CUSPARSE(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES); });
  message_of<Error>([] { OPMARK_CHECK_CUSPARSE(CUSPARSE_STATUS_INVALID_VALUE); });
#ifdef OPMARK_HAVE_CUDNN
  message_of<UnsupportedError>([] { OPMARK_CHECK_CUDNN(CUDNN_STATUS_NOT_SUPPORTED); });
  message_of<OutOfMemoryError>([] { OPMARK_CHECK_CUDNN(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED); });
  message_of<Error>([] { OPMARK_CHECK_CUDNN(CUDNN_STATUS_BAD_PARAM); });
#endif
#ifdef OPMARK_HAVE_NCCL
  message_of<UnsupportedError>([] { OPMARK_CHECK_NCCL(ncclInvalidArgument); });
  message_of<Error>([] { OPMARK_CHECK_NCCL(ncclSystemError); });
#endif
}

// A macro in the call stays as written in the message, as before the checks shared OPMARK_CHECK_STATUS.
#define OPMARK_TEST_FAILING_CALL CUSPARSE_STATUS_NOT_SUPPORTED
TEST(CallFailure, TheMessageQuotesTheCallAsWritten) {
  const std::string msg =
      message_of<opmark::UnsupportedError>([] { OPMARK_CHECK_CUSPARSE(OPMARK_TEST_FAILING_CALL); });
  EXPECT_NE(msg.find(": OPMARK_TEST_FAILING_CALL returned "), std::string::npos) << msg;
}

TEST(LazyHandle, IsCreatedOnceOnFirstUse) {
  static int creations = 0;
  static int library_state = 0;
  const auto handle = [] {
    return opmark::bench::lazy_handle<int*>([](int** h) {
      ++creations;
      *h = &library_state;
    });
  };
  EXPECT_EQ(creations, 0);
  EXPECT_EQ(handle(), &library_state);
  EXPECT_EQ(handle(), &library_state);
  EXPECT_EQ(creations, 1);
}
