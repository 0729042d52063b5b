// Fused scaled-dot-product attention through cuDNN's graph API (bench/attention_graph.h): every engine
// configuration cuDNN offers for the graph is a candidate for the harness's tuner. Verified on a sample of output
// rows against a float64 reference (kernels/reference_attention.h).
#ifdef OPMARK_HAVE_CUDNN  // built where cuDNN was found (bench/CMakeLists.txt compiles every file of families/)
#include <cmath>
#include <cstdio>
#include <limits>

#include "bench/families/attention_graph.h"
#include "bench/families/cudnn_util.h"
#include "bench/families/factories.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/reference_attention.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

// Rows of O checked against the float64 reference: enough to cover the tiles, heads and the causal edge, few
// enough that the reference (seq_kv x head_dim float64 products per row, twice) stays well under a second.
constexpr std::size_t kVerifiedRows = 512;

class AttentionWorkload final : public Workload {
 public:
  AttentionWorkload(const core::Case& c, const RunContext& ctx)
      : prec_(core::precision_info(c.precision)), p_(core::attention_problem(c)), seed_(ctx.seed) {
    if (c.direction != "fwd") throw UnsupportedError("attention " + c.direction + " is not built yet");
    type_ = prec_.input;
    q_ = DeviceBuffer(type_, static_cast<std::size_t>(p_.elements_q()));
    k_ = DeviceBuffer(type_, static_cast<std::size_t>(p_.elements_kv()));
    v_ = DeviceBuffer(type_, static_cast<std::size_t>(p_.elements_kv()));
    o_ = DeviceBuffer(type_, static_cast<std::size_t>(p_.elements_q()));
    kernels::fill_random(q_.get(), static_cast<std::size_t>(p_.elements_q()), type_, ctx.seed, ctx.stream);
    kernels::fill_random(k_.get(), static_cast<std::size_t>(p_.elements_kv()), type_, ctx.seed + 1, ctx.stream);
    kernels::fill_random(v_.get(), static_cast<std::size_t>(p_.elements_kv()), type_, ctx.seed + 2, ctx.stream);

    AttentionGraphSpec spec{cudnn_type(type_), p_.batch, p_.heads_q,  p_.heads_kv, p_.seq_q, p_.seq_kv,
                            p_.head_dim,       p_.causal, p_.strides(p_.heads_q, p_.seq_q),
                            p_.strides(p_.heads_kv, p_.seq_kv)};
    std::string why;
    plans_ = attention_graph_plans(cudnn_handle(), spec, ctx.options.workspace_bytes, &why, &excluded_);
    if (plans_.empty()) throw UnsupportedError(why);
    std::size_t workspace = 0;
    for (const auto& plan : plans_) workspace = std::max(workspace, static_cast<std::size_t>(plan.workspace));
    workspace_ = DeviceBuffer(std::max<std::size_t>(workspace, 1));
    scale_ = static_cast<float>(1.0 / std::sqrt(static_cast<double>(p_.head_dim)));
    // A large negative rather than -inf: exp(-inf - max) is 0 either way, and no engine meets inf - inf.
    neg_inf_ = std::numeric_limits<float>::lowest();
    // The variant pack names exactly the graph's tensors: the masking scalar exists only in a causal graph.
    std::vector<std::int64_t> uids = {kUidQ, kUidK, kUidV, kUidO, kUidScale};
    std::vector<void*> pointers = {q_.get(), k_.get(), v_.get(), o_.get(), &scale_};
    if (p_.causal) {
      uids.push_back(kUidNegInf);
      pointers.push_back(&neg_inf_);
    }
    bind_graph_plans(plans_, uids, pointers, workspace_.get());
  }

  void launch(cudaStream_t stream) override {
    cudnnHandle_t h = cudnn_handle();
    OPMARK_CHECK_CUDNN(cudnnSetStream(h, stream));
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
    // kernel does) and a value.
    return kernels::compare_to_reference(got.get(), type_, ref.as<double>(), count,
                                         core::depth_tolerance(prec_.tolerance, static_cast<double>(p_.seq_kv)),
                                         stream, prec_.tolerance);
  }

  std::string label() const override {
    char buf[256];
    std::snprintf(buf, sizeof buf, "cuDNN fused attention | in %s, compute fp32, out %s | %s, %s | scale 1/sqrt(%lld)",
                  core::name_of(type_), core::name_of(type_), p_.bshd ? "bshd" : "bhsd",
                  p_.causal ? "causal" : "no mask", static_cast<long long>(p_.head_dim));
    std::string out = buf;
    if (!excluded_.empty()) out += " | engines left out: " + excluded_;
    return out;
  }

  std::map<std::string, double> counters() const override {
    return {{"workspace_mib", static_cast<double>(workspace_.bytes()) / (1 << 20)},
            {"gqa_group", static_cast<double>(p_.heads_q / p_.heads_kv)}};
  }

 private:
  const core::PrecisionInfo& prec_;
  core::AttentionProblem p_;
  std::uint64_t seed_;
  core::DType type_;
  DeviceBuffer q_, k_, v_, o_, workspace_;
  std::vector<GraphPlan> plans_;
  std::string excluded_;
  float scale_ = 1, neg_inf_ = 0;  // passed by value: the variant pack holds their host addresses
};

}  // namespace

std::unique_ptr<Workload> make_attention_workload(const core::Case& c, const RunContext& ctx) {
  return std::make_unique<AttentionWorkload>(c, ctx);
}

OPMARK_REGISTER_WORKLOAD("attention", make_attention_workload);

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_CUDNN
