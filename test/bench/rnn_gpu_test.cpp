// RNNs through cuDNN on the GPU. First the reference: cuDNN's float64 network must agree with the host reference
// (kernels/reference_rnn.h, written from the cell equations) in every output and gradient. Then every direction
// and precision of the benchmark verified against that float64 network on small shapes.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "bench/harness/harness.h"
#include "core/case.h"
#include "kernels/cuda_check.h"
#include "kernels/fill.h"
#include "kernels/reference_rnn.h"

#ifdef OPMARK_HAVE_CUDNN
#include "bench/families/rnn.h"

using namespace opmark;

namespace {

std::vector<double> download(const kernels::DeviceBuffer& b) {
  std::vector<double> out(b.bytes() / sizeof(double));
  OPMARK_CHECK_CUDA(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<double> download(const void* p, std::size_t n) {
  std::vector<double> out(n);
  OPMARK_CHECK_CUDA(cudaMemcpy(out.data(), p, n * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-9 * (1 + std::fabs(want[i]))) << what << " " << i;
}

kernels::RnnCell ref_cell(const std::string& cell) {
  if (cell == "rnn_relu") return kernels::RnnCell::relu;
  if (cell == "rnn_tanh") return kernels::RnnCell::tanh;
  if (cell == "lstm") return kernels::RnnCell::lstm;
  return kernels::RnnCell::gru;
}

}  // namespace

TEST(RnnReference, CudnnFloat64MatchesTheHostReference) {
  OPMARK_REQUIRE_GPU();
  for (const std::string cell : {"rnn_relu", "rnn_tanh", "lstm", "gru"}) {
    for (const bool skip : {false, true}) {
      core::RnnProblem p;
      p.cell = cell;
      p.hidden = 5;
      p.input = skip ? 5 : 3;
      p.batch = 2;
      p.steps = 4;
      p.layers = 2;
      p.bidirectional = true;
      p.skip_input = skip;
      SCOPED_TRACE(cell + (skip ? " skip" : " linear"));
      bench::RnnNetwork net(p, core::DType::f64, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, CUDNN_RNN_ALGO_STANDARD);
      std::uint64_t seed = 1;
      for (auto* b : {&net.x, &net.hx, &net.cx, &net.dy, &net.dhy, &net.dcy, &net.weights})
        kernels::fill_uniform(b->get(), b->bytes() / sizeof(double), core::DType::f64, seed++, -0.5, 0.5, nullptr);
      net.forward(true, nullptr);
      net.backward_data(nullptr);
      net.zero_weight_gradients(nullptr);
      net.backward_weights(nullptr);
      OPMARK_CHECK_CUDA(cudaDeviceSynchronize());

      kernels::RnnRefShape s;
      s.cell = ref_cell(cell);
      s.hidden = 5, s.input = static_cast<int>(p.input), s.batch = 2, s.steps = 4, s.layers = 2;
      s.bidirectional = true, s.skip_input = skip;
      auto w = kernels::rnn_zero_weights(s);
      const int gates = kernels::gate_count(s.cell);
      const auto params = net.params(false), grads = net.params(true);
      for (const auto& prm : params) {
        auto& lw = w[prm.pseudo_layer];
        const int g = prm.lin_layer % gates;
        const bool recurrent = prm.lin_layer >= gates;
        std::vector<double>& dst = prm.is_bias ? (recurrent ? lw.bR[g] : lw.bW[g]) : (recurrent ? lw.R[g] : lw.W[g]);
        ASSERT_EQ(dst.size(), prm.count) << "layout of pseudo-layer " << prm.pseudo_layer << " lin " << prm.lin_layer;
        if (prm.count) dst = download(prm.addr, prm.count);
      }
      const auto x = download(net.x), hx = download(net.hx), cx = download(net.cx);
      const auto f = kernels::rnn_forward(s, w, x, hx, cx);
      expect_close(download(net.y), f.y, "y");
      expect_close(download(net.hy), f.hy, "hy");
      if (cell == "lstm") expect_close(download(net.cy), f.cy, "cy");
      const auto b = kernels::rnn_backward(s, w, x, hx, cx, download(net.dy), download(net.dhy), download(net.dcy));
      expect_close(download(net.dx), b.dx, "dx");
      expect_close(download(net.dhx), b.dhx, "dhx");
      if (cell == "lstm") expect_close(download(net.dcx), b.dcx, "dcx");
      for (const auto& prm : grads) {
        if (!prm.count) continue;
        const auto& lw = b.dweights[prm.pseudo_layer];
        const int g = prm.lin_layer % gates;
        const bool recurrent = prm.lin_layer >= gates;
        const std::vector<double>& want = prm.is_bias ? (recurrent ? lw.bR[g] : lw.bW[g]) : (recurrent ? lw.R[g] : lw.W[g]);
        expect_close(download(prm.addr, prm.count), want, "gradient of pseudo-layer " + std::to_string(prm.pseudo_layer) +
                                                              " lin " + std::to_string(prm.lin_layer));
      }
    }
  }
}

class RnnCase : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RnnCase, VerifiedOnSmallShapes) {
  OPMARK_REQUIRE_GPU();
  const auto [direction, precision] = GetParam();
  bench::Options options;
  cudaStream_t stream;
  OPMARK_CHECK_CUDA(cudaStreamCreate(&stream));
  for (const std::string cell : {"rnn_relu", "rnn_tanh", "lstm", "gru"}) {
    for (const bool deep : {false, true}) {
      std::map<std::string, core::FieldValue> f = {{"cell", cell}, {"hidden", std::int64_t{64}},
                                                   {"batch", std::int64_t{8}}, {"steps", std::int64_t{20}}};
      if (deep) {
        f["input"] = std::int64_t{48};
        f["layers"] = std::int64_t{2};
        f["bidir"] = std::string("yes");
        f["input_mode"] = std::string("linear");
      }
      test::expect_verified(core::make_case("rnn", direction, precision, f), &bench::make_workload, options,
                            stream, /*unsupported_ok=*/true);
    }
  }
  OPMARK_CHECK_CUDA(cudaStreamDestroy(stream));
}

const std::vector<std::string> kDirections = {"fwd", "fwd_train", "bwd_data", "bwd_weights"};
const std::vector<std::string> kPrecisions = {"fp32", "tf32", "fp16", "bf16"};
INSTANTIATE_TEST_SUITE_P(AllDirectionsAndPrecisions, RnnCase,
                         ::testing::Combine(::testing::ValuesIn(kDirections), ::testing::ValuesIn(kPrecisions)),
                         test::DirectionPrecisionName());
#endif
