#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {

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
  const double batch = static_cast<double>(p.batch);
  Work w;
  w.flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) * batch;
  w.bytes_read = static_cast<double>(p.elements_a() + p.elements_b()) * batch * static_cast<double>(size_of(prec.input));
  w.bytes_written = static_cast<double>(p.elements_c()) * batch * static_cast<double>(size_of(prec.output));
  return w;
}

}  // namespace opmark::core
