#include "core/families.h"
#include "core/precision.h"
#include "core/reduce_path.h"

namespace opmark::core {
namespace {

std::string check_reduce(const Case& c) {
  const ReduceProblem p = tensor_op_problem(c);
  if (p.impl == "cudnn" && !reduce_has_cudnn(p.op)) return "op=" + p.op + " has no cuDNN counterpart; use impl=opmark";
  return check_tensor_size("the tensor", "rows x cols", {p.rows, p.cols});
}

}  // namespace

const std::vector<std::string>& reduce_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> names;
    for (ReduceOp op : kReduceOps) names.emplace_back(reduce_op_name(op));
    return names;
  }();
  return ops;
}

// cudnnReduceTensor (sum, mean, max, and sum over everything) and cudnnSoftmaxForward (softmax, and log_softmax as
// CUDNN_SOFTMAX_LOG); the norms have no single legacy cuDNN call.
bool reduce_has_cudnn(const std::string& op) { return !reduce_normalises(op) || reduce_is_softmax(op); }

int reduce_inputs(const std::string& op) { return reduce_adds_residual(op) ? 2 : 1; }

int reduce_weights(const std::string& op) {
  if (op == "layernorm" || op == "add_layernorm") return 2;  // gamma and beta
  if (op == "rmsnorm" || op == "add_rmsnorm") return 1;      // the weight
  return 0;
}

Schema reduce_schema() {
  Schema s;
  s.family = "reduce";
  s.help = "reductions over the last dimension of a rows x cols tensor (sum_all: over everything); softmax, "
           "log_softmax, layer norm and RMSNorm over rows; add_layernorm and add_rmsnorm add a residual first and "
           "write the sum too. Memory bound; bytes: each input read once (add_*: x and the residual), the weights "
           "once (layer norm: gamma and beta, RMSNorm: its weight, cols each), each output written once (add_*: the "
           "normalised rows and the sum)";
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
  if (reduce_adds_residual(p.op)) return 2 * p.elements();  // the normalised rows, then the sum x + residual
  if (reduce_normalises(p.op)) return p.elements();
  return p.rows;
}

// No FLOPs (memory bound). Bytes: the inputs read once, the weights once, the outputs written once.
Work reduce_work(const Case& c) {
  const ReduceProblem p = tensor_op_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  Work w;
  w.flops = 0;
  const double rows = static_cast<double>(p.rows), cols = static_cast<double>(p.cols);  // doubles: nothing overflows
  w.bytes_read = (reduce_inputs(p.op) * rows * cols + reduce_weights(p.op) * cols) * elem;
  w.bytes_written = static_cast<double>(reduce_outputs(p)) * elem;
  return w;
}

}  // namespace opmark::core
