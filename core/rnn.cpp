#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

FieldSpec bounded(FieldSpec f, std::int64_t max) {
  f.max = max;
  return f;
}

// The weights of every layer and direction, or -1 past kMaxElements: RnnProblem::weights() with checked sums and
// products, so a case is rejected before anything computes the total unchecked.
std::int64_t bounded_weights(const RnnProblem& p) {
  std::int64_t total = 0;
  for (std::int64_t l = 0; l < p.layers; ++l) {  // layers <= kMaxLayers
    const std::int64_t in = (l == 0 && p.skip_input) ? 0 : p.layer_input(l);
    const std::int64_t layer = bounded_product({p.directions(), p.gates(), p.hidden, in + p.hidden + 2});
    if (layer < 0 || __builtin_add_overflow(total, layer, &total) || total > kMaxElements) return -1;
  }
  return total;
}

// The sequences, the recurrent state and the weights must be sizes a GPU could hold; this also keeps RnnProblem's
// products (and bench's of the same fields) inside int64.
std::string check_rnn_sizes(const RnnProblem& p) {
  return first_problem(
      {check_tensor_size("the input sequence", "steps x batch x input", {p.steps, p.batch, p.input}),
       check_tensor_size("the output sequence", "steps x batch x hidden x directions",
                         {p.steps, p.batch, p.hidden, p.directions()}),
       check_tensor_size("the state", "layers x directions x batch x hidden",
                         {p.layers, p.directions(), p.batch, p.hidden}),
       bounded_weights(p) < 0 ? "the weights (layers x directions x gates x hidden x (input + hidden + 2)) would hold "
                                "more than 2^40 elements, past any GPU's memory"
                              : ""});
}

std::string check_rnn(const Case& c) {
  const RnnProblem p = rnn_problem(c);
  // cuDNN's skip-input mode adds the input to the gates unprojected, so it must already be hidden wide.
  if (p.skip_input && p.input != p.hidden)
    return "input_mode=skip needs input = hidden (got input=" + std::to_string(p.input) +
           ", hidden=" + std::to_string(p.hidden) + "); use input_mode=linear";
  return check_rnn_sizes(p);
}

}  // namespace

Schema rnn_schema() {
  Schema s;
  s.family = "rnn";
  s.help = "recurrent layers (vanilla ReLU/tanh, LSTM, GRU) through cuDNN's RNN API";
  s.fields = {
      {"cell", FieldKind::choice, std::nullopt, {"rnn_relu", "rnn_tanh", "lstm", "gru"}, "cell type", ""},
      {"hidden", FieldKind::positive_int, std::nullopt, {}, "hidden size H", ""},
      {"batch", FieldKind::positive_int, std::nullopt, {}, "batch N", ""},
      bounded({"steps", FieldKind::positive_int, std::nullopt, {}, "time steps T", ""}, kMaxSteps),
      {"input", FieldKind::positive_int, std::nullopt, {}, "input size I of the first layer", "hidden"},
      bounded({"layers", FieldKind::positive_int, FieldValue{std::int64_t{1}}, {}, "stacked layers", ""}, kMaxLayers),
      {"bidir", FieldKind::choice, FieldValue{std::string("no")}, {"no", "yes"}, "bidirectional", ""},
      {"input_mode", FieldKind::choice, FieldValue{std::string("skip")}, {"skip", "linear"},
       "skip: the first layer's input is added to the gates unprojected (DeepBench); linear: projected by a GEMM", ""},
  };
  // fwd is inference; a training step is fwd_train (keeping what backward needs), bwd_data, bwd_weights.
  s.directions = {"fwd", "fwd_train", "bwd_data", "bwd_weights"};
  s.precisions = {"fp32", "tf32", "fp16", "bf16"};
  s.check = &check_rnn;
  return s;
}

RnnProblem rnn_problem(const Case& c) {
  RnnProblem p;
  p.cell = c.str_field("cell");
  p.hidden = c.int_field("hidden");
  p.batch = c.int_field("batch");
  p.steps = c.int_field("steps");
  p.input = c.int_field("input");
  p.layers = c.int_field("layers");
  p.bidirectional = c.str_field("bidir") == "yes";
  p.skip_input = c.str_field("input_mode") == "skip";
  return p;
}

int RnnProblem::gates() const {
  if (cell == "lstm") return 4;
  if (cell == "gru") return 3;
  return 1;
}

std::int64_t RnnProblem::layer_input(std::int64_t layer) const { return layer == 0 ? input : hidden * directions(); }

// Exact for a valid case: check_rnn bounds the total, and layers by kMaxLayers.
std::int64_t RnnProblem::weights() const {
  std::int64_t total = 0;
  for (std::int64_t l = 0; l < layers; ++l) {
    const std::int64_t in = (l == 0 && skip_input) ? 0 : layer_input(l);
    total += directions() * gates() * hidden * (in + hidden + 2);  // input and recurrent matrices, two biases
  }
  return total;
}

Work rnn_work(const Case& c) {
  const RnnProblem p = rnn_problem(c);
  const PrecisionInfo& prec = precision_info(c.precision);
  // In doubles: no integer product to overflow. The loop runs at most kMaxLayers times.
  const double t = static_cast<double>(p.steps), n = static_cast<double>(p.batch), h = static_cast<double>(p.hidden);
  // DeepBench, per direction and layer: vanilla 2TNH^2 + TNH, LSTM 8TNH^2, GRU 6TNH^2 (the recurrent GEMMs).
  // Layers with a projected input (every layer after the first, and the first in linear mode) add 2TNHI per gate.
  double flops = 0;
  for (std::int64_t l = 0; l < p.layers; ++l) {
    double layer = 2.0 * t * n * h * h * p.gates();
    if (p.gates() == 1) layer += t * n * h;
    if (l > 0 || !p.skip_input) layer += 2.0 * t * n * h * static_cast<double>(p.layer_input(l)) * p.gates();
    flops += layer * p.directions();
  }
  const double elem = static_cast<double>(size_of(prec.input));
  Work w;
  w.flops = flops;  // the same count for every direction, as DeepBench reports it
  // Lower bound for every direction: the sequence in, the weights, the sequence out.
  w.bytes_read = (t * n * static_cast<double>(p.input) + static_cast<double>(p.weights())) * elem;
  w.bytes_written = t * n * h * p.directions() * elem;
  return w;
}

}  // namespace opmark::core
