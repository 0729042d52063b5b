#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

// The operands as run (padded), batch included, must be sizes a GPU could hold; this also keeps every product of
// GemmProblem's dimensions inside int64.
std::string check_gemm(const Case& c) {
  const GemmProblem p = gemm_problem(c);
  return first_problem({check_tensor_size("operand A", "m x k x batch", {p.run_m, p.run_k, p.batch}),
                        check_tensor_size("operand B", "k x n x batch", {p.run_k, p.run_n, p.batch}),
                        check_tensor_size("result C", "m x n x batch", {p.run_m, p.run_n, p.batch})});
}

}  // namespace

Schema gemm_schema() {
  Schema s;
  s.family = "gemm";
  s.help = "dense matrix product C = op(A) op(B), column-major, through cuBLASLt";
  s.fields = {
      {"m", FieldKind::positive_int, std::nullopt, {}, "rows of op(A) and C", ""},
      {"n", FieldKind::positive_int, std::nullopt, {}, "columns of op(B) and C", ""},
      {"k", FieldKind::positive_int, std::nullopt, {}, "inner dimension", ""},
      {"ta", FieldKind::choice, FieldValue{std::string("N")}, {"N", "T"}, "A transposed (T) or not (N)", ""},
      {"tb", FieldKind::choice, FieldValue{std::string("N")}, {"N", "T"}, "B transposed (T) or not (N)", ""},
      {"batch", FieldKind::positive_int, FieldValue{std::int64_t{1}}, {}, "strided-batched products", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"};
  s.check = &check_gemm;
  return s;
}

GemmProblem gemm_problem(const Case& c) {
  GemmProblem p;
  p.m = c.int_field("m");
  p.n = c.int_field("n");
  p.k = c.int_field("k");
  p.batch = c.int_field("batch");
  p.trans_a = c.str_field("ta") == "T";
  p.trans_b = c.str_field("tb") == "T";
  const int pad = precision_info(c.precision).pad_multiple;
  p.run_m = round_up(p.m, pad);
  p.run_n = round_up(p.n, pad);
  p.run_k = round_up(p.k, pad);
  return p;
}

Work gemm_work(const Case& c) {
  const GemmProblem p = gemm_problem(c);
  const PrecisionInfo& prec = precision_info(c.precision);
  // In doubles: exact for the sizes check_gemm allows, and no integer product to overflow.
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const double run_m = static_cast<double>(p.run_m), run_n = static_cast<double>(p.run_n),
               run_k = static_cast<double>(p.run_k), batch = static_cast<double>(p.batch);
  Work w;
  w.flops = 2.0 * m * n * k * batch;
  w.bytes_read = (run_m * run_k + run_k * run_n) * batch * static_cast<double>(size_of(prec.input));
  w.bytes_written = run_m * run_n * batch * static_cast<double>(size_of(prec.output));
  return w;
}

}  // namespace opmark::core
