#include "bench/harness.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "bench/copy_ceiling.h"
#include "bench/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {
namespace {

// Google Benchmark 1.8 can mark a run skipped; 1.7 only has errors. A skipped case is never a failure of the run:
// opmark's own exit status and results log say which is which.
template <class S>
auto skip_impl(S& state, const std::string& message, int) -> decltype(state.SkipWithMessage(message), void()) {
  state.SkipWithMessage(message);
}
template <class S>
void skip_impl(S& state, const std::string& message, long) {
  state.SkipWithError(message.c_str());
}

void report_not_run(benchmark::State& state, const Outcome& o) {
  if (o.status == Status::skipped) skip_impl(state, "SKIPPED " + o.reason, 0);
  else state.SkipWithError(("FAILED " + o.reason).c_str());
}

}  // namespace

struct Harness::Prepared {
  std::string name;
  std::unique_ptr<Workload> workload;
  core::Work work;
  int batch = 1;
  Outcome outcome;
};

Outcome verify_workload(Workload& w, cudaStream_t stream) {
  Outcome o;
  for (int attempt = 1;; ++attempt) {
    kernels::CompareResult r = w.verify(stream);
    o.verification = r.summary();
    if (r.ok()) {
      o.status = Status::ok;
      o.reason.clear();
      return o;
    }
    o.status = Status::failed;
    o.reason = "wrong result: " + o.verification;
    if (attempt > 1)  // every candidate tried was wrong: say so, it points at the reference or the inputs
      o.reason += " (the last of " + std::to_string(attempt) + " candidates tried; all were wrong)";
    char why[128];
    std::snprintf(why, sizeof why, "%zu of %zu elements wrong, rel norm error %.1e", r.wrong, r.count,
                  r.rel_norm_error);
    if (attempt >= kMaxVerifyAttempts || !w.drop_chosen(why)) return o;
  }
}

Outcome agree_across_ranks(ProcessGroup& group, Outcome o) {
  const std::vector<double> statuses = group.all_gather(static_cast<double>(o.status));
  int worst_rank = -1;
  for (std::size_t r = 0; r < statuses.size(); ++r)
    if (statuses[r] != static_cast<double>(Status::ok) &&
        (worst_rank < 0 || statuses[r] > statuses[static_cast<std::size_t>(worst_rank)]))
      worst_rank = static_cast<int>(r);
  if (worst_rank < 0) return o;
  // The failing rank's reason, sent to all (its length first, then the text).
  std::string reason = group.rank() == worst_rank ? o.reason : std::string();
  double length = static_cast<double>(reason.size());
  group.broadcast(&length, sizeof length, worst_rank);
  reason.resize(static_cast<std::size_t>(length));
  group.broadcast(reason.data(), reason.size(), worst_rank);
  o.status = static_cast<Status>(static_cast<int>(statuses[static_cast<std::size_t>(worst_rank)]));
  o.reason = "rank " + std::to_string(worst_rank) + ": " + reason;
  return o;
}

std::uint64_t case_seed(std::uint64_t base, const std::string& case_name) {
  std::uint64_t h = 1469598103934665603ull ^ base;  // FNV-1a
  for (unsigned char ch : case_name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

std::map<std::string, double> throughput_counters(const core::Work& work, double seconds_per_op,
                                                  const std::string& precision, const Peaks& peaks) {
  std::map<std::string, double> c;
  if (!(seconds_per_op > 0)) return c;
  if (work.flops > 0) c["tflops"] = work.flops / seconds_per_op / 1e12;  // memory-bound families count no FLOPs
  c["gb_per_s"] = work.bytes() / seconds_per_op / 1e9;
  auto it = peaks.tflops.find(core::precision_info(precision).peak_key);
  if (it != peaks.tflops.end() && it->second > 0 && work.flops > 0) c["pct_peak"] = 100.0 * c["tflops"] / it->second;
  if (peaks.memory_gb_per_s > 0) c["pct_peak_bw"] = 100.0 * c["gb_per_s"] / peaks.memory_gb_per_s;
  return c;
}

Harness::Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
                 ProcessGroup* group)
    : options_(std::move(options)),
      group_(group),
      device_(std::move(device)),
      no_device_reason_(std::move(no_device_reason)),
      peaks_(resolve_peaks(device_ ? device_->name : "", options_.peaks)) {}

Harness::~Harness() {
  prepared_.reset();
  timer_.reset();
  if (stream_) OPMARK_CHECK_CUDA_NOEXCEPT(cudaStreamDestroy(stream_));
}

void Harness::register_cases(std::vector<core::Case> cases) {
  cases_ = std::move(cases);
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const std::string name = core::make_case_name(cases_[i]);
    index_by_name_[name] = i;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [this, i](benchmark::State& st) { run(st, i); });
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

const Outcome* Harness::outcome(const std::string& case_name) const {
  auto it = outcomes_.find(case_name);
  return it == outcomes_.end() ? nullptr : &it->second;
}

const core::Case* Harness::find_case(const std::string& case_name) const {
  auto it = index_by_name_.find(case_name);
  return it == index_by_name_.end() ? nullptr : &cases_[it->second];
}

int Harness::count(Status s) const {
  int n = 0;
  for (const auto& [name, o] : outcomes_) n += o.status == s;
  return n;
}

cudaStream_t Harness::stream() {
  if (!stream_) OPMARK_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (!timer_) timer_ = std::make_unique<Timer>(stream_, options_.l2);
  return stream_;
}

double Harness::copy_ceiling_gb_per_s() {
  if (!copy_gb_per_s_) {
    // 1 GiB each way, or less on a small GPU: large enough that caches do not count.
    std::size_t free_bytes = 0, total = 0;
    OPMARK_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
    const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4);
    copy_gb_per_s_ = measure_copy_gb_per_s(stream(), bytes);
  }
  return *copy_gb_per_s_;
}

// Builds, verifies and calibrates a case once; Google Benchmark calls run() several times per case (to size the
// iteration count, and once per repetition), and every call after the first reuses this.
Harness::Prepared& Harness::prepare(std::size_t case_index) {
  const core::Case& c = cases_[case_index];
  const std::string name = core::make_case_name(c);
  if (prepared_ && prepared_->name == name) return *prepared_;
  prepared_.reset();  // free the previous case's device memory first
  auto p = std::make_unique<Prepared>();
  p->name = name;
  try {
    const core::PrecisionInfo& prec = core::precision_info(c.precision);
    if (device_->compute_capability < prec.min_compute_capability)
      throw UnsupportedError(c.precision + " needs compute capability " +
                             std::to_string(prec.min_compute_capability / 10) + "." +
                             std::to_string(prec.min_compute_capability % 10) + " or newer; this GPU has " +
                             std::to_string(device_->compute_capability / 10) + "." +
                             std::to_string(device_->compute_capability % 10));
    cudaStream_t s = stream();
    RunContext ctx{s, *device_, options_, case_seed(options_.seed, name), group_};
    p->workload = make_workload(c, ctx);
    p->work = core::work_of(c);
    p->outcome = verify_workload(*p->workload, s);
    agree_on_outcome(&p->outcome);
    if (p->outcome.status == Status::ok) {
      std::function<double(double)> agree;
      if (multi_process()) agree = [this](double seconds) { return group_->agree_max(seconds); };
      const double warm = timer_->warm_up(*p->workload, options_.warmup_ms, agree);
      p->batch = choose_batch(warm);
      p->outcome.label = p->workload->label();
      p->outcome.counters = p->workload->counters();
    }
  } catch (...) {
    Outcome o = outcome_from_exception(std::current_exception());
    o.verification = p->outcome.verification;
    p->outcome = o;
    // The other ranks may be inside a collective this rank will never join: stop them all.
    if (multi_process()) group_->abort(name + ": " + p->outcome.reason);
  }
  if (p->outcome.status != Status::ok) p->workload.reset();
  outcomes_[name] = p->outcome;
  prepared_ = std::move(p);
  return *prepared_;
}

void Harness::agree_on_outcome(Outcome* o) {
  if (multi_process()) *o = agree_across_ranks(*group_, *o);
}

void Harness::run(benchmark::State& state, std::size_t case_index) {
  const core::Case& c = cases_[case_index];
  if (!device_) {
    Outcome o{Status::skipped, "no CUDA device: " + no_device_reason_, "", "", {}};
    outcomes_[core::make_case_name(c)] = o;
    report_not_run(state, o);
    return;
  }
  Prepared& p = prepare(case_index);
  if (p.outcome.status != Status::ok) {
    report_not_run(state, p.outcome);
    return;
  }
  try {
    // One Google Benchmark iteration is one launch, so its iteration count and --benchmark_min_time mean GPU
    // launches and GPU time: a sample of `batch` launches is taken, then reported over the next `batch`
    // iterations at its time per launch.
    // In a multi-process run every rank reports the mean over the ranks of each sample (what nccl-tests reports),
    // so Google Benchmark sizes the same iteration count on every rank; the slowest rank is kept as a counter.
    double total = 0, per_launch = 0, slowest_total = 0;
    int left_in_sample = 0;
    for (auto _ : state) {
      if (left_in_sample == 0) {
        per_launch = timer_->sample(*p.workload, p.batch);
        if (multi_process()) {
          const RankTimes t = summarize_rank_times(group_->all_gather(per_launch));
          per_launch = t.mean;
          slowest_total += t.max * p.batch;
        }
        left_in_sample = p.batch;
      }
      --left_in_sample;
      state.SetIterationTime(per_launch);
      total += per_launch;
    }
    const double per_op = total / static_cast<double>(state.iterations());
    state.counters["flops"] = p.work.flops;
    state.counters["bytes"] = p.work.bytes();
    for (const auto& [k, v] : throughput_counters(p.work, per_op, c.precision, peaks_)) state.counters[k] = v;
    for (const auto& [k, v] : p.outcome.counters) state.counters[k] = v;
    if (p.work.flops == 0 && p.work.bytes() > 0) {  // memory bound: against the copy measured in this run
      const double ceiling = copy_ceiling_gb_per_s();
      state.counters["copy_gb_per_s"] = ceiling;
      if (ceiling > 0) state.counters["pct_copy_bw"] = 100.0 * p.work.bytes() / per_op / 1e9 / ceiling;
    }
    state.counters["batch"] = p.batch;
    if (multi_process()) {
      state.counters["processes"] = group_->size();
      state.counters["slowest_rank_us"] = slowest_total / static_cast<double>(state.iterations()) * 1e6;
    }
    state.SetLabel(p.outcome.label);
  } catch (...) {
    Outcome o = outcome_from_exception(std::current_exception());
    if (multi_process()) group_->abort(p.name + ": " + o.reason);
    o.verification = p.outcome.verification;
    p.outcome = o;
    p.workload.reset();
    outcomes_[p.name] = o;
    report_not_run(state, o);
  }
}

}  // namespace opmark::bench
