#include "core/verified_elements.h"

#include "core/error.h"
#include "core/families.h"

namespace opmark::core {

std::optional<std::int64_t> verified_elements(const Case& c) {
  try {
    if (c.family == "gemm") {
      const GemmProblem p = gemm_problem(c);
      return p.elements_c() * p.batch;
    }
    if (c.family == "pointwise") return tensor_op_problem(c).elements();
    if (c.family == "gather") {
      const GatherProblem p = gather_problem(c);
      return p.rows * p.cols;
    }
    if (c.family == "permute") return permute_problem(c).elements();
    if (c.family == "spmm") {
      const SpmmProblem p = spmm_problem(c);
      return p.m * p.n;
    }
    if (c.family == "allreduce") return allreduce_problem(c).count;
    if (c.family == "batchnorm") return batchnorm_problem(c).elements();
    if (c.family == "conv") {
      const ConvProblem p = conv_problem(c);
      if (c.direction == "fwd") return p.elements_y();
      if (c.direction == "bwd_data") return p.elements_x();
      if (c.direction == "bwd_filter") return p.elements_filter();
    }
    if (c.family == "pool") {
      const PoolProblem p = pool_problem(c);
      return p.n * p.c * p.p * p.q;
    }
  } catch (const Error&) {
    // a case whose fields do not make a problem: nothing to hold its count to
  }
  return std::nullopt;
}

}  // namespace opmark::core
