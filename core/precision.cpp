#include "core/precision.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace opmark::core {

const std::vector<PrecisionInfo>& all_precisions() {
  // Tolerances, relative to max(|ref|, rms(ref)) with a float64 reference:
  //   fp32  fp32 products, only the summation order differs: far under 1e-5, 1e-4 leaves room for split-k.
  //   tf32  operands rounded to a 10-bit mantissa inside the tensor cores: errors near 1e-3.
  //   fp16  exact products, fp32 sums, output rounded to 11 bits (5e-4 a rounding); split-k kernels may also round
  //         their partial sums to fp16 (seen on an H200: 3e-3 at k = 4096), so several roundings are allowed.
  //   bf16  as fp16 with 8-bit outputs (4e-3 a rounding; 1.1e-2 seen with split-k).
  //   int8  exact integer arithmetic: any difference is wrong.
  //   fp8   exact e4m3 operands, Hopper's fp8 accumulation is narrower than fp32, bf16 output.
  // A wrong kernel (bad index, missing tile, unwritten output) is off by the size of the values themselves.
  static const std::vector<PrecisionInfo> table = {
      {"fp32", DType::f32, DType::f32, "fp32", 1e-4, 1, 0, "fp32"},
      {"tf32", DType::f32, DType::f32, "tf32", 1e-2, 1, 80, "tf32"},
      {"fp16", DType::f16, DType::f16, "fp32", 8e-3, 1, 0, "fp16"},
      {"bf16", DType::bf16, DType::bf16, "fp32", 3e-2, 1, 80, "bf16"},
      {"int8", DType::i8, DType::i32, "int32", 0.0, 4, 61, "int8"},
      {"fp8", DType::f8_e4m3, DType::bf16, "fp32", 4e-2, 16, 89, "fp8"},
  };
  return table;
}

double depth_tolerance(double tolerance, double depth) {
  const double growth = std::sqrt(std::max(depth, 0.0) / kToleranceDepth);
  return tolerance * std::clamp(growth, 1.0, kToleranceGrowthCap);
}

std::int64_t round_up(std::int64_t v, std::int64_t multiple) {
  if (multiple <= 1) return v;
  const std::int64_t short_by = (multiple - v % multiple) % multiple;  // v >= 0: how far below the next multiple
  std::int64_t out;
  // Fields are bounded far below this (kMaxDimension); a value this large is a bug, not a size.
  if (__builtin_add_overflow(v, short_by, &out)) throw Error("round_up: " + std::to_string(v) + " is too large to pad");
  return out;
}

bool is_precision(const std::string& name) {
  for (const auto& p : all_precisions())
    if (name == p.name) return true;
  return false;
}

const PrecisionInfo& precision_info(const std::string& name) {
  std::string known;
  for (const auto& p : all_precisions()) {
    if (name == p.name) return p;
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw Error("unknown precision '" + name + "' (known: " + known + ")");
}

}  // namespace opmark::core
