#include "bench/harness/tuning/autotune.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "bench/harness/timing/measure.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/timing/timer.h"
#include "core/counters.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

namespace counter = core::counter;
namespace {

// The position of the lowest finite time in `seconds`, or -1 where none is finite.
int fastest_finite(const std::vector<double>& seconds) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(seconds.size()); ++i)
    if (std::isfinite(seconds[static_cast<std::size_t>(i)]) &&
        (best < 0 || seconds[static_cast<std::size_t>(i)] < seconds[static_cast<std::size_t>(best)]))
      best = i;
  return best;
}

}  // namespace

double TuningResult::seconds_of(int candidate) const {
  if (candidate < 0 || candidate >= static_cast<int>(seconds.size())) return 0;
  const double s = seconds[static_cast<std::size_t>(candidate)];
  return std::isfinite(s) ? s : 0;
}

double TuningResult::speedup() const {
  const double d = default_seconds(), b = best_seconds();
  return d > 0 && b > 0 ? d / b : 0.0;
}

std::map<std::string, double> TuningResult::counters() const {
  std::map<std::string, double> c = {{counter::candidates, static_cast<double>(seconds.size())},
                                     {counter::default_us, default_seconds() * 1e6},
                                     {counter::autotune_speedup, speedup()},
                                     {counter::tuning_finalists, static_cast<double>(finalists)}};
  if (reference_seconds() > 0) {
    c[counter::torch_path_us] = reference_seconds() * 1e6;
    c[counter::torch_path_chosen] = best == reference_index ? 1.0 : 0.0;
  }
  std::vector<double> others = seconds;
  if (best >= 0) others[static_cast<std::size_t>(best)] = std::numeric_limits<double>::infinity();
  if (const int next = fastest_finite(others); next >= 0)
    c[counter::runner_up_us] = others[static_cast<std::size_t>(next)] * 1e6;
  return c;
}

bool TuningResult::drop_best(const std::string& name, const std::string& why) {
  if (best < 0) return false;
  // Its tuned time goes with it: a comparison can tell a loss that only a wrong result would have avoided.
  const double tuned = seconds[static_cast<std::size_t>(best)];
  dropped += (dropped.empty() ? "" : "; ") + name + " (" + why +
             (std::isfinite(tuned) ? "; " + us_text(tuned) + " in tuning" : "") + ")";
  seconds[static_cast<std::size_t>(best)] = std::numeric_limits<double>::infinity();
  best = fastest_finite(seconds);
  return best >= 0;
}

std::vector<int> choose_finalists(const std::vector<double>& seconds, double margin, int max_finalists) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(seconds.size()); ++i)
    if (std::isfinite(seconds[static_cast<std::size_t>(i)])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return seconds[static_cast<std::size_t>(a)] < seconds[static_cast<std::size_t>(b)];
  });
  std::vector<int> finalists;
  for (const int i : order) {
    if (static_cast<int>(finalists.size()) >= max_finalists ||
        seconds[static_cast<std::size_t>(i)] > margin * seconds[static_cast<std::size_t>(order.front())])
      break;
    finalists.push_back(i);
  }
  return finalists;
}

std::vector<char> competes_in_rounds(const std::vector<double>& probe, const std::function<bool(int)>& always) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(probe.size()); ++i)
    if (std::isfinite(probe[static_cast<std::size_t>(i)])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return probe[static_cast<std::size_t>(a)] < probe[static_cast<std::size_t>(b)];
  });
  std::vector<char> compete(probe.size(), 0);
  if (order.empty()) return compete;
  const double fastest = probe[static_cast<std::size_t>(order.front())];
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const int i = order[rank];
    compete[static_cast<std::size_t>(i)] = rank < static_cast<std::size_t>(kRoundsAtLeast) || always(i) ||
                                           probe[static_cast<std::size_t>(i)] <= kProbeMargin * fastest;
  }
  return compete;
}

namespace {

std::vector<double> medians_of(const std::vector<std::vector<double>>& samples) {
  std::vector<double> medians;
  for (const auto& s : samples) medians.push_back(s.empty() ? std::numeric_limits<double>::infinity() : median_of(s));
  return medians;
}

}  // namespace

int fastest_median(const std::vector<std::vector<double>>& samples) { return fastest_finite(medians_of(samples)); }

int stable_fastest(const std::vector<std::vector<double>>& samples, const std::vector<int>& order, double tie) {
  const std::vector<double> medians = medians_of(samples);
  const int fastest = fastest_finite(medians);
  if (fastest < 0) return -1;
  int chosen = fastest;
  for (int i = 0; i < static_cast<int>(medians.size()); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (std::isfinite(medians[k]) && medians[k] <= tie * medians[static_cast<std::size_t>(fastest)] &&
        order[k] < order[static_cast<std::size_t>(chosen)])
      chosen = i;
  }
  return chosen;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Timers = std::vector<std::unique_ptr<Timer>>;

// Runs f for candidate i; a candidate that throws (other than out of memory, which ends the case) is marked failed
// with its error, and the stream is left clean for the next.
template <class F>
bool attempt(TuningResult& r, int i, cudaStream_t stream, F&& f) {
  try {
    f();
    return true;
  } catch (const OutOfMemoryError&) {
    throw;
  } catch (const std::exception& e) {
    r.errors[static_cast<std::size_t>(i)] = e.what();
    cudaGetLastError();
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    return false;
  }
}

// The screen: launches back to back from the host, held until issued: cheap, and close to the GPU's time.
std::vector<double> screen_all(Workload& w, cudaStream_t stream, TuningResult& r) {
  const int count = w.candidate_count();
  std::vector<double> screened(static_cast<std::size_t>(count), kInf);
  Timer screen(stream, L2Mode::hot, nullptr, std::function<double(double)>{}, kTuningBatchSeconds);
  for (int i = 0; i < count; ++i)
    attempt(r, i, stream, [&] {
      w.choose(i);
      screen.begin(w, false);
      const double first = screen.eager(1);  // loads the candidate's kernels
      screened[static_cast<std::size_t>(i)] =
          screen.held_eager(choose_batch(first, kTuningBatchSeconds), kScreenHoldSeconds);
      r.stages[static_cast<std::size_t>(i)].screen = screened[static_cast<std::size_t>(i)];
    });
  return screened;
}

// The probe: those within kScreenMargin of the fastest screen (and `always`) are captured into graphs, one timer
// each, kept for the rounds. The others keep their screen time and never compete.
std::vector<double> probe_in_graphs(Workload& w, cudaStream_t stream, bool allow_graph, TuningResult& r,
                                    const std::vector<double>& screened, const std::function<bool(int)>& always,
                                    Timers& timers) {
  const int count = w.candidate_count();
  std::vector<double> probe(static_cast<std::size_t>(count), kInf);
  const double fastest_screen = *std::min_element(screened.begin(), screened.end());
  for (int i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!std::isfinite(screened[k])) continue;  // it failed
    if (screened[k] > kScreenMargin * fastest_screen && !always(i)) {
      probe[k] = screened[k];
      continue;
    }
    const bool ok = attempt(r, i, stream, [&] {
      w.choose(i);
      timers[k] = std::make_unique<Timer>(stream, L2Mode::hot, nullptr, std::function<double(double)>{},
                                          kTuningBatchSeconds);
      timers[k]->begin(w, allow_graph);
      probe[k] = r.stages[k].probe = timers[k]->warm_up(0.0);
      if (timers[k]->mode() == TimingMode::eager && allow_graph)
        r.eager_note += (r.eager_note.empty() ? "" : "; ") + w.candidate_name(i) + ": " + timers[k]->eager_reason();
    });
    if (!ok) {
      probe[k] = kInf;
      timers[k].reset();
    }
  }
  return probe;
}

// The rounds: every competing candidate's graph replayed once a round, `rounds` times, so drift falls on all alike.
// wall: per launch, the untimed work included (what the confirmation's batches are sized by).
void run_rounds(Workload& w, Timers& timers, int rounds, std::vector<std::vector<double>>& samples,
                std::vector<std::vector<double>>& wall) {
  for (int round = 0; round < rounds; ++round)
    for (std::size_t k = 0; k < timers.size(); ++k) {
      if (!timers[k]) continue;
      w.choose(static_cast<int>(k));
      const Sample sample = timers[k]->sample();
      samples[k].push_back(sample.seconds_per_launch);
      wall[k].push_back(sample.wall_seconds / sample.launches);
    }
}

// The confirmation: the rounds' batches are a quarter of the measurement's and their medians few, so the finalists
// are timed again as the measurement times them, in rounds again. A finalist keeps its timer, its graph captured
// again with the measurement's batch; one that cannot be captured so is marked failed, as in the probe. Returns the
// winner, or -1 where fewer than two finalists were confirmed.
int confirm(Workload& w, cudaStream_t stream, TuningResult& r, const std::vector<int>& finalists, Timers& timers,
            const std::vector<std::vector<double>>& wall, double measure_batch_s) {
  std::vector<int> confirmed;
  for (const int i : finalists) {
    const auto k = static_cast<std::size_t>(i);
    if (attempt(r, i, stream, [&] {
          w.choose(i);
          timers[k]->retarget(measure_batch_s, median_of(wall[k]));
        })) {
      confirmed.push_back(i);
    } else {
      r.seconds[k] = kInf;
      timers[k].reset();
    }
  }
  if (confirmed.size() < 2) return -1;
  std::vector<std::vector<double>> again(confirmed.size());
  for (int round = 0; round < kConfirmRounds; ++round)
    for (std::size_t j = 0; j < confirmed.size(); ++j) {
      w.choose(confirmed[j]);
      again[j].push_back(timers[static_cast<std::size_t>(confirmed[j])]->sample().seconds_per_launch);
    }
  for (std::size_t j = 0; j < confirmed.size(); ++j) {
    const auto k = static_cast<std::size_t>(confirmed[j]);
    r.seconds[k] = r.stages[k].confirm = median_of(again[j]);
  }
  r.finalists = static_cast<int>(confirmed.size());
  return confirmed[static_cast<std::size_t>(stable_fastest(again, confirmed))];
}

}  // namespace

TuningResult tune(Workload& w, cudaStream_t stream, bool allow_graph, int rounds, double measure_batch_s) {
  const int count = w.candidate_count();
  const auto n = static_cast<std::size_t>(count);
  TuningResult r;
  r.default_index = w.default_candidate();
  r.reference_index = w.reference_candidate();
  // The library's default and PyTorch's call are timed through to the confirmation whatever their times: the choice
  // is held against both.
  const auto always = [&r](int i) { return i == r.default_index || i == r.reference_index; };
  r.seconds.assign(n, kInf);
  r.errors.assign(n, "");
  r.stages.assign(n, CandidateStages{});
  Timers timers(n);
  const std::vector<double> screened = screen_all(w, stream, r);
  const std::vector<double> probe = probe_in_graphs(w, stream, allow_graph, r, screened, always, timers);
  // Only candidates close to the fastest probe (and the few fastest, the default and PyTorch's call) compete in the
  // rounds; the others keep their probe time: a batched probe is within a few percent of the median, so one
  // kProbeMargin behind cannot win, and skipping it saves most of the tuning time on cases with many slow algorithms
  // (cuDNN's FFT and GEMM paths).
  std::vector<double> graph_probe(n, kInf);
  for (std::size_t k = 0; k < n; ++k)
    if (timers[k]) graph_probe[k] = probe[k];
  const std::vector<char> compete = competes_in_rounds(graph_probe, always);
  for (std::size_t k = 0; k < n; ++k)
    if (!compete[k]) timers[k].reset();
  std::vector<std::vector<double>> samples(n), wall(n);
  run_rounds(w, timers, rounds, samples, wall);
  std::vector<double> in_rounds(n, kInf);
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(probe[k])) continue;  // it failed
    r.seconds[k] = samples[k].empty() ? probe[k] : median_of(samples[k]);
    if (!samples[k].empty()) in_rounds[k] = r.stages[k].rounds = r.seconds[k];
  }
  // The finalists: those within kConfirmMargin of the rounds' fastest, and the default and PyTorch's call.
  std::vector<int> finalists = choose_finalists(in_rounds);
  for (int i = 0; i < count; ++i)
    if (always(i) && std::isfinite(in_rounds[static_cast<std::size_t>(i)]) &&
        std::find(finalists.begin(), finalists.end(), i) == finalists.end())
      finalists.push_back(i);
  if (finalists.size() < 2) finalists.clear();
  for (int i = 0; i < count; ++i)  // only the finalists' graphs are replayed from here on
    if (std::find(finalists.begin(), finalists.end(), i) == finalists.end())
      timers[static_cast<std::size_t>(i)].reset();
  const int winner = confirm(w, stream, r, finalists, timers, wall, measure_batch_s);
  // The confirmation's winner; otherwise (no confirmation) the fastest time.
  r.best = winner >= 0 ? winner : fastest_finite(r.seconds);
  if (r.best >= 0) w.choose(r.best);
  return r;
}

}  // namespace opmark::bench
