#pragma once
// A recurrent layer stack in float64 on the host, forward and backward (BPTT), written from cuDNN's documented
// cell equations, so small RNN cases can be checked against something that is not cuDNN. Gate order as cuDNN's
// linear-layer IDs: LSTM i, f, c', o; GRU r, z, h'. GRU is cuDNN's variant: h' = tanh(W x + bW + r * (R h + bR)).
// Skip-input mode: the first layer adds its input to every gate instead of projecting it (no W there).
#include <cstdint>
#include <vector>

namespace opmark::kernels {

enum class RnnCell { relu, tanh, lstm, gru };
int gate_count(RnnCell cell);

struct RnnRefShape {
  RnnCell cell = RnnCell::lstm;
  int hidden = 0, input = 0, batch = 0, steps = 0, layers = 1;
  bool bidirectional = false;
  bool skip_input = false;
  int directions() const { return bidirectional ? 2 : 1; }
  int layer_input(int layer) const { return layer == 0 ? input : hidden * directions(); }
};

// The weights of one layer and direction, per gate: W[g] is hidden x input (row-major, empty in skip mode),
// R[g] hidden x hidden, bW[g] and bR[g] hidden.
struct RnnRefWeights {
  std::vector<std::vector<double>> W, R, bW, bR;
};

// Sized and zeroed weights for every layer and direction, indexed layer * directions + direction.
std::vector<RnnRefWeights> rnn_zero_weights(const RnnRefShape& shape);

// Tensors: x [steps][batch][input], y [steps][batch][hidden * directions] (forward half first), hx/cx/hy/cy
// [layers * directions][batch][hidden]. cx and cy are used by LSTM only.
struct RnnRefForward {
  std::vector<double> y, hy, cy;
};
RnnRefForward rnn_forward(const RnnRefShape& shape, const std::vector<RnnRefWeights>& weights,
                          const std::vector<double>& x, const std::vector<double>& hx, const std::vector<double>& cx);

struct RnnRefBackward {
  std::vector<double> dx, dhx, dcx;
  std::vector<RnnRefWeights> dweights;
};
// Gradients of sum(y * dy) + sum(hy * dhy) + sum(cy * dcy) with respect to x, hx, cx and every weight.
RnnRefBackward rnn_backward(const RnnRefShape& shape, const std::vector<RnnRefWeights>& weights,
                            const std::vector<double>& x, const std::vector<double>& hx, const std::vector<double>& cx,
                            const std::vector<double>& dy, const std::vector<double>& dhy,
                            const std::vector<double>& dcy);

}  // namespace opmark::kernels
