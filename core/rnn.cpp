#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

std::string check_rnn(const Case& c) {
  const RnnProblem p = rnn_problem(c);
  // cuDNN's skip-input mode adds the input to the gates unprojected, so it must already be hidden wide.
  if (p.skip_input && p.input != p.hidden)
    return "input_mode=skip needs input = hidden (got input=" + std::to_string(p.input) +
           ", hidden=" + std::to_string(p.hidden) + "); use input_mode=linear";
  return "";
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
      {"steps", FieldKind::positive_int, std::nullopt, {}, "time steps T", ""},
      {"input", FieldKind::positive_int, std::nullopt, {}, "input size I of the first layer", "hidden"},
      {"layers", FieldKind::positive_int, FieldValue{std::int64_t{1}}, {}, "stacked layers", ""},
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
