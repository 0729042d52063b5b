// Recurrent layers through cuDNN's current RNN API (cudnnRNNForward, cudnnRNNBackwardData_v8,
// cudnnRNNBackwardWeights_v8): vanilla ReLU/tanh, LSTM, GRU; stacked, bidirectional, skip or projected input.
// Reference: the same network in float64 through cuDNN's double path, with the same weights and inputs widened;
// test/bench/rnn_gpu_test.cpp checks that path against the host reference (kernels/reference_rnn.h).
#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include "bench/families/rnn.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "bench/families/factories.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/fill.h"

namespace opmark::bench {

namespace {

cudnnRNNMode_t cell_mode(const std::string& cell) {
  if (cell == "rnn_relu") return CUDNN_RNN_RELU;
  if (cell == "rnn_tanh") return CUDNN_RNN_TANH;
  if (cell == "lstm") return CUDNN_LSTM;
  return CUDNN_GRU;
}

const char* algo_name(cudnnRNNAlgo_t a) {
  switch (a) {
    case CUDNN_RNN_ALGO_STANDARD: return "STANDARD";
    case CUDNN_RNN_ALGO_PERSIST_STATIC: return "PERSIST_STATIC";
    case CUDNN_RNN_ALGO_PERSIST_DYNAMIC: return "PERSIST_DYNAMIC";
    case CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H: return "PERSIST_STATIC_SMALL_H";
    default: return "?";
  }
}

}  // namespace

RnnNetwork::RnnNetwork(const core::RnnProblem& p, core::DType data, cudnnDataType_t math_precision,
                       cudnnMathType_t math_type, cudnnRNNAlgo_t algo)
    : problem(p), data_type(data), algo(algo) {
  cudnnHandle_t h = cudnn_handle();
  cudnnRNNDescriptor_t r = nullptr;
  OPMARK_CHECK_CUDNN(cudnnCreateRNNDescriptor(&r));
  rnn.reset(r);
  OPMARK_CHECK_CUDNN(cudnnSetRNNDescriptor_v8(
      r, algo, cell_mode(p.cell), CUDNN_RNN_DOUBLE_BIAS, p.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
      p.skip_input ? CUDNN_SKIP_INPUT : CUDNN_LINEAR_INPUT, cudnn_data_type(data), math_precision, math_type,
      static_cast<int32_t>(p.input), static_cast<int32_t>(p.hidden), static_cast<int32_t>(p.hidden),
      static_cast<int32_t>(p.layers), nullptr, CUDNN_RNN_PADDED_IO_DISABLED));
  const int n = static_cast<int>(p.batch), t = static_cast<int>(p.steps);
  std::vector<int> lengths(static_cast<std::size_t>(n), t);
  auto data_desc = [&](int vector) {
    cudnnRNNDataDescriptor_t d = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateRNNDataDescriptor(&d));
    DataDesc owner(d);
    OPMARK_CHECK_CUDNN(cudnnSetRNNDataDescriptor(d, cudnn_data_type(data), CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, t, n,
                                                 vector, lengths.data(), nullptr));
    return owner;
  };
  x_desc = data_desc(static_cast<int>(p.input));
  y_desc = data_desc(static_cast<int>(p.hidden * p.directions()));
  cudnnTensorDescriptor_t hd = nullptr;
  OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&hd));
  h_desc.reset(hd);
  const int dims[3] = {static_cast<int>(p.layers * p.directions()), n, static_cast<int>(p.hidden)};
  const int strides[3] = {dims[1] * dims[2], dims[2], 1};
  OPMARK_CHECK_CUDNN(cudnnSetTensorNdDescriptor(hd, cudnn_data_type(data), 3, dims, strides));
  if (algo == CUDNN_RNN_ALGO_PERSIST_DYNAMIC) OPMARK_CHECK_CUDNN(cudnnBuildRNNDynamic(h, r, n));
  OPMARK_CHECK_CUDNN(cudnnGetRNNWeightSpaceSize(h, r, &weight_bytes));
  OPMARK_CHECK_CUDNN(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_TRAINING, x_desc.get(), &work_bytes,
                                               &reserve_bytes));
  std::size_t inference_work = 0, unused = 0;
  OPMARK_CHECK_CUDNN(cudnnGetRNNTempSpaceSizes(h, r, CUDNN_FWD_MODE_INFERENCE, x_desc.get(), &inference_work, &unused));
  work_bytes = std::max(work_bytes, inference_work);
  const std::size_t seq = static_cast<std::size_t>(p.steps * p.batch);
  const std::size_t state = static_cast<std::size_t>(p.layers * p.directions() * p.batch * p.hidden);
  x = kernels::DeviceBuffer(data, seq * p.input);
  y = kernels::DeviceBuffer(data, seq * p.hidden * p.directions());
  dx = kernels::DeviceBuffer(data, seq * p.input);
  dy = kernels::DeviceBuffer(data, seq * p.hidden * p.directions());
  hx = kernels::DeviceBuffer(data, state);
  cx = kernels::DeviceBuffer(data, state);
  hy = kernels::DeviceBuffer(data, state);
  cy = kernels::DeviceBuffer(data, state);
  dhx = kernels::DeviceBuffer(data, state);
  dcx = kernels::DeviceBuffer(data, state);
  dhy = kernels::DeviceBuffer(data, state);
  dcy = kernels::DeviceBuffer(data, state);
  weights = kernels::DeviceBuffer(weight_bytes);
  dweights = kernels::DeviceBuffer(weight_bytes);
  work = kernels::DeviceBuffer(work_bytes);
  reserve = kernels::DeviceBuffer(reserve_bytes);
  seq_lengths = kernels::DeviceBuffer(core::DType::i32, lengths.size());
  OPMARK_CHECK_CUDA(cudaMemcpy(seq_lengths.get(), lengths.data(), lengths.size() * sizeof(int), cudaMemcpyHostToDevice));
}

std::vector<RnnNetwork::Param> RnnNetwork::params(bool gradients) const {
  cudnnHandle_t h = cudnn_handle();
  const int gates = problem.gates();
  std::vector<Param> out;
  cudnnTensorDescriptor_t m = nullptr, b = nullptr;
  OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&m));
  OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&b));
  TensorDesc m_owner(m), b_owner(b);
  const void* space = gradients ? dweights.get() : weights.get();
  for (int pseudo = 0; pseudo < static_cast<int>(problem.layers * problem.directions()); ++pseudo) {
    for (int lin = 0; lin < 2 * gates; ++lin) {
      void* m_addr = nullptr;
      void* b_addr = nullptr;
      OPMARK_CHECK_CUDNN(cudnnGetRNNWeightParams(h, rnn.get(), pseudo, weight_bytes, space, lin, m, &m_addr, b, &b_addr));
      auto count = [](cudnnTensorDescriptor_t d, void* addr) -> std::size_t {
        if (!addr) return 0;
        cudnnDataType_t type;
        int nb = 0, dims[8] = {0}, strides[8] = {0};
        OPMARK_CHECK_CUDNN(cudnnGetTensorNdDescriptor(d, 8, &type, &nb, dims, strides));
        std::size_t n = 1;
        for (int i = 0; i < nb; ++i) n *= static_cast<std::size_t>(dims[i]);
        return n;
      };
      out.push_back({pseudo, lin, false, m_addr, count(m, m_addr)});
      out.push_back({pseudo, lin, true, b_addr, count(b, b_addr)});
    }
  }
  return out;
}

void RnnNetwork::forward(bool training, cudaStream_t stream) {
  cudnnHandle_t h = cudnn_handle();
  OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
  OPMARK_CHECK_CUDNN(cudnnRNNForward(h, rnn.get(), training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE,
                                     seq_lengths.as<int32_t>(), x_desc.get(), x.get(), y_desc.get(), y.get(),
                                     h_desc.get(), hx.get(), hy.get(), h_desc.get(), cx.get(), cy.get(), weight_bytes,
                                     weights.get(), work_bytes, work.get(), reserve_bytes, reserve.get()));
}

void RnnNetwork::backward_data(cudaStream_t stream) {
  cudnnHandle_t h = cudnn_handle();
  OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
  OPMARK_CHECK_CUDNN(cudnnRNNBackwardData_v8(h, rnn.get(), seq_lengths.as<int32_t>(), y_desc.get(), y.get(), dy.get(),
                                             x_desc.get(), dx.get(), h_desc.get(), hx.get(), dhy.get(), dhx.get(),
                                             h_desc.get(), cx.get(), dcy.get(), dcx.get(), weight_bytes, weights.get(),
                                             work_bytes, work.get(), reserve_bytes, reserve.get()));
}

void RnnNetwork::backward_weights(cudaStream_t stream) {
  cudnnHandle_t h = cudnn_handle();
  OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
  OPMARK_CHECK_CUDNN(cudnnRNNBackwardWeights_v8(h, rnn.get(), CUDNN_WGRAD_MODE_ADD, seq_lengths.as<int32_t>(),
                                                x_desc.get(), x.get(), h_desc.get(), hx.get(), y_desc.get(), y.get(),
                                                weight_bytes, dweights.get(), work_bytes, work.get(), reserve_bytes,
                                                reserve.get()));
}

void RnnNetwork::zero_weight_gradients(cudaStream_t stream) {
  OPMARK_CHECK_CUDA(cudaMemsetAsync(dweights.get(), 0, weight_bytes, stream));
}

namespace {

// Random inputs, states and output gradients; weights uniform in +-1/sqrt(hidden) (PyTorch's initialisation), so a
// 1500-step ReLU recurrence neither explodes nor vanishes into zeros.
void fill_network(RnnNetwork& net, std::uint64_t seed, cudaStream_t stream) {
  const auto& p = net.problem;
  const core::DType t = net.data_type;
  auto fill = [&](kernels::DeviceBuffer& b, std::uint64_t s) {
    kernels::fill_random(b.get(), b.bytes() / core::size_of(t), t, s, stream);
  };
  fill(net.x, seed);
  fill(net.hx, seed + 1);
  fill(net.cx, seed + 2);
  fill(net.dy, seed + 3);
  fill(net.dhy, seed + 4);
  fill(net.dcy, seed + 5);
  const double scale = 1.0 / std::sqrt(static_cast<double>(p.hidden));
  std::uint64_t k = seed + 100;
  for (const auto& param : net.params(false))
    if (param.count) kernels::fill_uniform(param.addr, param.count, t, k++, -scale, scale, stream);
}

// Copies every parameter of `src` (weights or their gradients) into `dst`'s matching parameter, widening to float64.
void widen_params(const RnnNetwork& src, bool gradients, RnnNetwork& dst, cudaStream_t stream) {
  const auto from = src.params(gradients), to = dst.params(gradients);
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i].count) kernels::to_double(from[i].addr, src.data_type, from[i].count, static_cast<double*>(to[i].addr), stream);
}

// Every parameter of `net` (weights or gradients) gathered into one float64 array, in one fixed order.
kernels::DeviceBuffer gather_params(const RnnNetwork& net, bool gradients, std::size_t* total, cudaStream_t stream) {
  const auto params = net.params(gradients);
  *total = 0;
  for (const auto& p : params) *total += p.count;
  kernels::DeviceBuffer out(core::DType::f64, *total);
  std::size_t at = 0;
  for (const auto& p : params) {
    if (!p.count) continue;
    kernels::to_double(p.addr, net.data_type, p.count, out.as<double>() + at, stream);
    at += p.count;
  }
  return out;
}

class RnnWorkload final : public Workload {
 public:
  RnnWorkload(const core::Case& c, const RunContext& ctx)
      : direction_(c.direction), precision_(c.precision), prec_(core::precision_info(c.precision)),
        p_(core::rnn_problem(c)) {
    const cudnnMathType_t math = precision_ == "fp32" ? CUDNN_FMA_MATH
                                 : precision_ == "tf32" ? CUDNN_DEFAULT_MATH
                                                        : CUDNN_TENSOR_OP_MATH;
    // The persistent algorithms compete in the forward directions only: their backward calls gave wrong gradients
    // against the float64 reference on an H200 with cuDNN 9.14 (fp16, tf32, bf16; small shapes in
    // test/bench/rnn_gpu_test.cpp), even with the reserve and work space restored. A backward call runs on the
    // reserve space its own network's training forward filled, so each candidate network prepares its own.
    std::vector<cudnnRNNAlgo_t> algos = {CUDNN_RNN_ALGO_STANDARD};
    if (!backward()) {
      algos.push_back(CUDNN_RNN_ALGO_PERSIST_STATIC);
      algos.push_back(CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H);
    }
    for (cudnnRNNAlgo_t a : algos) {
      try {
        nets_.push_back(std::make_unique<RnnNetwork>(p_, prec_.input, CUDNN_DATA_FLOAT, math, a));
        fill_network(*nets_.back(), ctx.seed, ctx.stream);
      } catch (const UnsupportedError& e) {
        if (a == CUDNN_RNN_ALGO_STANDARD) throw;  // the standard algorithm must exist for the case to run
        skipped_ += std::string(skipped_.empty() ? "" : "; ") + algo_name(a) + ": " + e.what();
      }
    }
    // The backward directions time one call after the training forward that prepares it. cuDNN's backward calls
    // rewrite the reserve space they read, so a second call on the same reserve computes garbage, and the
    // persistent algorithms also carry state in the work space: both, as the preparation left them, are kept and
    // restored, untimed, before each launch (before_launch).
    if (backward()) {
      for (std::size_t i = 0; i < nets_.size(); ++i) {
        RnnNetwork& net = *nets_[i];
        try {
          net.forward(true, ctx.stream);
          if (direction_ == "bwd_weights") net.backward_data(ctx.stream);
        } catch (const UnsupportedError& e) {
          if (i == 0) throw;
          skipped_ += std::string(skipped_.empty() ? "" : "; ") + algo_name(net.algo) + ": " + e.what();
          nets_.resize(i);  // the persistent algorithms come last: drop this one and any after it
          break;
        }
        prepared_reserves_.emplace_back(net.reserve_bytes);
        prepared_work_.emplace_back(net.work_bytes);
        OPMARK_CHECK_CUDA(cudaMemcpyAsync(prepared_reserves_.back().get(), net.reserve.get(), net.reserve_bytes,
                                          cudaMemcpyDeviceToDevice, ctx.stream));
        OPMARK_CHECK_CUDA(cudaMemcpyAsync(prepared_work_.back().get(), net.work.get(), net.work_bytes,
                                          cudaMemcpyDeviceToDevice, ctx.stream));
      }
    }
  }

  void launch(cudaStream_t stream) override { run(chosen(), stream); }

  // The algorithms cuDNN offers for the case; the standard one is what a user who picks none gets.
  int candidate_count() const override { return static_cast<int>(nets_.size()); }
  std::string candidate_name(int i) const override {
    return std::string("cuDNN RNN ") + algo_name(nets_[static_cast<std::size_t>(i)]->algo);
  }

  bool needs_before_launch() const override { return backward(); }
  void before_launch(cudaStream_t stream) override { restore_reserve(chosen(), stream); }

  kernels::CompareResult verify(cudaStream_t stream) override {
    RnnNetwork& net = *nets_[static_cast<std::size_t>(chosen())];
    if (backward()) before_launch(stream);
    RnnNetwork ref(p_, core::DType::f64, CUDNN_DATA_DOUBLE, CUDNN_DEFAULT_MATH, CUDNN_RNN_ALGO_STANDARD);
    for (auto [from, to] : {std::pair{&net.x, &ref.x}, {&net.hx, &ref.hx}, {&net.cx, &ref.cx}, {&net.dy, &ref.dy},
                            {&net.dhy, &ref.dhy}, {&net.dcy, &ref.dcy}})
      kernels::to_double(from->get(), net.data_type, from->bytes() / core::size_of(net.data_type), to->as<double>(),
                         stream);
    widen_params(net, false, ref, stream);
    ref.forward(direction_ != "fwd", stream);
    if (direction_ == "bwd_data" || direction_ == "bwd_weights") ref.backward_data(stream);
    if (direction_ == "bwd_weights") {
      ref.zero_weight_gradients(stream);
      ref.backward_weights(stream);
    }

    // Rounding compounds through the unrolled network: every output depends on steps x layers products of hidden
    // terms (the elementwise tolerance grows with that depth, the norm bound stays the precision's).
    const double depth = double(p_.hidden) * double(p_.steps) * double(p_.layers);
    double tolerance = core::depth_tolerance(prec_.tolerance, depth), norm_tolerance = prec_.tolerance;
    // Gradients are held to a norm bound only: through ReLU's kink, a rounded forward flips the sign of some
    // pre-activations and with it whole gradient entries, and the recurrence amplifies rounding further back in
    // time. Seen on an H200: a 20-step ReLU RNN in fp16/bf16/tf32 with 1-2% of its gradient entries off by O(1)
    // (rel norm error 0.6-3.8%), and DeepBench's 50-step ReLU RNNs even in fp32 (0.01-1% of the entries, rel norm
    // error up to 4e-4). Garbage, zeros and unwritten (poisoned, non-finite) elements still fail.
    if (backward()) {
      tolerance = std::numeric_limits<double>::infinity();
      norm_tolerance = core::kToleranceGrowthCap * prec_.tolerance;
    }
    const std::size_t seq_out = static_cast<std::size_t>(p_.steps * p_.batch * p_.hidden * p_.directions());
    const std::size_t seq_in = static_cast<std::size_t>(p_.steps * p_.batch * p_.input);
    if (direction_ == "fwd" || direction_ == "fwd_train") {
      kernels::poison(net.y.get(), seq_out, net.data_type, stream);
      launch(stream);
      return kernels::compare_to_reference(net.y.get(), net.data_type, ref.y.as<double>(), seq_out, tolerance, stream,
                                           norm_tolerance);
    }
    if (direction_ == "bwd_data") {
      kernels::poison(net.dx.get(), seq_in, net.data_type, stream);
      launch(stream);
      return kernels::compare_to_reference(net.dx.get(), net.data_type, ref.dx.as<double>(), seq_in, tolerance,
                                           stream, norm_tolerance);
    }
    net.zero_weight_gradients(stream);  // backward_weights adds into them
    launch(stream);
    std::size_t n = 0, n_ref = 0;
    kernels::DeviceBuffer got = gather_params(net, true, &n, stream);
    kernels::DeviceBuffer want = gather_params(ref, true, &n_ref, stream);
    if (n != n_ref) throw Error("rnn: the float64 network has another parameter count");
    return kernels::compare_to_reference(got.get(), core::DType::f64, want.as<double>(), n, tolerance, stream,
                                         norm_tolerance);
  }

  std::string label() const override {
    char buf[256];
    std::snprintf(buf, sizeof buf, "in %s, compute %s, out %s", core::name_of(prec_.input), prec_.compute,
                  core::name_of(prec_.input));
    std::string out = buf;
    if (!skipped_.empty()) out += " | not available: " + skipped_;
    return out;
  }

 private:
  void run(int i, cudaStream_t stream) {
    RnnNetwork& net = *nets_[i];
    if (direction_ == "fwd") net.forward(false, stream);
    else if (direction_ == "fwd_train") net.forward(true, stream);
    else if (direction_ == "bwd_data") net.backward_data(stream);
    else net.backward_weights(stream);
  }

  bool backward() const { return direction_ == "bwd_data" || direction_ == "bwd_weights"; }

  void restore_reserve(int i, cudaStream_t stream) {
    RnnNetwork& net = *nets_[static_cast<std::size_t>(i)];
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(net.reserve.get(), prepared_reserves_[static_cast<std::size_t>(i)].get(),
                                      net.reserve_bytes, cudaMemcpyDeviceToDevice, stream));
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(net.work.get(), prepared_work_[static_cast<std::size_t>(i)].get(),
                                      net.work_bytes, cudaMemcpyDeviceToDevice, stream));
  }

  std::string direction_, precision_;
  const core::PrecisionInfo& prec_;
  core::RnnProblem p_;
  std::vector<std::unique_ptr<RnnNetwork>> nets_;
  // Backward directions: each network's reserve space as its preparation left it.
  std::vector<kernels::DeviceBuffer> prepared_reserves_, prepared_work_;
  std::string skipped_;
};

}  // namespace

const WorkloadFactory make_rnn_workload = construct_workload<RnnWorkload>;

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
