#pragma once
// Element types of device buffers, independent of any CUDA header so host-only code can name them.
#include <cstddef>
#include <string>

namespace opmark::core {

enum class DType { f64, f32, f16, bf16, f8_e4m3, i8, i32 };

std::size_t size_of(DType t);
const char* name_of(DType t);  // "f32", "bf16", ...
bool is_integer(DType t);

// Throws opmark::Error "<what_runs> fp32, fp16 and bf16, not <t>" for any other type: the one check of the
// families and kernels written for those three types only (what_runs: "pooling runs", "spmm runs", ...).
void require_float_type(DType t, const std::string& what_runs);

}  // namespace opmark::core
