#include "bench/harness/cases/verify.h"

#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"

namespace opmark::bench {

Outcome verify_workload(Workload& w, cudaStream_t stream, TuningResult* tuning) {
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
    if (!tuning || attempt >= kMaxVerifyAttempts || !tuning->drop_best(w.candidate_name(w.chosen()), why)) return o;
    w.choose(tuning->best);
  }
}

Outcome tune_and_verify(Workload& w, cudaStream_t stream, bool allow_graph, TuningResult* tuning,
                        PhaseTimes* phases, double measure_batch_s) {
  const int count = w.candidate_count();
  if (count == 0) {
    PhaseTimes::Scope phase(phases, "verification");
    return verify_workload(w, stream);
  }
  {
    PhaseTimes::Scope phase(phases, "tuning");
    *tuning = tune(w, stream, allow_graph, kTuningRounds, measure_batch_s);
  }
  if (tuning->best < 0) {
    std::string first;
    for (const auto& e : tuning->errors)
      if (!e.empty()) {
        first = e;
        break;
      }
    throw UnsupportedError("every one of the " + std::to_string(count) + " candidates failed; first: " + first);
  }
  w.choose(tuning->best);
  PhaseTimes::Scope phase(phases, "verification");
  return verify_workload(w, stream, tuning);
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

}  // namespace opmark::bench
