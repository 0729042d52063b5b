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

#include "bench/harness/timing/timer.h"
#include "bench/harness/cases/workload.h"

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
// However far behind the fastest probe, this many of the fastest probes go on to the rounds: a probe is one replay,
// and a fast candidate whose first replay ran slow (a clock step, a graph's first upload) was left out of whole runs.
constexpr int kRoundsAtLeast = 3;
// Confirmed candidates within this of the fastest median are a tie, won by the earliest in the candidates' fixed
// order (the library's or the family's own): two runs whose medians differ by noise then choose the same candidate.
constexpr double kTieMargin = 1.01;

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
  int reference_index = -1;         // the call PyTorch makes for the op (workload.h), -1 when none is listed
  // Per candidate, median seconds per launch (a finalist's of its confirmation rounds); infinity where it failed.
  std::vector<double> seconds;
  std::vector<std::string> errors;  // per candidate, why it failed (empty when it ran)
  std::string dropped;              // candidates left out after a wrong result: "name (why); ..."
  std::string eager_note;           // candidates that could not be captured into a graph, timed eagerly
  int finalists = 0;                // candidates timed in the confirmation; 0 where none was close to the fastest
  std::vector<CandidateStages> stages;  // per candidate, what each stage timed (--opmark_tuning_log prints them)

  double best_seconds() const { return best >= 0 ? seconds[static_cast<std::size_t>(best)] : 0; }
  // A candidate's tuning time (0 for no candidate, -1, or one that failed).
  double seconds_of(int candidate) const;
  // The default's tuning time (0 when there is none, or it failed).
  double default_seconds() const { return seconds_of(default_index); }
  // PyTorch's call's tuning time (0 when none is listed, or it failed).
  double reference_seconds() const { return seconds_of(reference_index); }
  // What tuning buys over the default: default / best (0 when unknown).
  double speedup() const;
  // Leaves the best candidate (`name`) out because it computed a wrong result (`why`), and makes the next fastest
  // the best; false when no candidate that ran is left.
  bool drop_best(const std::string& name, const std::string& why);
  // " | left out after a wrong result: ..." for a label, or nothing.
  std::string dropped_note() const { return dropped.empty() ? "" : " | left out after a wrong result: " + dropped; }
  // The counters every tunable family reports: candidates, default_us, autotune_speedup, tuning_finalists, and
  // runner_up_us (the next fastest candidate's tuning time, where another ran), which says how close a choice was
  // when two runs choose differently; where the workload lists PyTorch's call, torch_path_us (its time, confirmed
  // beside the winner at the measurement's batch length) and torch_path_chosen (1 where it won).
  std::map<std::string, double> counters() const;
};

// Times every candidate of `w` on `stream`: each is screened with launches back to back from the host, held until
// issued (kScreenHoldSeconds; a candidate that throws is marked failed and the others go on); those within
// kScreenMargin of the fastest screen are captured into graphs, warmed up and probed; those within kProbeMargin of
// the fastest probe, and at least the kRoundsAtLeast fastest, are timed in `rounds` rounds that visit every one in
// turn, so clock and temperature drift during tuning falls on all alike; a candidate's time is its median over the
// rounds (or its probe, or its screen, where it stopped). Then a confirmation: the finalists (choose_finalists) are
// timed again with the measurement's batches (`measure_batch_s`) in kConfirmRounds more rounds that visit each in
// turn; a finalist's time is its median there, and the winner is stable_fastest's. The library's default and
// PyTorch's call (workload.h's reference_candidate) go through every stage whatever their times, and are finalists
// whenever another candidate is: the winner is never one that measured slower than either at the measurement's
// batch length. Leaves `w` on the winner (w.choose). `allow_graph` false times eagerly.
TuningResult tune(Workload& w, cudaStream_t stream, bool allow_graph, int rounds = kTuningRounds,
                  double measure_batch_s = kBatchTargetSeconds);

// The candidates that go to the confirmation: those whose time (`seconds`, per candidate; infinity or NaN where it
// was not timed in the rounds) is within `margin` of the fastest, the fastest first, at most `max_finalists`.
// Host-only, tested on the CPU.
std::vector<int> choose_finalists(const std::vector<double>& seconds, double margin = kConfirmMargin,
                                  int max_finalists = kMaxFinalists);

// Which probed candidates go on to the rounds: those within kProbeMargin of the fastest probe (`probe`, per
// candidate; infinity where none was taken), the kRoundsAtLeast fastest, and those `always` names (the default and
// PyTorch's call); never one without a probe. Host-only, tested on the CPU.
std::vector<char> competes_in_rounds(const std::vector<double>& probe, const std::function<bool(int)>& always);

// The position in `samples` (one list of times per finalist) whose median is the lowest, the first of equal ones;
// -1 where every list is empty. Host-only, tested on the CPU.
int fastest_median(const std::vector<std::vector<double>>& samples);

// The position in `samples` to keep: of the lists whose median is within `tie` of the lowest, the one whose
// candidate (`order`, the candidate index of each list) comes first; -1 where every list is empty. Host-only,
// tested on the CPU.
int stable_fastest(const std::vector<std::vector<double>>& samples, const std::vector<int>& order,
                   double tie = kTieMargin);

}  // namespace opmark::bench
