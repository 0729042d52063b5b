#include "kernels/reference_rnn.h"

#include <cmath>
#include <cstddef>

namespace opmark::kernels {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// What one step of one (layer, direction) keeps for the backward pass.
struct Step {
  std::vector<double> in;                // this step's input, layer_input wide
  std::vector<double> h_prev, c_prev;    // state before the step
  std::vector<std::vector<double>> act;  // gate activations (after the nonlinearity)
  std::vector<double> rh;                // GRU: R_h h_prev + bR_h
  std::vector<double> c;                 // LSTM: cell after the step
  std::vector<double> h;                 // state after the step
};

// Runs one layer and direction over the sequence for one batch item; returns the steps in processing order.
std::vector<Step> run_direction(const RnnRefShape& s, const RnnRefWeights& w, int layer_in,
                                const std::vector<std::vector<double>>& inputs, bool reverse, std::vector<double> h,
                                std::vector<double> c) {
  const int H = s.hidden, G = gate_count(s.cell);
  const bool skip = s.skip_input && w.W[0].empty();
  std::vector<Step> steps;
  for (int k = 0; k < s.steps; ++k) {
    const int t = reverse ? s.steps - 1 - k : k;
    Step st;
    st.in = inputs[t];
    st.h_prev = h;
    st.c_prev = c;
    st.act.assign(G, std::vector<double>(H));
    st.rh.assign(H, 0);
    for (int g = 0; g < G; ++g) {
      for (int j = 0; j < H; ++j) {
        double wx = w.bW[g][j];
        if (skip) wx += st.in[j];
        else
          for (int i = 0; i < layer_in; ++i) wx += w.W[g][j * layer_in + i] * st.in[i];
        double rh = w.bR[g][j];
        for (int i = 0; i < H; ++i) rh += w.R[g][j * H + i] * h[i];
        double pre;
        if (s.cell == RnnCell::gru && g == 2) {
          st.rh[j] = rh;
          pre = wx + st.act[0][j] * rh;  // r was computed first (g = 0)
        } else {
          pre = wx + rh;
        }
        double a;
        if (s.cell == RnnCell::relu) a = pre > 0 ? pre : 0;
        else if (s.cell == RnnCell::tanh) a = std::tanh(pre);
        else a = g == 2 ? std::tanh(pre) : sigmoid(pre);  // LSTM's c' and GRU's h' are tanh, the gates sigmoid
        st.act[g][j] = a;
      }
    }
    std::vector<double> h_new(H), c_new = c;
    for (int j = 0; j < H; ++j) {
      if (s.cell == RnnCell::lstm) {
        c_new[j] = st.act[1][j] * c[j] + st.act[0][j] * st.act[2][j];
        h_new[j] = st.act[3][j] * std::tanh(c_new[j]);
      } else if (s.cell == RnnCell::gru) {
        h_new[j] = (1 - st.act[1][j]) * st.act[2][j] + st.act[1][j] * h[j];
      } else {
        h_new[j] = st.act[0][j];
      }
    }
    st.c = c_new;
    st.h = h_new;
    h = h_new;
    c = c_new;
    steps.push_back(std::move(st));
  }
  return steps;
}

std::size_t state_at(const RnnRefShape& s, int ld, int n) {
  return (static_cast<std::size_t>(ld) * s.batch + n) * s.hidden;
}

// Forward through every layer, keeping every step (steps[layer][dir][n]).
struct Trace {
  std::vector<std::vector<std::vector<std::vector<Step>>>> steps;
  std::vector<std::vector<std::vector<std::vector<double>>>> inputs;  // [layer][n][t] input vectors
  RnnRefForward out;
};

Trace trace(const RnnRefShape& s, const std::vector<RnnRefWeights>& weights, const std::vector<double>& x,
            const std::vector<double>& hx, const std::vector<double>& cx) {
  const int H = s.hidden, D = s.directions();
  Trace tr;
  tr.steps.resize(s.layers);
  tr.inputs.resize(s.layers);
  tr.out.hy.assign(static_cast<std::size_t>(s.layers) * D * s.batch * H, 0);
  tr.out.cy = tr.out.hy;
  std::vector<std::vector<std::vector<double>>> seq(s.batch, std::vector<std::vector<double>>(s.steps));
  for (int n = 0; n < s.batch; ++n)
    for (int t = 0; t < s.steps; ++t)
      seq[n][t].assign(x.begin() + (static_cast<std::size_t>(t) * s.batch + n) * s.input,
                       x.begin() + (static_cast<std::size_t>(t) * s.batch + n + 1) * s.input);
  for (int l = 0; l < s.layers; ++l) {
    tr.inputs[l] = seq;
    tr.steps[l].resize(D);
    std::vector<std::vector<std::vector<double>>> next(s.batch, std::vector<std::vector<double>>(
                                                                    s.steps, std::vector<double>(H * D)));
    for (int d = 0; d < D; ++d) {
      const int ld = l * D + d;
      tr.steps[l][d].resize(s.batch);
      for (int n = 0; n < s.batch; ++n) {
        std::vector<double> h(hx.begin() + state_at(s, ld, n), hx.begin() + state_at(s, ld, n) + H);
        std::vector<double> c(H, 0);
        if (s.cell == RnnCell::lstm) c.assign(cx.begin() + state_at(s, ld, n), cx.begin() + state_at(s, ld, n) + H);
        auto steps = run_direction(s, weights[ld], s.layer_input(l), seq[n], d == 1, h, c);
        for (int k = 0; k < s.steps; ++k) {
          const int t = d == 1 ? s.steps - 1 - k : k;
          for (int j = 0; j < H; ++j) next[n][t][d * H + j] = steps[k].h[j];
        }
        for (int j = 0; j < H; ++j) {
          tr.out.hy[state_at(s, ld, n) + j] = steps.back().h[j];
          tr.out.cy[state_at(s, ld, n) + j] = steps.back().c[j];
        }
        tr.steps[l][d][n] = std::move(steps);
      }
    }
    seq = std::move(next);
  }
  tr.out.y.assign(static_cast<std::size_t>(s.steps) * s.batch * H * D, 0);
  for (int t = 0; t < s.steps; ++t)
    for (int n = 0; n < s.batch; ++n)
      for (int j = 0; j < H * D; ++j) tr.out.y[(static_cast<std::size_t>(t) * s.batch + n) * H * D + j] = seq[n][t][j];
  return tr;
}

}  // namespace

int gate_count(RnnCell cell) {
  switch (cell) {
    case RnnCell::lstm: return 4;
    case RnnCell::gru: return 3;
    default: return 1;
  }
}

std::vector<RnnRefWeights> rnn_zero_weights(const RnnRefShape& s) {
  std::vector<RnnRefWeights> out;
  const int H = s.hidden, G = gate_count(s.cell);
  for (int l = 0; l < s.layers; ++l)
    for (int d = 0; d < s.directions(); ++d) {
      RnnRefWeights w;
      const bool skip = l == 0 && s.skip_input;
      w.W.assign(G, std::vector<double>(skip ? 0 : static_cast<std::size_t>(H) * s.layer_input(l), 0.0));
      w.R.assign(G, std::vector<double>(static_cast<std::size_t>(H) * H, 0.0));
      w.bW.assign(G, std::vector<double>(H, 0.0));
      w.bR.assign(G, std::vector<double>(H, 0.0));
      out.push_back(std::move(w));
    }
  return out;
}

RnnRefForward rnn_forward(const RnnRefShape& shape, const std::vector<RnnRefWeights>& weights,
                          const std::vector<double>& x, const std::vector<double>& hx, const std::vector<double>& cx) {
  return trace(shape, weights, x, hx, cx).out;
}

RnnRefBackward rnn_backward(const RnnRefShape& s, const std::vector<RnnRefWeights>& weights,
                            const std::vector<double>& x, const std::vector<double>& hx, const std::vector<double>& cx,
                            const std::vector<double>& dy, const std::vector<double>& dhy,
                            const std::vector<double>& dcy) {
  const Trace tr = trace(s, weights, x, hx, cx);
  const int H = s.hidden, D = s.directions(), G = gate_count(s.cell);
  RnnRefBackward out;
  out.dweights = rnn_zero_weights(s);
  out.dhx.assign(hx.size(), 0);
  out.dcx.assign(hx.size(), 0);
  // Gradient with respect to the current layer's output sequence, [n][t][H * D]; starts as dy.
  std::vector<std::vector<std::vector<double>>> d_out(s.batch, std::vector<std::vector<double>>(s.steps));
  for (int n = 0; n < s.batch; ++n)
    for (int t = 0; t < s.steps; ++t)
      d_out[n][t].assign(dy.begin() + (static_cast<std::size_t>(t) * s.batch + n) * H * D,
                         dy.begin() + (static_cast<std::size_t>(t) * s.batch + n + 1) * H * D);
  for (int l = s.layers - 1; l >= 0; --l) {
    const int I = s.layer_input(l);
    std::vector<std::vector<std::vector<double>>> d_in(s.batch,
                                                       std::vector<std::vector<double>>(s.steps, std::vector<double>(I)));
    for (int d = 0; d < D; ++d) {
      const int ld = l * D + d;
      const RnnRefWeights& w = weights[ld];
      RnnRefWeights& dw = out.dweights[ld];
      const bool skip = s.skip_input && w.W[0].empty();
      for (int n = 0; n < s.batch; ++n) {
        const auto& steps = tr.steps[l][d][n];
        std::vector<double> dh_next(dhy.begin() + state_at(s, ld, n), dhy.begin() + state_at(s, ld, n) + H);
        std::vector<double> dc_next(H, 0);
        if (s.cell == RnnCell::lstm)
          dc_next.assign(dcy.begin() + state_at(s, ld, n), dcy.begin() + state_at(s, ld, n) + H);
        for (int k = s.steps - 1; k >= 0; --k) {
          const Step& st = steps[k];
          const int t = d == 1 ? s.steps - 1 - k : k;
          std::vector<double> dh(H), dh_prev(H, 0), dc_prev(H, 0);
          for (int j = 0; j < H; ++j) dh[j] = d_out[n][t][d * H + j] + dh_next[j];
          std::vector<std::vector<double>> dpre(G, std::vector<double>(H, 0));  // gate pre-activation gradients
          std::vector<double> drh(H, 0);                                       // GRU: gradient of R_h h + bR_h
          for (int j = 0; j < H; ++j) {
            if (s.cell == RnnCell::lstm) {
              const double i = st.act[0][j], f = st.act[1][j], g = st.act[2][j], o = st.act[3][j];
              const double tc = std::tanh(st.c[j]);
              const double dc = dh[j] * o * (1 - tc * tc) + dc_next[j];
              dpre[0][j] = dc * g * i * (1 - i);
              dpre[1][j] = dc * st.c_prev[j] * f * (1 - f);
              dpre[2][j] = dc * i * (1 - g * g);
              dpre[3][j] = dh[j] * tc * o * (1 - o);
              dc_prev[j] = dc * f;
            } else if (s.cell == RnnCell::gru) {
              const double r = st.act[0][j], z = st.act[1][j], hh = st.act[2][j];
              const double dp2 = dh[j] * (1 - z) * (1 - hh * hh);
              dpre[2][j] = dp2;
              drh[j] = dp2 * r;
              dpre[0][j] = dp2 * st.rh[j] * r * (1 - r);
              dpre[1][j] = dh[j] * (st.h_prev[j] - hh) * z * (1 - z);
              dh_prev[j] += dh[j] * z;
            } else {
              const double a = st.act[0][j];
              dpre[0][j] = dh[j] * (s.cell == RnnCell::relu ? (a > 0 ? 1.0 : 0.0) : 1 - a * a);
            }
          }
          for (int g = 0; g < G; ++g) {
            // The recurrent side sees drh for GRU's h' gate (r multiplies it), dpre for every other gate.
            const std::vector<double>& dr = (s.cell == RnnCell::gru && g == 2) ? drh : dpre[g];
            for (int j = 0; j < H; ++j) {
              dw.bW[g][j] += dpre[g][j];
              dw.bR[g][j] += dr[j];
              if (skip) {
                d_in[n][t][j] += dpre[g][j];
              } else {
                for (int i = 0; i < I; ++i) {
                  dw.W[g][j * I + i] += dpre[g][j] * st.in[i];
                  d_in[n][t][i] += w.W[g][j * I + i] * dpre[g][j];
                }
              }
              for (int i = 0; i < H; ++i) {
                dw.R[g][j * H + i] += dr[j] * st.h_prev[i];
                dh_prev[i] += w.R[g][j * H + i] * dr[j];
              }
            }
          }
          dh_next = dh_prev;
          dc_next = dc_prev;
        }
        for (int j = 0; j < H; ++j) {
          out.dhx[state_at(s, ld, n) + j] = dh_next[j];
          if (s.cell == RnnCell::lstm) out.dcx[state_at(s, ld, n) + j] = dc_next[j];
        }
      }
    }
    d_out = std::move(d_in);
  }
  out.dx.assign(x.size(), 0);
  for (int t = 0; t < s.steps; ++t)
    for (int n = 0; n < s.batch; ++n)
      for (int i = 0; i < s.input; ++i) out.dx[(static_cast<std::size_t>(t) * s.batch + n) * s.input + i] = d_out[n][t][i];
  return out;
}

}  // namespace opmark::kernels
