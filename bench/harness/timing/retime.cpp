#include "core/counters.h"
#include "bench/harness/timing/retime.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "bench/harness/harness.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

namespace counter = core::counter;

void retime_case(SampleSource& quick, ProcessGroup* group, const std::function<Measurement()>& measure_again,
                 Measurement& m, Outcome& o) {
  const bool many = group && group->multi_process();
  std::function<double(double)> agree;
  if (many) agree = [group](double v) { return group->agree_max(v); };
  SampleGoal goal;
  goal.min_samples = kRetimeMinSamples;
  goal.min_seconds = kRetimeSeconds;
  std::vector<double> times;
  for (const Sample& s : sample_until([&] { return quick.sample(); }, agree, goal))
    times.push_back(many ? group->agree_mean(s.seconds_per_launch) : s.seconds_per_launch);
  m.recheck_s = median_of(times);
  o.counters[counter::recheck_us] = m.recheck_s * 1e6;
  // The run-to-run noise this case shows: what a comparison of two runs must allow for.
  o.counters[counter::run_noise] = std::abs(m.recheck_s - m.median_s) / m.median_s;
  if (times_agree(m.recheck_s, m.median_s)) return;
  const Measurement again = measure_again();
  m.remeasured_s = again.median_s;
  for (const Repetition& r : again.reps) m.recheck_reps_s.push_back(r.seconds_per_launch);
  o.counters[counter::remeasured_us] = m.remeasured_s * 1e6;
  if (!times_agree(m.remeasured_s, m.median_s)) {
    o.status = Status::unstable;
    o.reason = "re-timed at the end of the run at " + us_text(m.recheck_s) + " and measured again at " +
               us_text(m.remeasured_s) + ", against a median of " + us_text(m.median_s) + " (" +
               ratio_text(m.remeasured_s, m.median_s) + ")";
  }
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The candidate a tuned case ran, as its label begins (counters.cpp's case_label): empty for a case not tuned.
std::string candidate_of_label(const std::string& label) {
  for (const char* after : {" (fastest of ", " (pinned by --opmark_pin)"}) {
    const std::size_t at = label.find(after);
    if (at != std::string::npos) return label.substr(0, at);
  }
  return "";
}
}  // namespace

void Harness::restore_for_retime(core::Case c, const core::ResultRecord& median) {
  const std::string name = core::make_case_name(c);
  if (index_by_name_.count(name) || !median.time_us || !(*median.time_us > 0)) return;
  Outcome o;
  o.status = Status::ok;
  if (median.counters) o.counters = *median.counters;
  o.label = median.label.value_or("");
  o.verification = median.verification.value_or("");
  o.kernels = median.kernels.value_or(std::vector<std::string>{});
  Measurement m;
  m.median_s = *median.time_us * 1e-6;
  const std::string candidate = candidate_of_label(o.label);
  if (!candidate.empty()) chosen_candidate_[name] = candidate;
  index_by_name_[name] = cases_.size();
  cases_.push_back(std::move(c));
  outcomes_[name] = std::move(o);
  measurements_[name] = std::move(m);
}

void Harness::recheck() {
  if (!device_ || !options_.recheck || options_.profile_launches > 0) return;
  prepared_.reset();
  phases_.end_cases();  // the re-time is the run's, not the last family's
  PhaseTimes::Scope phase(phases_, "end-of-run re-time");
  const int to_recheck = count(Status::ok);
  int rechecked = 0;
  for (std::size_t i = 0; i < cases_.size(); ++i) {
    const std::string name = core::make_case_name(cases_[i]);
    auto o = outcomes_.find(name);
    auto m = measurements_.find(name);
    if (o == outcomes_.end() || o->second.status != Status::ok || m == measurements_.end()) continue;
    const auto case_start = std::chrono::steady_clock::now();
    // A multi-process run's re-time is as slow as its collectives' set-up: say where it is.
    if (multi_process() && group_->rank() == 0)
      std::fprintf(stderr, "opmark: re-timing %d of %d: %s\n", ++rechecked, to_recheck, name.c_str());
    bool retimed = false;
    try {
      const auto chosen = chosen_candidate_.find(name);
      const std::string chosen_name = chosen == chosen_candidate_.end() ? std::string() : chosen->second;
      std::unique_ptr<Workload> workload = build(cases_[i], name, chosen_name);
      Workload& w = *workload;
      // The candidate the measurement ran, verified in this run already: by name (a workload may list only it).
      if (w.candidate_count() > 0) {
        int index = 0;
        while (index < w.candidate_count() && w.candidate_name(index) != chosen_name) ++index;
        if (index == w.candidate_count()) continue;  // listed otherwise now
        w.choose(index);
      }
      std::unique_ptr<Timer> timer = measurer_->timer_for(w, stream());
      timer->warm_up(std::min(options_.warmup_ms, 2.0));
      TimerSource quick(*timer);
      // No estimate of a launch's time is at hand here (the sustained windows size their batches without one).
      retime_case(quick, group_, [&] { return measurer_->measure(*timer, 0); }, m->second, o->second);
      retimed = true;
      if (multi_process() && group_->rank() == 0)
        std::fprintf(stderr, "opmark:   re-timed in %.1f s\n", seconds_since(case_start));
    } catch (const std::exception& e) {
      // The case keeps the measurement it has; the re-time is a check, not a result.
      std::fprintf(stderr, "opmark: %s: the end-of-run re-time failed: %s\n", name.c_str(), e.what());
      cudaGetLastError();
      if (multi_process()) group_->abort(name + ": " + e.what());
    }
    // Outside the try: a results log that cannot be written ends the run (results_log.h), it is no failed re-time.
    if (retimed && sink_) sink_->retimed(record_of(i));
  }
}

}  // namespace opmark::bench
