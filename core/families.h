#pragma once
// Per-family host-side knowledge: the schema and the work formulas. One section per family; the device side
// (allocation, the timed call, verification) lives in bench/<family>.cu.
#include <cstdint>

#include "core/case.h"
#include "core/schema.h"

namespace opmark::core {

// ---- gemm: C(m x n) = op(A)(m x k) * op(B)(k x n), column-major as cuBLAS, `batch` strided products ----
Schema gemm_schema();

struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  bool trans_a = false, trans_b = false;
  // Dimensions as run: m, n, k rounded up to the precision's pad multiple (DeepBench pads int8 to 4).
  std::int64_t run_m = 0, run_n = 0, run_k = 0;
  bool is_padded() const { return run_m != m || run_n != n || run_k != k; }
  // Leading dimensions of the column-major operands as run.
  std::int64_t lda() const { return trans_a ? run_k : run_m; }
  std::int64_t ldb() const { return trans_b ? run_n : run_k; }
  std::int64_t ldc() const { return run_m; }
  std::int64_t elements_a() const { return run_m * run_k; }
  std::int64_t elements_b() const { return run_k * run_n; }
  std::int64_t elements_c() const { return run_m * run_n; }
};

GemmProblem gemm_problem(const Case& c);
// flops = 2 m n k batch on the table's problem (padding is not useful work); bytes = the padded operands read and
// the padded result written once, in the precision's element types.
Work gemm_work(const Case& c);

// Dispatch by c.family (core/schemas.cpp).
Work family_work(const Case& c);

}  // namespace opmark::core
