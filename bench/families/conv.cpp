// Convolution through cuDNN: fwd, bwd_data and bwd_filter, 2D and 3D, grouped, dilated, NCHW or NHWC.
// Candidates come from both of cuDNN's APIs: the graph API's engine configurations (heuristic mode A, then the
// fallback list, as PyTorch's cudnn.benchmark sees them) and the legacy API's ranked algorithms. The harness's
// tuner times every candidate within the workspace limit and keeps the fastest; the graph heuristic's first choice
// (the first candidate) is the default, so the label shows what autotuning buys (Benanza's analysis).
#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/families/cudnn_graph.h"
#include "bench/families/cudnn_util.h"
#include "bench/families/factories.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/reference_conv.h"

namespace opmark::bench {
namespace {

// What a legacy-API candidate's name starts with ("legacy implicit_gemm tensor_op").
const std::string kLegacyPrefix = "legacy ";

using kernels::ConvDirection;
using kernels::DeviceBuffer;

const char* algo_name(ConvDirection dir, int algo) {
  static const char* fwd[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                              "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char* data[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  static const char* filter[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  switch (dir) {
    case ConvDirection::fwd: return algo >= 0 && algo < 8 ? fwd[algo] : "?";
    case ConvDirection::bwd_data: return algo >= 0 && algo < 6 ? data[algo] : "?";
    case ConvDirection::bwd_filter: return algo >= 0 && algo < 7 ? filter[algo] : "?";
  }
  return "?";
}

const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH: return "default math";
    case CUDNN_TENSOR_OP_MATH: return "tensor op math";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor op math with conversion";
    case CUDNN_FMA_MATH: return "FMA math";
  }
  return "?";
}

ConvDirection direction_of(const std::string& d) {
  if (d == "fwd") return ConvDirection::fwd;
  if (d == "bwd_data") return ConvDirection::bwd_data;
  return ConvDirection::bwd_filter;
}

struct Candidate {
  int algo;  // legacy algorithm, or -1 for a graph plan
  cudnnMathType_t math;
  std::size_t workspace;
  int graph_plan = -1;  // index into the workload's graph plans
};

// The heuristic's ranked list for the direction (every algorithm, best guess first), as candidates.
template <class Perf, class Query>
std::vector<Candidate> ranked(int max_count, Query query) {
  std::vector<Perf> perf(static_cast<std::size_t>(std::max(max_count, 1)));
  int returned = 0;
  OPMARK_CHECK_CUDNN(query(static_cast<int>(perf.size()), &returned, perf.data()));
  std::vector<Candidate> out;
  for (int i = 0; i < returned; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS)
      out.push_back({static_cast<int>(perf[i].algo), perf[i].mathType, perf[i].memory, -1});
  return out;
}

class ConvWorkload final : public Workload {
 public:
  ConvWorkload(const core::Case& c, const RunContext& ctx)
      : dir_(direction_of(c.direction)), precision_(c.precision), prec_(core::precision_info(c.precision)),
        p_(core::conv_problem(c)) {
    const bool int8 = precision_ == "int8";
    // cuDNN's int8 convolutions take NHWC only; the problem is the same, the label says how it was stored.
    nhwc_ = p_.nhwc || int8;
    if (int8 && !p_.nhwc) layout_note_ = "stored NHWC: cuDNN's int8 convolutions take NHWC only";
    x_type_ = f_type_ = prec_.input;
    y_type_ = int8 ? core::DType::f32 : prec_.input;  // int8 in, float out (cuDNN's INT8_EXT_CONFIG)
    tolerance_ = int8 ? 1e-6 : prec_.tolerance;         // exact int32 sums, rounded once to float

    x_ = DeviceBuffer(x_type_, p_.elements_x());
    f_ = DeviceBuffer(f_type_, p_.elements_filter());
    y_ = DeviceBuffer(y_type_, p_.elements_y());
    // Random operands for the direction; the tensor it produces is poisoned before verification.
    if (dir_ != ConvDirection::bwd_data) kernels::fill_random(x_.get(), p_.elements_x(), x_type_, ctx.seed, ctx.stream);
    if (dir_ != ConvDirection::bwd_filter)
      kernels::fill_random(f_.get(), p_.elements_filter(), f_type_, ctx.seed + 1, ctx.stream);
    if (dir_ != ConvDirection::fwd) kernels::fill_random(y_.get(), p_.elements_y(), y_type_, ctx.seed + 2, ctx.stream);

    describe();
    list_candidates(ctx);
  }

  void launch(cudaStream_t stream) override { run(chosen(), stream); }

  int candidate_count() const override { return static_cast<int>(candidates_.size()); }
  std::string candidate_name(int i) const override { return candidate_name(candidates_[static_cast<std::size_t>(i)]); }

  kernels::CompareResult verify(cudaStream_t stream) override {
    kernels::ConvRefShape g{};
    g.n = p_.n, g.c = p_.run_c, g.d = p_.d, g.h = p_.run_h, g.w = p_.run_w, g.k = p_.k, g.t = p_.t, g.r = p_.r;
    g.s = p_.s, g.o = p_.o, g.p = p_.p, g.q = p_.q;
    g.pad_d = p_.pad_d, g.pad_h = p_.pad_h, g.pad_w = p_.pad_w;
    g.stride_d = p_.stride_d, g.stride_h = p_.stride_h, g.stride_w = p_.stride_w;
    g.dil_h = p_.dil_h, g.dil_w = p_.dil_w, g.groups = p_.groups;
    g.x_stride = kernels::dense_strides(p_.n, p_.run_c, p_.d, p_.run_h, p_.run_w, nhwc_);
    g.f_stride = kernels::dense_strides(p_.k, p_.run_c / p_.groups, p_.t, p_.r, p_.s, nhwc_);
    g.y_stride = kernels::dense_strides(p_.n, p_.k, p_.o, p_.p, p_.q, nhwc_);
    const auto [out, out_type, count] = produced();
    DeviceBuffer ref(core::DType::f64, count);
    kernels::reference_conv(dir_, g, x_.get(), x_type_, f_.get(), f_type_, y_.get(), y_type_, ref.as<double>(),
                            stream);
    kernels::poison(out, count, out_type, stream);
    launch(stream);
    // Each result element sums this many products: fwd over C/groups x T x R x S, bwd_data over the filters that
    // touch an input element (K/groups x T x R x S at most), bwd_filter over N x O x P x Q.
    const double depth =
        dir_ == ConvDirection::fwd        ? double(p_.run_c / p_.groups) * double(p_.t * p_.r * p_.s)
        : dir_ == ConvDirection::bwd_data ? double(p_.k / p_.groups) * double(p_.t * p_.r * p_.s)
                                          : double(p_.n) * double(p_.o * p_.p * p_.q);
    return kernels::compare_to_reference(out, out_type, ref.as<double>(), count,
                                         core::depth_tolerance(tolerance_, depth), stream, tolerance_);
  }

  std::string label() const override {
    char buf[512];
    std::snprintf(buf, sizeof buf, "cuDNN | in %s, compute %s, out %s | %s", core::name_of(x_type_),
                  precision_ == "int8" ? "int32" : prec_.compute, core::name_of(y_type_), nhwc_ ? "NHWC" : "NCHW");
    std::string out = buf;
    if (p_.is_padded())
      out += " | padded to c=" + std::to_string(p_.run_c) + " h=" + std::to_string(p_.run_h) +
             " w=" + std::to_string(p_.run_w);
    if (!layout_note_.empty()) out += " | " + layout_note_;
    if (!graph_excluded_.empty()) out += " | graph engines left out: " + graph_excluded_;
    return out;
  }

  std::map<std::string, double> counters() const override {
    return {{core::counter::graph_api, candidates_[static_cast<std::size_t>(chosen())].graph_plan >= 0 ? 1.0 : 0.0},
            {core::counter::workspace_mib, static_cast<double>(workspace_.bytes()) / (1 << 20)},
            {core::counter::padded, p_.is_padded() ? 1.0 : 0.0}};
  }

 private:
  struct Produced {
    void* ptr;
    core::DType type;
    std::size_t count;
  };
  Produced produced() const {
    switch (dir_) {
      case ConvDirection::fwd: return {y_.get(), y_type_, static_cast<std::size_t>(p_.elements_y())};
      case ConvDirection::bwd_data: return {x_.get(), x_type_, static_cast<std::size_t>(p_.elements_x())};
      case ConvDirection::bwd_filter: return {f_.get(), f_type_, static_cast<std::size_t>(p_.elements_filter())};
    }
    return {nullptr, y_type_, 0};
  }

  TensorDesc tensor(core::DType type, std::int64_t n, std::int64_t c, std::int64_t d, std::int64_t h,
                    std::int64_t w) const {
    cudnnTensorDescriptor_t t = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateTensorDescriptor(&t));
    TensorDesc owner(t);
    const auto st = kernels::dense_strides(n, c, d, h, w, nhwc_);
    if (dims_ == 5) {
      const int dim[5] = {int(n), int(c), int(d), int(h), int(w)};
      const int str[5] = {int(st[0]), int(st[1]), int(st[2]), int(st[3]), int(st[4])};
      OPMARK_CHECK_CUDNN(cudnnSetTensorNdDescriptor(t, cudnn_data_type(type), 5, dim, str));
    } else {
      const int dim[4] = {int(n), int(c), int(h), int(w)};
      const int str[4] = {int(st[0]), int(st[1]), int(st[3]), int(st[4])};
      OPMARK_CHECK_CUDNN(cudnnSetTensorNdDescriptor(t, cudnn_data_type(type), 4, dim, str));
    }
    return owner;
  }

  void describe() {
    dims_ = (p_.d > 1 || p_.t > 1) ? 5 : 4;
    x_desc_ = tensor(x_type_, p_.n, p_.run_c, p_.d, p_.run_h, p_.run_w);
    y_desc_ = tensor(y_type_, p_.n, p_.k, p_.o, p_.p, p_.q);
    cudnnFilterDescriptor_t f = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateFilterDescriptor(&f));
    f_desc_.reset(f);
    const int cg = int(p_.run_c / p_.groups);
    const int fdim5[5] = {int(p_.k), cg, int(p_.t), int(p_.r), int(p_.s)};
    const int fdim4[4] = {int(p_.k), cg, int(p_.r), int(p_.s)};
    OPMARK_CHECK_CUDNN(cudnnSetFilterNdDescriptor(f, cudnn_data_type(f_type_),
                                                  nhwc_ ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                  dims_, dims_ == 5 ? fdim5 : fdim4));
    cudnnConvolutionDescriptor_t cv = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&cv));
    conv_desc_.reset(cv);
    const int pad5[3] = {int(p_.pad_d), int(p_.pad_h), int(p_.pad_w)};
    const int str5[3] = {int(p_.stride_d), int(p_.stride_h), int(p_.stride_w)};
    const int dil5[3] = {1, int(p_.dil_h), int(p_.dil_w)};
    const int off = dims_ == 5 ? 0 : 1;  // 2D: the last two of each
    const cudnnDataType_t compute = precision_ == "int8" ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
    OPMARK_CHECK_CUDNN(cudnnSetConvolutionNdDescriptor(cv, dims_ - 2, pad5 + off, str5 + off, dil5 + off,
                                                       CUDNN_CROSS_CORRELATION, compute));
    OPMARK_CHECK_CUDNN(cudnnSetConvolutionGroupCount(cv, int(p_.groups)));
    OPMARK_CHECK_CUDNN(cudnnSetConvolutionMathType(cv, requested_math()));
    // cuDNN's idea of the output must be ours, or the FLOP counts and the reference would describe another problem.
    int out[5] = {0};
    OPMARK_CHECK_CUDNN(cudnnGetConvolutionNdForwardOutputDim(cv, x_desc_.get(), f, dims_, out));
    const int want5[5] = {int(p_.n), int(p_.k), int(p_.o), int(p_.p), int(p_.q)};
    const int want4[4] = {int(p_.n), int(p_.k), int(p_.p), int(p_.q)};
    if (!std::equal(out, out + dims_, dims_ == 5 ? want5 : want4))
      throw Error("cuDNN computes another output size than opmark for this convolution");
  }

  // fp32 must not use TF32 Tensor Cores (cuDNN's default math allows them on Ampere and newer); tf32 is exactly that.
  cudnnMathType_t requested_math() const {
    if (precision_ == "fp32") return CUDNN_FMA_MATH;
    if (precision_ == "tf32") return CUDNN_DEFAULT_MATH;
    return CUDNN_TENSOR_OP_MATH;
  }

  std::string candidate_name(const Candidate& c) const {
    if (c.graph_plan >= 0) return graph_plans_[static_cast<std::size_t>(c.graph_plan)].name;
    return kLegacyPrefix + algo_name(dir_, c.algo) + " " + math_name(c.math);
  }

  // The node as cuDNN's graph API describes it: the same tensors, strides and convolution as the legacy descriptors.
  ConvGraphSpec graph_spec() const {
    ConvGraphSpec g;
    g.direction = dir_;
    auto dims = [&](core::DType type, std::int64_t a, std::int64_t b, std::int64_t d, std::int64_t h,
                    std::int64_t w) {
      const auto st = kernels::dense_strides(a, b, d, h, w, nhwc_);
      GraphTensor t{cudnn_data_type(type), {a, b, d, h, w}, {st[0], st[1], st[2], st[3], st[4]}};
      if (dims_ == 4) {  // 2D: drop the depth
        t.dims.erase(t.dims.begin() + 2);
        t.strides.erase(t.strides.begin() + 2);
      }
      return t;
    };
    g.x = dims(x_type_, p_.n, p_.run_c, p_.d, p_.run_h, p_.run_w);
    g.w = dims(f_type_, p_.k, p_.run_c / p_.groups, p_.t, p_.r, p_.s);
    g.y = dims(y_type_, p_.n, p_.k, p_.o, p_.p, p_.q);
    g.compute = precision_ == "int8" ? CUDNN_DATA_INT32 : CUDNN_DATA_FLOAT;
    if (dims_ == 5) {
      g.padding = {p_.pad_d, p_.pad_h, p_.pad_w};
      g.stride = {p_.stride_d, p_.stride_h, p_.stride_w};
      g.dilation = {1, p_.dil_h, p_.dil_w};
    } else {
      g.padding = {p_.pad_h, p_.pad_w};
      g.stride = {p_.stride_h, p_.stride_w};
      g.dilation = {p_.dil_h, p_.dil_w};
    }
    g.allow_tensor_cores_for_float = precision_ != "fp32";
    return g;
  }

  // The legacy API's ranked algorithms for the direction.
  std::vector<Candidate> legacy_candidates(cudnnHandle_t h) const {
    int max_count = 0;
    std::vector<Candidate> legacy;
    switch (dir_) {
      case ConvDirection::fwd:
        OPMARK_CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count));
        legacy = ranked<cudnnConvolutionFwdAlgoPerf_t>(max_count, [&](int n, int* got, cudnnConvolutionFwdAlgoPerf_t* p) {
          return cudnnGetConvolutionForwardAlgorithm_v7(h, x_desc_.get(), f_desc_.get(), conv_desc_.get(),
                                                        y_desc_.get(), n, got, p);
        });
        break;
      case ConvDirection::bwd_data:
        OPMARK_CHECK_CUDNN(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count));
        legacy = ranked<cudnnConvolutionBwdDataAlgoPerf_t>(
            max_count, [&](int n, int* got, cudnnConvolutionBwdDataAlgoPerf_t* p) {
              return cudnnGetConvolutionBackwardDataAlgorithm_v7(h, f_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                                 x_desc_.get(), n, got, p);
            });
        break;
      case ConvDirection::bwd_filter:
        OPMARK_CHECK_CUDNN(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max_count));
        legacy = ranked<cudnnConvolutionBwdFilterAlgoPerf_t>(
            max_count, [&](int n, int* got, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
              return cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, x_desc_.get(), y_desc_.get(), conv_desc_.get(),
                                                                   f_desc_.get(), n, got, p);
            });
        break;
    }
    return legacy;
  }

  void list_candidates(const RunContext& ctx) {
    cudnnHandle_t h = cudnn_handle();
    std::vector<Candidate> all;
    // The graph API's engines first: its heuristic's first choice is the default a library user gets today.
    std::string graph_why;
    // Every configuration by default, as PyTorch's benchmark mode times them all. On an H100 the old cap of 24
    // changed the chosen engine on 29 of DeepBench's 270 fp16 training cases (median 7% faster without the cap,
    // often an engine from the fallback list) for about 50% more tuning time.
    const std::size_t max_plans = ctx.options.engines > 0 ? static_cast<std::size_t>(ctx.options.engines) : SIZE_MAX;
    // The re-time's one candidate: only its engine's configurations are finalized (the costly part of listing),
    // and no legacy algorithm is asked for a graph engine, nor a graph engine for a legacy algorithm.
    const std::string& only = ctx.only_candidate;
    const bool only_legacy = only.rfind(kLegacyPrefix, 0) == 0;
    std::int64_t only_engine = -1;
    if (only.rfind(kGraphEnginePrefix, 0) == 0) only_engine = std::atoll(only.c_str() + kGraphEnginePrefix.size());
    const std::size_t workspace_limit = cudnn_workspace_limit(ctx.options.workspace_bytes);
    if (!only_legacy)
      graph_plans_ = conv_graph_plans(h, graph_spec(), workspace_limit, max_plans, &graph_why,
                                      &graph_excluded_, only_engine);
    for (std::size_t i = 0; i < graph_plans_.size(); ++i)
      all.push_back({-1, CUDNN_DEFAULT_MATH, static_cast<std::size_t>(graph_plans_[i].workspace), static_cast<int>(i)});
    if (only_engine < 0) {
      const std::vector<Candidate> legacy = legacy_candidates(h);
      all.insert(all.end(), legacy.begin(), legacy.end());
    }
    std::size_t workspace = 0;
    for (const Candidate& c : all) {
      if (c.workspace > workspace_limit) continue;
      if (c.graph_plan < 0 && precision_ == "fp32" && c.math != CUDNN_FMA_MATH) continue;  // no TF32 in fp32
      candidates_.push_back(c);
      workspace = std::max(workspace, c.workspace);
    }
    if (candidates_.empty())
      throw UnsupportedError("cuDNN lists no algorithm for this case within the workspace limit (" +
                             std::to_string(workspace_limit >> 20) + " MiB, --opmark_workspace_mib)" +
                             (graph_why.empty() ? "" : "; graph API: " + graph_why));
    workspace_ = DeviceBuffer(workspace);
    bind_conv_graph_plans(graph_plans_, x_.get(), f_.get(), y_.get(), workspace_.get());
  }

  void run(int candidate, cudaStream_t stream) {
    const Candidate& c = candidates_[static_cast<std::size_t>(candidate)];
    cudnnHandle_t h = cudnn_handle();
    OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
    if (c.graph_plan >= 0) {
      execute_graph_plan(h, graph_plans_[static_cast<std::size_t>(c.graph_plan)]);
      return;
    }
    OPMARK_CHECK_CUDNN(cudnnSetConvolutionMathType(conv_desc_.get(), c.math));
    const float one = 1.0f, zero = 0.0f;
    switch (dir_) {
      case ConvDirection::fwd:
        OPMARK_CHECK_CUDNN(cudnnConvolutionForward(h, &one, x_desc_.get(), x_.get(), f_desc_.get(), f_.get(),
                                                   conv_desc_.get(), static_cast<cudnnConvolutionFwdAlgo_t>(c.algo),
                                                   workspace_.get(), workspace_.bytes(), &zero, y_desc_.get(),
                                                   y_.get()));
        break;
      case ConvDirection::bwd_data:
        OPMARK_CHECK_CUDNN(cudnnConvolutionBackwardData(
            h, &one, f_desc_.get(), f_.get(), y_desc_.get(), y_.get(), conv_desc_.get(),
            static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo), workspace_.get(), workspace_.bytes(), &zero,
            x_desc_.get(), x_.get()));
        break;
      case ConvDirection::bwd_filter:
        OPMARK_CHECK_CUDNN(cudnnConvolutionBackwardFilter(
            h, &one, x_desc_.get(), x_.get(), y_desc_.get(), y_.get(), conv_desc_.get(),
            static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo), workspace_.get(), workspace_.bytes(), &zero,
            f_desc_.get(), f_.get()));
        break;
    }
  }

  ConvDirection dir_;
  std::string precision_;
  const core::PrecisionInfo& prec_;
  core::ConvProblem p_;
  bool nhwc_ = false;
  int dims_ = 4;
  core::DType x_type_, f_type_, y_type_;
  double tolerance_ = 0;
  DeviceBuffer x_, f_, y_, workspace_;
  TensorDesc x_desc_, y_desc_;
  FilterDesc f_desc_;
  ConvDesc conv_desc_;
  std::vector<ConvGraphPlan> graph_plans_;
  std::string graph_excluded_;
  std::vector<Candidate> candidates_;
  std::string layout_note_;
};

}  // namespace

const WorkloadFactory make_conv_workload = construct_workload<ConvWorkload>;

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
