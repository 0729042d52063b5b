// The host RNN reference: its backward pass is the gradient of its forward pass (central differences), for every
// cell, stacked and bidirectional, skip-input and projected; and a hand-computed step for each cell.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "kernels/reference_rnn.h"

using namespace opmark::kernels;

namespace {

std::vector<double> random_vector(std::size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

void randomize(std::vector<RnnRefWeights>& ws, std::mt19937& rng) {
  for (auto& w : ws)
    for (auto* group : {&w.W, &w.R, &w.bW, &w.bR})
      for (auto& m : *group) m = random_vector(m.size(), rng);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

struct Problem {
  RnnRefShape shape;
  std::vector<RnnRefWeights> w;
  std::vector<double> x, hx, cx, gy, gh, gc;
  double loss() const {
    RnnRefForward f = rnn_forward(shape, w, x, hx, cx);
    double l = dot(f.y, gy) + dot(f.hy, gh);
    if (shape.cell == RnnCell::lstm) l += dot(f.cy, gc);
    return l;
  }
};

Problem make_problem(RnnCell cell, int layers, bool bidir, bool skip, unsigned seed) {
  std::mt19937 rng(seed);
  Problem p;
  p.shape.cell = cell;
  p.shape.hidden = 3;
  p.shape.input = skip ? 3 : 4;
  p.shape.batch = 2;
  p.shape.steps = 3;
  p.shape.layers = layers;
  p.shape.bidirectional = bidir;
  p.shape.skip_input = skip;
  p.w = rnn_zero_weights(p.shape);
  randomize(p.w, rng);
  const std::size_t states = static_cast<std::size_t>(layers) * p.shape.directions() * 2 * 3;
  p.x = random_vector(static_cast<std::size_t>(3) * 2 * p.shape.input, rng);
  p.hx = random_vector(states, rng);
  p.cx = random_vector(states, rng);
  p.gy = random_vector(static_cast<std::size_t>(3) * 2 * 3 * p.shape.directions(), rng);
  p.gh = random_vector(states, rng);
  p.gc = random_vector(states, rng);
  return p;
}

// Checks every element of `analytic` against central differences of the loss in the values `target` points at.
void expect_gradient(Problem& p, std::vector<double>& target, const std::vector<double>& analytic,
                     const std::string& what) {
  ASSERT_EQ(target.size(), analytic.size()) << what;
  const double eps = 1e-6;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const double keep = target[i];
    target[i] = keep + eps;
    const double up = p.loss();
    target[i] = keep - eps;
    const double down = p.loss();
    target[i] = keep;
    const double numeric = (up - down) / (2 * eps);
    EXPECT_NEAR(analytic[i], numeric, 1e-6 * (1 + std::fabs(numeric))) << what << " element " << i;
  }
}

}  // namespace

TEST(ReferenceRnn, BackwardIsTheGradientOfForward) {
  unsigned seed = 1;
  for (RnnCell cell : {RnnCell::relu, RnnCell::tanh, RnnCell::lstm, RnnCell::gru})
    for (int layers : {1, 2})
      for (bool bidir : {false, true})
        for (bool skip : {false, true}) {
          SCOPED_TRACE(::testing::Message() << "cell " << static_cast<int>(cell) << " layers " << layers << " bidir "
                                            << bidir << " skip " << skip);
          Problem p = make_problem(cell, layers, bidir, skip, seed++);
          RnnRefBackward b = rnn_backward(p.shape, p.w, p.x, p.hx, p.cx, p.gy, p.gh, p.gc);
          expect_gradient(p, p.x, b.dx, "dx");
          expect_gradient(p, p.hx, b.dhx, "dhx");
          if (cell == RnnCell::lstm) expect_gradient(p, p.cx, b.dcx, "dcx");
          for (std::size_t k = 0; k < p.w.size(); ++k) {
            const int gates = gate_count(cell);
            for (int g = 0; g < gates; ++g) {
              expect_gradient(p, p.w[k].W[g], b.dweights[k].W[g], "dW");
              expect_gradient(p, p.w[k].R[g], b.dweights[k].R[g], "dR");
              expect_gradient(p, p.w[k].bW[g], b.dweights[k].bW[g], "dbW");
              expect_gradient(p, p.w[k].bR[g], b.dweights[k].bR[g], "dbR");
            }
          }
        }
}

TEST(ReferenceRnn, OneStepByHand) {
  // hidden 1, input 1, one step: the cell equations written out.
  RnnRefShape s;
  s.hidden = s.input = s.batch = s.steps = 1;
  const double x = 0.5, h0 = -0.25, c0 = 0.75;
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (RnnCell cell : {RnnCell::relu, RnnCell::tanh, RnnCell::lstm, RnnCell::gru}) {
    s.cell = cell;
    auto w = rnn_zero_weights(s);
    for (int g = 0; g < gate_count(cell); ++g) {
      w[0].W[g][0] = 0.1 * (g + 1);
      w[0].R[g][0] = -0.2 * (g + 1);
      w[0].bW[g][0] = 0.05;
      w[0].bR[g][0] = -0.03;
    }
    auto pre = [&](int g) { return 0.1 * (g + 1) * x + 0.05 - 0.2 * (g + 1) * h0 - 0.03; };
    double expected;
    if (cell == RnnCell::relu) expected = std::max(0.0, pre(0));
    else if (cell == RnnCell::tanh) expected = std::tanh(pre(0));
    else if (cell == RnnCell::lstm) {
      const double c = sig(pre(1)) * c0 + sig(pre(0)) * std::tanh(pre(2));
      expected = sig(pre(3)) * std::tanh(c);
    } else {
      const double r = sig(pre(0)), z = sig(pre(1));
      const double hh = std::tanh(0.3 * x + 0.05 + r * (-0.6 * h0 - 0.03));
      expected = (1 - z) * hh + z * h0;
    }
    RnnRefForward f = rnn_forward(s, w, {x}, {h0}, {c0});
    EXPECT_NEAR(f.y[0], expected, 1e-15) << static_cast<int>(cell);
    EXPECT_NEAR(f.hy[0], expected, 1e-15);
  }
}
