// Fused scaled-dot-product attention through cuDNN's graph API (bench/families/attention_graph.h), forward and
// backward: every engine configuration cuDNN offers for the graph is a candidate for the harness's tuner. The forward is
// verified on a sample of output rows against a float64 reference (kernels/reference_attention.h), the backward on
// one whole K/V group's dQ, dK and dV (kernels/reference_attention_bwd.h).
#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <tuple>
#include <utility>

#include "bench/families/attention_graph.h"
#include "bench/families/cudnn_util.h"
#include "bench/families/factories.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/reference_attention.h"
#include "kernels/reference_attention_bwd.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

// Rows of O checked against the float64 reference: enough to cover the tiles, heads and the causal edge, few
// enough that the reference (seq_kv x head_dim float64 products per row, twice) stays well under a second.
constexpr std::size_t kVerifiedRows = 512;

class AttentionWorkload final : public Workload {
 public:
  AttentionWorkload(const core::Case& c, const RunContext& ctx)
      : prec_(core::precision_info(c.precision)),
        p_(core::attention_problem(c)),
        seed_(ctx.seed),
        backward_(c.direction == "bwd") {
    type_ = prec_.input;
    const auto q_elems = static_cast<std::size_t>(p_.elements_q());
    const auto kv_elems = static_cast<std::size_t>(p_.elements_kv());
    const auto rows = static_cast<std::size_t>(p_.batch * p_.heads_q * p_.seq_q);
    q_ = DeviceBuffer(type_, q_elems);
    k_ = DeviceBuffer(type_, kv_elems);
    v_ = DeviceBuffer(type_, kv_elems);
    o_ = DeviceBuffer(type_, q_elems);
    kernels::fill_random(q_.get(), q_elems, type_, ctx.seed, ctx.stream);
    kernels::fill_random(k_.get(), kv_elems, type_, ctx.seed + 1, ctx.stream);
    kernels::fill_random(v_.get(), kv_elems, type_, ctx.seed + 2, ctx.stream);
    scale_ = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p_.head_dim)));
    // A large negative rather than -inf: exp(-inf - max) is 0 either way, and no engine meets inf - inf.
    neg_inf_ = std::numeric_limits<float>::lowest();

    AttentionGraphSpec spec{AttentionPass::forward,
                            cudnn_data_type(type_),
                            p_.batch,
                            p_.heads_q,
                            p_.heads_kv,
                            p_.seq_q,
                            p_.seq_kv,
                            p_.head_dim,
                            p_.causal,
                            p_.strides(p_.heads_q, p_.seq_q),
                            p_.strides(p_.heads_kv, p_.seq_kv)};
    // The variant pack names exactly the graph's tensors: the masking scalar exists only in a causal graph, each
    // fp8 scale only in the passes that apply it.
    std::vector<std::int64_t> uids = {kUidQ, kUidK, kUidV, kUidO, kUidScale};
    std::vector<void*> pointers = {q_.get(), k_.get(), v_.get(), o_.get(), &scale_};
    if (p_.causal) {
      uids.push_back(kUidNegInf);
      pointers.push_back(&neg_inf_);
    }
    const bool fp8 = type_ == core::DType::f8_e4m3;
    if (fp8) {
      // Per-tensor scales as an fp8 training recipe sets them for these inputs (uniform in [-1, 1], unit scale):
      // P (at most 1) is scaled by 448, e4m3's largest value, to use its range, and descaled after its product; the
      // rest start at 1 (the backward's dS and gradient scales are calibrated below). Amax slots receive maxima.
      fp8_scales_.fill(1.0f);
      fp8_slot(kUidDescaleS) = 1.0f / kFp8Max;
      fp8_slot(kUidScaleS) = kFp8Max;
      scales_ = DeviceBuffer(sizeof fp8_scales_);
      upload_fp8_scales(ctx.stream);
    }
    std::vector<std::int64_t> forward_uids = uids;
    std::vector<void*> forward_pointers = pointers;
    if (fp8) bind_fp8_scales(kUidDescaleQ, kUidAmaxO, forward_uids, forward_pointers);
    std::string why;
    if (!backward_) {
      uids = forward_uids, pointers = forward_pointers;
    } else {
      stats_ = DeviceBuffer(core::DType::f32, rows);
      d_o_ = DeviceBuffer(type_, q_elems);
      kernels::fill_random(d_o_.get(), q_elems, type_, ctx.seed + 3, ctx.stream);
      run_training_forward(spec, forward_uids, forward_pointers, ctx);
      dq_ = DeviceBuffer(type_, q_elems);
      dk_ = DeviceBuffer(type_, kv_elems);
      dv_ = DeviceBuffer(type_, kv_elems);
      spec.pass = AttentionPass::backward;
      for (auto [uid, pointer] : {std::pair<std::int64_t, void*>{kUidStats, stats_.get()}, {kUidDO, d_o_.get()},
                                  {kUidDQ, dq_.get()}, {kUidDK, dk_.get()}, {kUidDV, dv_.get()}})
        uids.push_back(uid), pointers.push_back(pointer);
      if (fp8) {
        bind_fp8_scales(kUidDescaleQ, kUidScaleS, uids, pointers);
        bind_fp8_scales(kUidDescaleO, kUidAmaxDP, uids, pointers);
      } else {
        delta_ = DeviceBuffer(core::DType::f32, rows);
        dq_accum_ = DeviceBuffer(core::DType::f32, q_elems);
        for (auto [uid, pointer] : {std::pair<std::int64_t, void*>{kUidDelta, delta_.get()},
                                    {kUidDQAccum, dq_accum_.get()}, {kUidOne, static_cast<void*>(&one_)}})
          uids.push_back(uid), pointers.push_back(pointer);
      }
    }
    plans_ = attention_graph_plans(cudnn_handle(), spec, cudnn_workspace_limit(ctx.options.workspace_bytes), &why,
                                   &excluded_);
    if (plans_.empty() && fp8 && backward_ && p_.head_dim != 128)
      why += " (cuDNN's frontend allows the fp8 backward on Hopper at head_dim 128 only)";
    if (plans_.empty()) throw UnsupportedError(why);
    workspace_ = DeviceBuffer(std::max<std::size_t>(largest_workspace(plans_), 1));
    bind_graph_plans(plans_, uids, pointers, workspace_.get());
    if (fp8 && backward_) calibrate_fp8_backward(ctx.stream);
  }

  void launch(cudaStream_t stream) override {
    cudnnHandle_t h = cudnn_handle();
    OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
    // Before cuDNN 9.6 the backward adds into dQ's float accumulator, which must start at zero (the frontend
    // clears it then too); later versions write it.
    if (dq_accum_.get() && cudnnGetVersion() < 90600)
      OPMARK_CHECK_CUDA(cudaMemsetAsync(dq_accum_.get(), 0, dq_accum_.bytes(), stream));
    execute_graph_plan(h, plans_[static_cast<std::size_t>(chosen())]);
  }

  int candidate_count() const override { return static_cast<int>(plans_.size()); }
  std::string candidate_name(int i) const override { return plans_[static_cast<std::size_t>(i)].name; }

  kernels::CompareResult verify(cudaStream_t stream) override {
    kernels::AttentionRefShape s{};
    s.batch = p_.batch, s.heads_q = p_.heads_q, s.heads_kv = p_.heads_kv, s.seq_q = p_.seq_q;
    s.seq_kv = p_.seq_kv, s.head_dim = p_.head_dim, s.causal = p_.causal;
    const auto qs = p_.strides(p_.heads_q, p_.seq_q), kvs = p_.strides(p_.heads_kv, p_.seq_kv);
    for (int i = 0; i < 4; ++i) s.q_stride[i] = qs[i], s.kv_stride[i] = kvs[i];
    return backward_ ? verify_backward(s, stream) : verify_forward(s, stream);
  }

  std::string label() const override {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "cuDNN fused attention%s | in %s, compute fp32, out %s | %s, %s | scale 1/sqrt(%lld)",
                  backward_ ? " backward (dQ, dK, dV)" : "", core::name_of(type_), core::name_of(type_),
                  p_.bshd ? "bshd" : "bhsd", p_.causal ? "causal" : "no mask", static_cast<long long>(p_.head_dim));
    std::string out = buf;
    if (type_ == core::DType::f8_e4m3 && backward_) {
      char scales[200];
      std::snprintf(scales, sizeof scales, " | per-tensor scales: Q, K, V, O, dO 1, P x 448, dS x %g, dQ x %g, dK x %g, "
                    "dV x %g (powers of 2 from two calibration passes' amax); gradients in e4m3",
                    fp8_slot(kUidScaleDP), fp8_slot(kUidScaleDQ), fp8_slot(kUidScaleDK), fp8_slot(kUidScaleDV));
      out += scales;
    } else if (type_ == core::DType::f8_e4m3) {
      out += " | per-tensor scales: Q, K, V 1, P x 448 into e4m3 (descaled after P V), O in e4m3; amax of P and O kept";
    }
    if (type_ == core::DType::f8_e4m3 && !backward_) {
      // Measured on an H100 (2026-11-24): cuDNN 9.14's fp8 forward engines wrote wrong tiles once the grid passed one
      // wave of SMs, 9.19's verified (both versions' fp8 backward verified). Said where a wrong result is reported,
      // so it is not read as opmark's.
      if (cudnnGetVersion() < 91900)
        out += " | cuDNN 9.14's fp8 attention engines were measured wrong on grids past one wave of SMs, 9.19's right "
               "(versions between not measured; README, fp8)";
    }
    if (!training_forward_.empty()) out += " | statistics from " + training_forward_;
    if (!excluded_.empty()) out += " | engines left out: " + excluded_;
    return out;
  }

  std::map<std::string, double> counters() const override {
    return {{core::counter::workspace_mib, static_cast<double>(workspace_.bytes()) / (1 << 20)},
            {core::counter::gqa_group, static_cast<double>(p_.heads_q / p_.heads_kv)}};
  }

 private:
  static std::size_t largest_workspace(const std::vector<GraphPlan>& plans) {
    std::size_t bytes = 0;
    for (const auto& plan : plans) bytes = std::max(bytes, static_cast<std::size_t>(plan.workspace));
    return bytes;
  }

  float& fp8_slot(std::int64_t uid) { return fp8_scales_[static_cast<std::size_t>(uid - kUidDescaleQ)]; }
  float fp8_slot(std::int64_t uid) const { return fp8_scales_[static_cast<std::size_t>(uid - kUidDescaleQ)]; }
  void upload_fp8_scales(cudaStream_t stream) {
    OPMARK_CHECK_CUDA(
        cudaMemcpyAsync(scales_.get(), fp8_scales_.data(), sizeof fp8_scales_, cudaMemcpyHostToDevice, stream));
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  // The scales (and amax outputs) of the fp8 uids first..last, in device memory, into a variant pack.
  void bind_fp8_scales(std::int64_t first, std::int64_t last, std::vector<std::int64_t>& uids,
                       std::vector<void*>& pointers) {
    for (std::int64_t uid = first; uid <= last; ++uid)
      uids.push_back(uid), pointers.push_back(scales_.as<float>() + (uid - kUidDescaleQ));
  }

  // Delayed scaling, as fp8 training sets its scales: each comes from the absolute maximum its tensor had in the
  // step before. Two passes by cuDNN's first engine, outside any timing: the first measures dS's maximum (the
  // gradients' products need dS in e4m3's range, so their maxima are measured after that), the second the
  // gradients'. Each scale is the power of 2 that puts the maximum just under 448, so descaling is exact.
  void calibrate_fp8_backward(cudaStream_t stream) {
    const auto pass = [&] {
      OPMARK_CHECK_CUDNN(cudnnSetStream(cudnn_handle(), stream));
      execute_graph_plan(cudnn_handle(), plans_.front());
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(fp8_scales_.data(), scales_.get(), sizeof fp8_scales_,
                                        cudaMemcpyDeviceToHost, stream));
      OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    };
    const auto power_of_2_scale = [](float amax) {
      return amax > 0 && std::isfinite(amax) ? std::exp2(std::floor(std::log2(kFp8Max / amax))) : 1.0f;
    };
    pass();
    fp8_slot(kUidScaleDP) = power_of_2_scale(fp8_slot(kUidAmaxDP));
    fp8_slot(kUidDescaleDP) = 1.0f / fp8_slot(kUidScaleDP);
    upload_fp8_scales(stream);
    pass();
    for (auto [scale, amax] : {std::pair{kUidScaleDQ, kUidAmaxDQ}, {kUidScaleDK, kUidAmaxDK}, {kUidScaleDV, kUidAmaxDV}})
      fp8_slot(scale) = power_of_2_scale(fp8_slot(amax));
    upload_fp8_scales(stream);
  }

  // The forward pass training runs before the backward: O and the softmax statistics, by cuDNN's first choice,
  // once, outside any timing.
  void run_training_forward(AttentionGraphSpec spec, std::vector<std::int64_t> uids, std::vector<void*> pointers,
                            const RunContext& ctx) {
    spec.pass = AttentionPass::forward_training;
    std::string why, excluded;
    auto plans = attention_graph_plans(cudnn_handle(), spec, cudnn_workspace_limit(ctx.options.workspace_bytes), &why,
                                       &excluded);
    if (plans.empty()) throw UnsupportedError("the forward pass that keeps the statistics: " + why);
    plans.resize(1);
    DeviceBuffer workspace(std::max<std::size_t>(largest_workspace(plans), 1));
    uids.push_back(kUidStats);
    pointers.push_back(stats_.get());
    bind_graph_plans(plans, uids, pointers, workspace.get());
    OPMARK_CHECK_CUDNN(cudnnSetStream(cudnn_handle(), ctx.stream));
    execute_graph_plan(cudnn_handle(), plans.front());
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));  // before the workspace is freed
    training_forward_ = plans.front().name;
  }

  kernels::CompareResult verify_forward(const kernels::AttentionRefShape& s, cudaStream_t stream) {
    const auto rows = kernels::sample_attention_rows(s, kVerifiedRows, seed_);
    DeviceBuffer rows_dev(rows.size() * sizeof(kernels::AttentionRow));
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(rows_dev.get(), rows.data(), rows_dev.bytes(), cudaMemcpyHostToDevice, stream));
    const std::size_t count = rows.size() * static_cast<std::size_t>(p_.head_dim);
    DeviceBuffer ref(core::DType::f64, count), got(type_, count);
    const auto* rows_ptr = static_cast<const kernels::AttentionRow*>(rows_dev.get());
    kernels::reference_attention_rows(s, q_.get(), k_.get(), v_.get(), type_, rows_ptr, rows.size(),
                                      ref.as<double>(), stream);
    kernels::poison(o_.get(), static_cast<std::size_t>(p_.elements_q()), type_, stream);
    launch(stream);
    kernels::gather_attention_rows(s, o_.get(), type_, rows_ptr, rows.size(), got.get(), stream);
    // Each output element sums up to seq_kv products of a probability (rounded to the input type, as every fused
    // kernel does) and a value. fp8 rounds P (scaled by 448) and O to e4m3, 3 mantissa bits: in norm O stays within
    // half a unit in the last place (1/16; measured 2.6-3.7%), but an element of a row with few keys carries P's
    // rounding undivided (one measured 0.26 of the rows' rms off). Element by element the check is a bound on gross
    // errors (0.5): cuDNN 9.14's fp8 engines, whose grids past one wave of SMs wrote wrong tiles, were 12-38 off.
    if (type_ == core::DType::f8_e4m3)
      return kernels::compare_to_reference(got.get(), type_, ref.as<double>(), count, 0.5, stream, 0.0625);
    return kernels::compare_to_reference(got.get(), type_, ref.as<double>(), count,
                                         core::depth_tolerance(prec_.tolerance, static_cast<double>(p_.seq_kv)),
                                         stream, prec_.tolerance);
  }

  // One K/V group (a batch and a K/V head, picked by the seed) in full: dQ of its query heads, its dK and dV.
  kernels::CompareResult verify_backward(const kernels::AttentionRefShape& s, cudaStream_t stream) {
    std::mt19937_64 gen(seed_);
    const kernels::AttentionGroup group{static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(p_.batch)),
                                        static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(p_.heads_kv))};
    const std::int64_t heads = p_.heads_q / p_.heads_kv;
    const auto dq_count = static_cast<std::size_t>(heads * p_.seq_q * p_.head_dim);
    const auto kv_count = static_cast<std::size_t>(p_.seq_kv * p_.head_dim);
    DeviceBuffer dq_ref(core::DType::f64, dq_count), dk_ref(core::DType::f64, kv_count),
        dv_ref(core::DType::f64, kv_count);
    const bool fp8 = type_ == core::DType::f8_e4m3;
    kernels::AttentionFp8Rounding rounding;
    if (fp8) rounding.p_scale = fp8_slot(kUidScaleS), rounding.ds_scale = fp8_slot(kUidScaleDP);
    // P from the forward's statistics, as the backward computes it; the statistics themselves checked against the
    // reference's own (float sums of exact products: 1e-4).
    const auto rows = static_cast<std::size_t>(heads * p_.seq_q);
    DeviceBuffer own_lse(core::DType::f64, rows);
    kernels::reference_attention_backward(s, q_.get(), k_.get(), v_.get(), o_.get(), d_o_.get(), type_, group,
                                          dq_ref.as<double>(), dk_ref.as<double>(), dv_ref.as<double>(), stream,
                                          rounding, stats_.as<float>(), own_lse.as<double>());
    const float* group_stats = stats_.as<float>() + (group.b * p_.heads_q + group.g * heads) * p_.seq_q;
    const auto stats_check =
        kernels::compare_to_reference(group_stats, core::DType::f32, own_lse.as<double>(), rows, 1e-4, stream);
    for (DeviceBuffer* out : {&dq_, &dk_, &dv_})
      kernels::poison(out->get(), out->bytes() / core::size_of(type_), type_, stream);
    launch(stream);
    DeviceBuffer dq_got(type_, dq_count), dk_got(type_, kv_count), dv_got(type_, kv_count);
    kernels::gather_attention_group(s, dq_.get(), dk_.get(), dv_.get(), type_, group, dq_got.get(), dk_got.get(),
                                    dv_got.get(), stream);
    // dQ sums seq_kv terms per element; dK and dV sum seq_q terms of every query head of the group. P and dS enter
    // their products rounded to the input type, as in the forward pass, and dS = P (dP - delta) cancels where a
    // row's dP are close: element by element the gradients get twice the forward's tolerance (bf16: 6 of 196608
    // elements of a GQA case measured 4-6% off on every engine cuDNN 9.14 offers, with the whole within 0.25%
    // in norm), FlashAttention's own tests allow twice a low-precision reference's error. The norm bound stays.
    //   fp8 stores each gradient times its scale (compared through its descale). The reference rounds P and dS to
    // e4m3 as the graph does, so what is left is the gradients' own rounding to e4m3 (at most 1/16 of an element:
    // the norm bound; measured 2.7-2.8%) and the P and dS values the engine's float32 arithmetic rounds the other
    // way, one e4m3 step (1/8) of a term each. An early causal row sums a few large dS that cancel, and keeps such a
    // step undivided: measured up to 0.61 of the rows' scale (on an H100, cuDNN 9.14 and 9.19, every engine, the
    // same element). Element by element the bound is therefore 1, for gross errors only (a broken fp8 engine
    // measured 12-38).
    const double keys = static_cast<double>(p_.seq_kv), queries = static_cast<double>(heads * p_.seq_q);
    auto compare = [&](const DeviceBuffer& got, const DeviceBuffer& ref, std::size_t count, double depth,
                       std::int64_t scale_uid) {
      if (fp8)
        return kernels::compare_to_reference(got.get(), type_, ref.as<double>(), count, 1.0, stream, 0.0625,
                                             1.0 / fp8_slot(scale_uid));
      return kernels::compare_to_reference(got.get(), type_, ref.as<double>(), count,
                                           2 * core::depth_tolerance(prec_.tolerance, depth), stream,
                                           prec_.tolerance);
    };
    // The worst of the three (and the statistics), counted over all their elements.
    kernels::CompareResult worst = kernels::worse_of(stats_check, compare(dq_got, dq_ref, dq_count, keys, kUidScaleDQ));
    for (const auto& [got, ref, uid] :
         {std::tuple{&dk_got, &dk_ref, kUidScaleDK}, std::tuple{&dv_got, &dv_ref, kUidScaleDV}})
      worst = kernels::worse_of(worst, compare(*got, *ref, kv_count, queries, uid));
    worst.count = dq_count + 2 * kv_count + rows;
    return worst;
  }

  const core::PrecisionInfo& prec_;
  core::AttentionProblem p_;
  std::uint64_t seed_;
  bool backward_;
  core::DType type_;
  DeviceBuffer q_, k_, v_, o_, workspace_;
  DeviceBuffer d_o_, stats_, dq_, dk_, dv_, delta_, dq_accum_;  // backward only
  static constexpr float kFp8Max = 448.0f;  // e4m3's largest finite value
  // fp8 only: every scale and absolute maximum of the fp8 graphs, indexed by uid - kUidDescaleQ, and its device copy.
  std::array<float, kFp8ScaleCount> fp8_scales_{};
  DeviceBuffer scales_;
  std::vector<GraphPlan> plans_;
  std::string excluded_, training_forward_;
  float scale_ = 1, neg_inf_ = 0, one_ = 1;  // passed by value: the variant pack holds their host addresses
};

}  // namespace

const WorkloadFactory make_attention_workload = construct_workload<AttentionWorkload>;

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
