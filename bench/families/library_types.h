#pragma once
// Each core::DType as the CUDA libraries name it, in one table, so a new element type is one row here rather than
// a case in each family. The cuDNN and NCCL columns are read only where those libraries were found.
#include <library_types.h>  // cudaDataType_t: cuBLAS, cuBLASLt, cuSPARSE

#include <string>

#include "core/dtype.h"
#include "core/error.h"

#ifdef OPMARK_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef OPMARK_HAVE_NCCL
#include <nccl.h>
// ncclFloat8e4m3 came with NCCL 2.24; in older NCCLs fp8 has no name, and asking for one throws (no family reduces
// fp8 through NCCL).
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
#define OPMARK_NCCL_FP8_E4M3 ncclFloat8e4m3
#else
#define OPMARK_NCCL_FP8_E4M3 (::opmark::bench::throw_no_library_type("NCCL", core::DType::f8_e4m3), ncclFloat32)
#endif
#endif

// One row per core::DType: dtype, CUDA library type, cuDNN type, NCCL type. `row` is called with `pick` first.
#define OPMARK_LIBRARY_TYPES(row, pick)                                          \
  row(pick, f64, CUDA_R_64F, CUDNN_DATA_DOUBLE, ncclFloat64)                     \
  row(pick, f32, CUDA_R_32F, CUDNN_DATA_FLOAT, ncclFloat32)                      \
  row(pick, f16, CUDA_R_16F, CUDNN_DATA_HALF, ncclFloat16)                       \
  row(pick, bf16, CUDA_R_16BF, CUDNN_DATA_BFLOAT16, ncclBfloat16)                \
  row(pick, f8_e4m3, CUDA_R_8F_E4M3, CUDNN_DATA_FP8_E4M3, OPMARK_NCCL_FP8_E4M3) \
  row(pick, i8, CUDA_R_8I, CUDNN_DATA_INT8, ncclInt8)                            \
  row(pick, i32, CUDA_R_32I, CUDNN_DATA_INT32, ncclInt32)

// The columns, and a lookup of one: `fn(t)` returns t's type in `library`, a switch on every row of the table.
#define OPMARK_PICK_CUDA(cuda, cudnn, nccl) cuda
#define OPMARK_PICK_CUDNN(cuda, cudnn, nccl) cudnn
#define OPMARK_PICK_NCCL(cuda, cudnn, nccl) nccl
#define OPMARK_LIBRARY_TYPE_CASE(pick, dtype, cuda, cudnn, nccl) \
  case core::DType::dtype: return pick(cuda, cudnn, nccl);
#define OPMARK_LIBRARY_TYPE_LOOKUP(Type, fn, library, pick)             \
  inline Type fn(core::DType t) {                                       \
    switch (t) { OPMARK_LIBRARY_TYPES(OPMARK_LIBRARY_TYPE_CASE, pick) } \
    throw_no_library_type(library, t);                                  \
  }

namespace opmark::bench {

[[noreturn]] inline void throw_no_library_type(const char* library, core::DType t) {
  throw Error(std::string("no ") + library + " data type for " + core::name_of(t));
}

// cudaDataType_t cuda_data_type(core::DType): for cuBLAS, cuBLASLt and cuSPARSE.
OPMARK_LIBRARY_TYPE_LOOKUP(cudaDataType_t, cuda_data_type, "CUDA", OPMARK_PICK_CUDA)
#ifdef OPMARK_HAVE_CUDNN
// cudnnDataType_t cudnn_data_type(core::DType)
OPMARK_LIBRARY_TYPE_LOOKUP(cudnnDataType_t, cudnn_data_type, "cuDNN", OPMARK_PICK_CUDNN)
#endif
#ifdef OPMARK_HAVE_NCCL
// ncclDataType_t nccl_data_type(core::DType)
OPMARK_LIBRARY_TYPE_LOOKUP(ncclDataType_t, nccl_data_type, "NCCL", OPMARK_PICK_NCCL)
#endif

}  // namespace opmark::bench
