#pragma once
// One autotuner, owned by the harness, for every family whose library offers several algorithms (cuBLASLt's
// heuristic list, cuDNN's engines, cuDNN's RNN algorithms, cuSPARSE's algorithms). A workload only lists its
// candidates (workload.h); the tuner times them the way the measurement does (CUDA-graph replays, hot L2), and the
// harness leaves out those that compute a wrong result and writes the same counters for every family.
#include <cuda_runtime.h>

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "bench/harness/timer.h"
#include "bench/harness/workload.h"

namespace opmark::bench {

// How far behind the fastest candidate's probe another may be and still compete in the rounds.
constexpr double kProbeMargin = 1.25;
// How far behind the fastest candidate's screen (launches back to back from the host, held until issued) another may
// be and still be captured and probed in a graph. Wide: a screen is one short batch, and a candidate of several
// small kernels gains more in a graph.
constexpr double kScreenMargin = 1.5;
// How long the screen holds a candidate's launches behind the launch gate while the host issues them, so the screen
// times the GPU: unheld, a cuDNN or cuBLASLt call's host time, often several times its GPU time and varying run to
// run, left the fastest candidate behind the margin in some runs (docs/regimes.md). Longer issues (an RNN of
// thousands of kernels) go on unheld after it, costing at most this much.
constexpr double kScreenHoldSeconds = 5e-3;
// A tuning batch lasts about this long: a quarter of a measurement's, since dozens of candidates are each captured
// into a graph; the graph's fixed start, timed once per batch, is then about 1% of it, the same for every candidate.
constexpr double kTuningBatchSeconds = 0.25e-3;
// Candidates whose round median is within this of the fastest are finalists, timed again with the measurement's
// batches: medians of a few short batches cannot order candidates a few percent apart, and the order can change.
constexpr double kConfirmMargin = 1.05;
// At most this many finalists (the fastest in the rounds first), timed in kConfirmRounds rounds: each costs a
// capture and kConfirmRounds batches of kBatchTargetSeconds, which bounds the confirmation's time a case (four
// finalists in five rounds added half again to the GEMM sets' tuning time).
constexpr int kMaxFinalists = 3;
constexpr int kConfirmRounds = 3;
// Rounds that visit every candidate within kProbeMargin in turn.
constexpr int kTuningRounds = 5;

// What each stage of the tuning timed for one candidate, in seconds per launch; NaN where the stage did not time it
// (screened out, not close enough to compete, or not a finalist).
struct CandidateStages {
  double screen = std::numeric_limits<double>::quiet_NaN();   // launches back to back, held until issued
  double probe = std::numeric_limits<double>::quiet_NaN();    // the first replay of its graph
  double rounds = std::numeric_limits<double>::quiet_NaN();   // median over the rounds
  double confirm = std::numeric_limits<double>::quiet_NaN();  // median over the confirmation's rounds
};

struct TuningResult {
  int best = -1;                    // the fastest (in the confirmation, where one ran) not left out; -1 if none
  int default_index = -1;           // the library's own first choice, -1 when it has none
  // Per candidate, median seconds per launch (a finalist's of its confirmation rounds); infinity where it failed.
  std::vector<double> seconds;
  std::vector<std::string> errors;  // per candidate, why it failed (empty when it ran)
  std::string dropped;              // candidates left out after a wrong result: "name (why); ..."
  std::string eager_note;           // candidates that could not be captured into a graph, timed eagerly
  int finalists = 0;                // candidates timed in the confirmation; 0 where none was close to the fastest
  std::vector<CandidateStages> stages;  // per candidate, what each stage timed (--opmark_tuning_log prints them)

  double best_seconds() const { return best >= 0 ? seconds[static_cast<std::size_t>(best)] : 0; }
  // The default's tuning time (0 when there is none, or it failed).
  double default_seconds() const;
  // What tuning buys over the default: default / best (0 when unknown).
  double speedup() const;
  // Leaves the best candidate (`name`) out because it computed a wrong result (`why`), and makes the next fastest
  // the best; false when no candidate that ran is left.
  bool drop_best(const std::string& name, const std::string& why);
  // " | left out after a wrong result: ..." for a label, or nothing.
  std::string dropped_note() const { return dropped.empty() ? "" : " | left out after a wrong result: " + dropped; }
  // The counters every tunable family reports: candidates, default_us, autotune_speedup, tuning_finalists, and
  // runner_up_us (the next fastest candidate's tuning time, where another ran), which says how close a choice was
  // when two runs choose differently.
  std::map<std::string, double> counters() const;
};

// Times every candidate of `w` on `stream`: each is screened with launches back to back from the host, held until
// issued (kScreenHoldSeconds; a candidate that throws is marked failed and the others go on); those within
// kScreenMargin of the fastest screen, and the library's default, are captured into graphs, warmed up and probed; those within kProbeMargin of the fastest probe
// are timed in `rounds` rounds that visit every one in turn, so clock and temperature drift during tuning falls on
// all alike; a candidate's time is its median over the rounds (or its probe, or its screen, where it stopped).
// Then a confirmation: where two or more candidates are finalists (choose_finalists), their batches are lengthened
// to the measurement's (`measure_batch_s`) and they are timed in kConfirmRounds more rounds that visit each in
// turn; a finalist's time is its median there, and the fastest finalist wins (fastest_median). Leaves `w` on the
// winner (w.choose). `allow_graph` false times eagerly.
TuningResult tune(Workload& w, cudaStream_t stream, bool allow_graph, int rounds = kTuningRounds,
                  double measure_batch_s = kBatchTargetSeconds);

// The candidates that go to the confirmation: those whose time (`seconds`, per candidate; infinity or NaN where it
// was not timed in the rounds) is within `margin` of the fastest, the fastest first, at most `max_finalists`.
// Host-only, tested on the CPU.
std::vector<int> choose_finalists(const std::vector<double>& seconds, double margin = kConfirmMargin,
                                  int max_finalists = kMaxFinalists);

// The position in `samples` (one list of times per finalist) whose median is the lowest, the first of equal ones;
// -1 where every list is empty. Host-only, tested on the CPU.
int fastest_median(const std::vector<std::vector<double>>& samples);

}  // namespace opmark::bench
