#pragma once
// Library handles, created once per process on first use (outside any timed region) and shared by the families.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cusparse.h>

namespace opmark::bench {

cublasLtHandle_t cublaslt_handle();
cublasHandle_t cublas_handle();  // for float64 references
cusparseHandle_t cusparse_handle();

}  // namespace opmark::bench
