#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_pointwise(const Case& c) {
  const PointwiseProblem p = tensor_op_problem(c);
  if (p.impl == "cudnn" && !pointwise_has_cudnn(p.op))
    return "op=" + p.op + " has no cuDNN counterpart; use impl=opmark";
  return check_tensor_size("the tensor", "rows x cols", {p.rows, p.cols});
}

}  // namespace

const std::vector<std::string>& pointwise_ops() {
  static const std::vector<std::string> ops = {"copy", "relu",     "gelu",      "silu",      "sigmoid", "tanh",
                                               "add",  "mul",      "bias_add",  "bias_relu", "bias_gelu",
                                               "scale", "masked_fill"};
  return ops;
}

int pointwise_inputs(const std::string& op) {
  if (op == "add" || op == "mul") return 2;
  return 1;
}

bool pointwise_has_bias(const std::string& op) { return op.rfind("bias_", 0) == 0; }

bool pointwise_has_mask(const std::string& op) { return op == "masked_fill"; }

// cuDNN's legacy calls: cudnnActivationForward (relu, sigmoid, tanh, swish = silu), cudnnOpTensor (add, mul),
// cudnnAddTensor (bias_add). GELU and the fused bias + activation have no single cuDNN call.
bool pointwise_has_cudnn(const std::string& op) {
  return op == "relu" || op == "sigmoid" || op == "tanh" || op == "silu" || op == "add" || op == "mul" ||
         op == "bias_add";
}

Schema pointwise_schema() {
  Schema s;
  s.family = "pointwise";
  s.help = "element-wise ops on a rows x cols tensor (bias: a cols vector broadcast over the rows; scale: times a "
           "scalar, 1/sqrt(128); masked_fill: where a rows x cols uint8 mask is set, -10000), memory bound";
  s.fields = {
      {"op", FieldKind::choice, std::nullopt, pointwise_ops(), "the operation; copy is the bandwidth ceiling", ""},
      {"rows", FieldKind::positive_int, std::nullopt, {}, "outer size (tokens, or batch x channels x pixels)", ""},
      {"cols", FieldKind::positive_int, std::nullopt, {}, "inner size, the one a bias runs along", ""},
      {"impl", FieldKind::choice, FieldValue{std::string("opmark")}, {"opmark", "cudnn"},
       "opmark's kernel, or the cuDNN call for the same op", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_pointwise;
  return s;
}

TensorOpProblem tensor_op_problem(const Case& c) {
  TensorOpProblem p;
  p.op = c.str_field("op");
  p.rows = c.int_field("rows");
  p.cols = c.int_field("cols");
  p.impl = c.str_field("impl");
  return p;
}

// No FLOPs: these ops are judged by bytes moved. Bytes: every input read once, the bias once, a mask (one byte an
// element) once, the output written.
Work pointwise_work(const Case& c) {
  const PointwiseProblem p = tensor_op_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  const double n = static_cast<double>(p.rows) * static_cast<double>(p.cols);  // in doubles: nothing to overflow
  Work w;
  w.flops = 0;
  w.bytes_read = (pointwise_inputs(p.op) * n + (pointwise_has_bias(p.op) ? static_cast<double>(p.cols) : 0.0)) * elem +
                 (pointwise_has_mask(p.op) ? n : 0.0);
  w.bytes_written = n * elem;
  return w;
}

}  // namespace opmark::core
