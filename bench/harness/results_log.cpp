#include "bench/harness/results_log.h"

#include <chrono>
#include <ctime>

#include "bench/harness/case_line.h"
#include "core/error.h"

namespace opmark::bench {

ResultsLogReporter::ResultsLogReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, const std::string& path,
                                       const Harness& harness, nlohmann::json context, const std::string& json_path,
                                       const core::ResumeState* resumed)
    : display_(std::move(display)), harness_(harness), context_(std::move(context)),
      resumed_counts_(resumed ? resumed->counts : std::map<std::string, int>{}), resuming_(resumed != nullptr) {
  if (!path.empty())
    log_ = std::make_unique<core::LogFile>(path,
                                           resuming_ ? core::LogFile::Mode::append : core::LogFile::Mode::replace);
  if (!json_path.empty()) {
    json_file_ = std::make_unique<core::LogFile>(json_path);
    json_ = std::make_unique<benchmark::JSONReporter>();
    json_->SetOutputStream(&json_text_);
    json_->SetErrorStream(&json_text_);  // as Google Benchmark sets its own file reporter's
  }
}

void ResultsLogReporter::append(const nlohmann::json& record) {
  if (!log_) return;
  nlohmann::json line = record;
  // Every case line says its regime, so a line copied out of its log still says which regime its time is.
  if (line.value("type", "") != "context" && line.value("type", "") != "summary" && context_.contains("regime"))
    line["regime"] = context_["regime"];
  log_->append(line.dump() + '\n');  // each line reaches the file as soon as its case is done
}

void ResultsLogReporter::write_json() {
  json_file_->append(json_text_.str());
  json_text_.str("");
}

void ResultsLogReporter::close() {
  if (log_) log_->close();
}

void ResultsLogReporter::append(const core::ResultRecord& record) { append(core::to_json(record)); }

bool ResultsLogReporter::ReportContext(const Context& context) {
  core::ResultRecord line;
  line.kind = core::RecordKind::context;
  line.context = context_;
  if (!resuming_) append(line);  // a resumed log keeps the context line it has
  display_->SetOutputStream(&GetOutputStream());
  display_->SetErrorStream(&GetErrorStream());
  if (json_) {
    json_->ReportContext(context);
    write_json();
  }
  return display_->ReportContext(context);
}

// ISO 8601 UTC, so a log shows when each case finished and how long a run took.
std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json run_record(const std::string& case_name, const core::Case* c, const Outcome* outcome,
                          bool is_aggregate, const std::string& aggregate_name, long long repetition,
                          long long iterations, double time_us, const std::map<std::string, double>& counters) {
  core::ResultRecord r;
  r.kind = is_aggregate ? core::RecordKind::aggregate : core::RecordKind::run;
  r.logged_at = utc_now();
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
static std::map<std::string, double> repetition_counters(const Repetition& r, const Harness& harness) {
  std::map<std::string, double> c;
  c["discarded_samples"] = r.discarded;
  if (r.sm_clock_mhz > 0) c["sm_clock_mhz"] = r.sm_clock_mhz;
  if (r.min_sm_clock_mhz > 0) c["sm_clock_min_mhz"] = r.min_sm_clock_mhz;
  if (harness.monitor() && harness.monitor()->available()) c["clock_event_reasons"] = static_cast<double>(r.reasons);
  return c;
}

void ResultsLogReporter::ReportRuns(const std::vector<Run>& runs) {
  display_->ReportRuns(runs);
  if (json_) {
    json_->ReportRuns(runs);
    write_json();
  }
  for (const Run& run : runs) {
    const std::string name = reported_case_name(run);
    if (progress_) progress_->reported(name);
    append_case(name);
  }
}

// The harness's record of one case: every repetition ("run"), then the median and the mean ("aggregate"); a case
// that did not run is one line with its status and reason.
void ResultsLogReporter::append_case(const std::string& name) {
  const Outcome* outcome = harness_.outcome(name);
  const Measurement* m = harness_.measurement(name);
  const core::Case* c = harness_.find_case(name);
  const bool timed = outcome && m && (outcome->status == Status::ok || outcome->status == Status::unstable);
  if (!timed) {
    if (!not_run_logged_.insert(name).second) return;
    append(run_record(name, c, outcome, false, "", 0, 0, 0, {}));
    return;
  }
  for (std::size_t i = 0; i < m->reps.size(); ++i)
    append(run_record(name, c, outcome, false, "", static_cast<long long>(i), m->reps[i].launches,
                      m->reps[i].seconds_per_launch * 1e6, repetition_counters(m->reps[i], harness_)));
  long long launches = 0;
  for (const Repetition& r : m->reps) launches += r.launches;
  append(run_record(name, c, outcome, true, "median", 0, launches, m->median_s * 1e6, outcome->counters));
  append(run_record(name, c, outcome, true, "mean", 0, launches, m->mean_s * 1e6, outcome->counters));
}

// After the end-of-run re-time: one more aggregate line ("recheck") carrying the case's status now (unstable when
// the measurements disagree) and the re-time's numbers; readers take a case's last status.
void ResultsLogReporter::append_recheck(const std::string& name) {
  const Outcome* outcome = harness_.outcome(name);
  const Measurement* m = harness_.measurement(name);
  if (!outcome || !m) return;
  std::map<std::string, double> counters = outcome->counters;
  for (std::size_t i = 0; i < m->recheck_reps_s.size(); ++i)
    counters["remeasured_rep" + std::to_string(i) + "_us"] = m->recheck_reps_s[i] * 1e6;
  append(run_record(name, harness_.find_case(name), outcome, true, "recheck", 0, 0, m->median_s * 1e6, counters));
}

void ResultsLogReporter::Finalize() {
  display_->Finalize();
  if (json_) {
    json_->Finalize();
    write_json();
    json_file_->close();
  }
}

void ResultsLogReporter::append_summary() {
  core::ResultRecord line;
  line.kind = core::RecordKind::summary;
  // A resumed log's summary counts the cases of both parts: the line speaks for the whole log.
  for (Status s : {Status::ok, Status::skipped, Status::failed, Status::unstable}) {
    const auto earlier = resumed_counts_.find(name_of(s));
    line.counts[name_of(s)] = harness_.count(s) + (earlier == resumed_counts_.end() ? 0 : earlier->second);
  }
  append(line);
}

}  // namespace opmark::bench
