#include "core/counters.h"
#include "bench/harness/output/results_log.h"

#include <chrono>
#include <ctime>


namespace opmark::bench {

namespace counter = core::counter;

ResultsLog::ResultsLog(const std::string& path, nlohmann::json context, const core::ResumeState* resumed)
    : resumed_status_(resumed ? resumed->status : std::map<std::string, std::string>{}) {
  if (context.contains("regime")) regime_ = context["regime"];
  if (path.empty()) return;
  log_ = std::make_unique<core::LogFile>(path, resumed ? core::LogFile::Mode::append : core::LogFile::Mode::replace);
  if (resumed) return;  // a resumed log keeps the context line it has
  core::ResultRecord line;
  line.kind = core::RecordKind::context;
  line.context = std::move(context);
  append({core::to_json(line)});
}

void ResultsLog::append(const std::vector<nlohmann::json>& lines) {
  if (!log_) return;
  std::string text;
  for (nlohmann::json line : lines) {
    // Every case line says its regime, so a line copied out of its log still says which regime its time is.
    if (line.value("type", "") != "context" && line.value("type", "") != "summary" && regime_)
      line["regime"] = *regime_;
    text += line.dump() + '\n';
  }
  log_->append(text);
}

void ResultsLog::close() {
  if (log_) log_->close();
}

nlohmann::json run_record(const std::string& case_name, const core::Case* c, const Outcome* outcome,
                          bool is_aggregate, const std::string& aggregate_name, long long repetition,
                          long long iterations, double time_us, const std::map<std::string, double>& counters) {
  core::ResultRecord r;
  r.kind = is_aggregate ? core::RecordKind::aggregate : core::RecordKind::run;
  r.logged_at = core::utc_now();  // a log shows when each case finished and how long a run took
  r.name = case_name;
  if (is_aggregate) r.aggregate = aggregate_name;
  else r.repetition = repetition;
  if (c) {
    r.family = c->family;
    r.direction = c->direction;
    r.precision = c->precision;
    r.sets = std::vector<std::string>(c->sets.begin(), c->sets.end());
    r.applications = std::vector<std::string>(c->applications.begin(), c->applications.end());
    r.models = std::vector<std::string>(c->models.begin(), c->models.end());
  }
  r.status = outcome ? outcome->status : Status::failed;
  if (r.timed()) {  // only a case that ran and was verified reports a time
    r.iterations = iterations;
    r.time_us = time_us;
    r.counters = counters;
  }
  if (outcome) {
    if (!outcome->reason.empty()) r.reason = outcome->reason;
    if (!outcome->verification.empty()) r.verification = outcome->verification;
    if (!outcome->label.empty()) r.label = outcome->label;
    if (is_aggregate && r.timed() && !outcome->kernels.empty()) r.kernels = outcome->kernels;
  } else {
    r.reason = "the harness has no outcome for this case";
  }
  return core::to_json(r);
}

// A repetition's own counters: its clock (measured on the GPU), the clock-event reasons it saw, samples dropped.
static std::map<std::string, double> repetition_counters(const Repetition& r, bool clock_event_reasons) {
  std::map<std::string, double> c;
  c[counter::discarded_samples] = r.discarded;
  if (r.sm_clock_mhz > 0) c[counter::sm_clock_mhz] = r.sm_clock_mhz;
  if (r.min_sm_clock_mhz > 0) c[counter::sm_clock_min_mhz] = r.min_sm_clock_mhz;
  if (clock_event_reasons) c[counter::clock_event_reasons] = static_cast<double>(r.reasons);
  return c;
}

void ResultsLog::finished(const CaseRecord& record) {
  const std::string& name = record.name;
  const Outcome& outcome = record.outcome;
  status_of_[name] = outcome.status;
  const Measurement* m = record.measurement ? &*record.measurement : nullptr;
  if (!m || !is_timed(outcome.status)) {
    append({run_record(name, &record.c, &outcome, false, "", 0, 0, 0, {})});
    return;
  }
  std::vector<nlohmann::json> lines;
  for (std::size_t i = 0; i < m->reps.size(); ++i)
    lines.push_back(run_record(name, &record.c, &outcome, false, "", static_cast<long long>(i), m->reps[i].launches,
                               m->reps[i].seconds_per_launch * 1e6,
                               repetition_counters(m->reps[i], record.clock_event_reasons)));
  long long launches = 0;
  for (const Repetition& r : m->reps) launches += r.launches;
  lines.push_back(run_record(name, &record.c, &outcome, true, "median", 0, launches, m->median_s * 1e6,
                             outcome.counters));
  lines.push_back(run_record(name, &record.c, &outcome, true, "mean", 0, launches, m->mean_s * 1e6,
                             outcome.counters));
  append(lines);
}

void ResultsLog::retimed(const CaseRecord& record) {
  if (!record.measurement) return;  // only a timed case is re-timed
  const Measurement& m = *record.measurement;
  status_of_[record.name] = record.outcome.status;
  std::map<std::string, double> counters = record.outcome.counters;
  for (std::size_t i = 0; i < m.recheck_reps_s.size(); ++i)
    counters[counter::remeasured_rep_us(i)] = m.recheck_reps_s[i] * 1e6;
  append({run_record(record.name, &record.c, &record.outcome, true, "recheck", 0, 0, m.median_s * 1e6, counters)});
}

void ResultsLog::append_summary() {
  // A resumed log's summary speaks for the whole log: its earlier cases, with this run's word where it re-timed one.
  std::map<std::string, std::string> status = resumed_status_;
  for (const auto& [name, s] : status_of_) status[name] = name_of(s);
  std::map<std::string, int> counts;
  for (const auto& [name, s] : status) ++counts[s];
  core::ResultRecord line;
  line.kind = core::RecordKind::summary;
  for (Status s : {Status::ok, Status::skipped, Status::failed, Status::unstable})
    line.counts[name_of(s)] = counts[name_of(s)];
  append({core::to_json(line)});
}

}  // namespace opmark::bench
