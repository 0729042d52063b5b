#include "bench/results_log.h"

#include <chrono>
#include <ctime>

#include "core/error.h"

namespace opmark::bench {

ResultsLogReporter::ResultsLogReporter(std::unique_ptr<benchmark::BenchmarkReporter> display, const std::string& path,
                                       const Harness& harness, nlohmann::json context)
    : display_(std::move(display)), harness_(harness), context_(std::move(context)) {
  if (!path.empty()) {
    log_.open(path, std::ios::out | std::ios::trunc);
    if (!log_) throw Error(path + ": cannot open the results log for writing");
  }
}

void ResultsLogReporter::append(const nlohmann::json& line) {
  if (!log_.is_open()) return;
  log_ << line.dump() << '\n';
  log_.flush();  // each line reaches the file as soon as its case is done
}

bool ResultsLogReporter::ReportContext(const Context& context) {
  append({{"type", "context"}, {"context", context_}});
  display_->SetOutputStream(&GetOutputStream());
  display_->SetErrorStream(&GetErrorStream());
  return display_->ReportContext(context);
}

// ISO 8601 UTC, so a log shows when each case finished and how long a run took.
static std::string utc_now() {
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
  nlohmann::json j;
  j["type"] = is_aggregate ? "aggregate" : "run";
  j["logged_at"] = utc_now();
  j["name"] = case_name;
  if (is_aggregate) j["aggregate"] = aggregate_name;
  else j["repetition"] = repetition;
  if (c) {
    j["family"] = c->family;
    j["direction"] = c->direction;
    j["precision"] = c->precision;
    j["sets"] = c->sets;
    j["applications"] = c->applications;
    j["models"] = c->models;
  }
  const Status status = outcome ? outcome->status : Status::failed;
  j["status"] = name_of(status);
  if (status == Status::ok) {
    j["iterations"] = iterations;
    j["time_us"] = time_us;
    j["counters"] = counters;
  }
  if (outcome) {
    if (!outcome->reason.empty()) j["reason"] = outcome->reason;
    if (!outcome->verification.empty()) j["verification"] = outcome->verification;
    if (!outcome->label.empty()) j["label"] = outcome->label;
  } else {
    j["reason"] = "the harness has no outcome for this case";
  }
  return j;
}

void ResultsLogReporter::ReportRuns(const std::vector<Run>& runs) {
  // The console shows a repeated case's aggregates only; the log keeps every repetition too (the checker and the
  // noise estimates of compare need them). Google Benchmark's display_aggregates_only would hide them from both.
  std::vector<Run> shown;
  for (const Run& run : runs)
    if (run.run_type == Run::RT_Aggregate || run.repetitions <= 1) shown.push_back(run);
  if (!shown.empty()) display_->ReportRuns(shown);
  for (const Run& run : runs) {
    const std::string name = run.run_name.function_name;
    if (progress_) progress_->reported(name);
    const bool aggregate = run.run_type == Run::RT_Aggregate;
    // Standard deviation and cv are not times of a run; they stay in the Google Benchmark JSON.
    if (aggregate && run.aggregate_name != "mean" && run.aggregate_name != "median") continue;
    // A case that did not run is reported by every repetition; one line says it.
    const Outcome* outcome = harness_.outcome(name);
    if (outcome && outcome->status != Status::ok && !not_run_logged_.insert(name).second) continue;
    std::map<std::string, double> counters;
    for (const auto& [k, v] : run.counters) counters[k] = v.value;
    const double time_us =
        run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e6;
    append(run_record(name, harness_.find_case(name), outcome, aggregate, run.aggregate_name,
                      run.repetition_index, run.iterations, time_us, counters));
  }
}

void ResultsLogReporter::Finalize() {
  display_->Finalize();
  append({{"type", "summary"},
          {"ok", harness_.count(Status::ok)},
          {"skipped", harness_.count(Status::skipped)},
          {"failed", harness_.count(Status::failed)}});
}

}  // namespace opmark::bench
