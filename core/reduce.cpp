#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_reduce(const Case& c) {
  const ReduceProblem p = tensor_op_problem(c);
  if (p.impl == "cudnn" && !reduce_has_cudnn(p.op)) return "op=" + p.op + " has no cuDNN counterpart; use impl=opmark";
  return check_tensor_size("the tensor", "rows x cols", {p.rows, p.cols});
}

}  // namespace

const std::vector<std::string>& reduce_ops() {
  static const std::vector<std::string> ops = {"sum", "mean", "max", "sum_all", "softmax", "layernorm"};
  return ops;
}

// cudnnReduceTensor (sum, mean, max, and sum over everything) and cudnnSoftmaxForward; layer norm has no single
// legacy cuDNN call.
bool reduce_has_cudnn(const std::string& op) { return op != "layernorm"; }

Schema reduce_schema() {
  Schema s;
  s.family = "reduce";
  s.help = "reductions over the last dimension of a rows x cols tensor (sum_all: over everything), softmax and "
           "layer norm over rows; memory bound";
  s.fields = {
      {"op", FieldKind::choice, std::nullopt, reduce_ops(), "the operation", ""},
      {"rows", FieldKind::positive_int, std::nullopt, {}, "rows (tokens, or batch x channels)", ""},
      {"cols", FieldKind::positive_int, std::nullopt, {}, "the dimension reduced or normalised", ""},
      {"impl", FieldKind::choice, FieldValue{std::string("opmark")}, {"opmark", "cudnn"},
       "opmark's kernel, or the cuDNN call for the same op", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_reduce;
  return s;
}

std::int64_t reduce_outputs(const ReduceProblem& p) {
  if (p.op == "sum_all") return 1;
  if (p.op == "softmax" || p.op == "layernorm") return p.elements();
  return p.rows;
}

// No FLOPs (memory bound). Bytes: the input read once (layer norm: and its gamma and beta), the output written.
Work reduce_work(const Case& c) {
  const ReduceProblem p = tensor_op_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  Work w;
  w.flops = 0;
  const double rows = static_cast<double>(p.rows), cols = static_cast<double>(p.cols);  // doubles: nothing overflows
  w.bytes_read = (rows * cols + (p.op == "layernorm" ? 2.0 * cols : 0.0)) * elem;
  w.bytes_written = static_cast<double>(reduce_outputs(p)) * elem;
  return w;
}

}  // namespace opmark::core
