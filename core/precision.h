#pragma once
// The precisions a case can run in: one table shared by every family, so no family switches on precision
// to learn its element types, tolerance or padding.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace opmark::core {

struct PrecisionInfo {
  const char* name;       // as written in tables and case names: "fp16"
  DType input;            // operand element type
  DType output;           // result element type
  const char* compute;    // accumulation, as printed in the output: "fp32", "tf32", "int32"
  // Verification: an element is wrong when |out - ref| > tolerance * max(|ref|, rms(ref)).
  // Operands are drawn in the input type, so the reference sees the same operands and the tolerance only has to
  // cover accumulation order, reduced-precision multiplies (tf32) and rounding of the output.
  double tolerance;
  int pad_multiple;       // dimensions are padded up to this multiple (DeepBench pads int8 to 4)
  int min_compute_capability;  // e.g. 89 for fp8
  const char* peak_key;   // which entry of the peak table applies: fp32, tf32, fp16, bf16, int8, fp8
};

// The elementwise tolerance for a result whose elements each accumulate `depth` rounded products (k of a GEMM,
// C R S of a convolution, the unrolled steps of a recurrence): rounding error grows about as the square root of
// the depth, so the precision's tolerance (set for depths up to kToleranceDepth) grows as sqrt(depth /
// kToleranceDepth), at most kToleranceGrowthCap times. Exact precisions (tolerance 0) stay exact.
constexpr double kToleranceDepth = 1024;
constexpr double kToleranceGrowthCap = 8;
double depth_tolerance(double tolerance, double depth);

// v (>= 0) rounded up to a multiple of `multiple` (1 or less: v itself), for the padding a precision asks for.
// Throws opmark::Error where the result would not fit in int64.
std::int64_t round_up(std::int64_t v, std::int64_t multiple);

// Throws opmark::Error naming the known precisions when `name` is not one of them.
const PrecisionInfo& precision_info(const std::string& name);
bool is_precision(const std::string& name);
const std::vector<PrecisionInfo>& all_precisions();

}  // namespace opmark::core
