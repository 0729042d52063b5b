#include "bench/app/run_cases.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "bench/app/command_line.h"
#include "bench/app/context_line.h"
#include "bench/harness/output/case_line.h"
#include "bench/harness/output/console_json_reporter.h"
#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/harness.h"
#include "bench/harness/output/progress.h"
#include "bench/harness/output/results_log.h"
#include "bench/harness/output/run_summary.h"
#include "core/error.h"
#include "core/file_access.h"
#include "core/result_record.h"
#include "core/schema.h"
#include "core/shapes_dir.h"

namespace fs = std::filesystem;

namespace opmark::bench::app {
namespace {

// How to call opmark-aggregate from here: beside this executable in a build tree (../aggregate/) or an installed
// one (bin/), else by name.
std::string aggregator_command() {
  const fs::path exe = core::executable_path();
  if (!exe.empty()) {
    for (const fs::path& p : {exe.parent_path().parent_path() / "aggregate" / "opmark-aggregate",
                              exe.parent_path() / "opmark-aggregate"}) {
      std::error_code ec;
      if (!fs::exists(p, ec)) continue;
      const fs::path relative = fs::relative(p, fs::current_path(ec), ec);
      if (ec || relative.empty()) return p.string();
      const std::string r = relative.string();
      return r.rfind("..", 0) == 0 || r.find('/') == std::string::npos ? p.string() : "./" + r;
    }
  }
  return "opmark-aggregate";
}

// The resumed run leaves out the cases its log holds in full; it returns those of them that still need their
// end-of-run re-time (core/resume.h's to_retime), which join this run's.
std::vector<core::Case> leave_out_resumed(RunPlan& plan, const Session& session) {
  std::vector<core::Case> to_retime;
  if (!session.resumed) return to_retime;
  std::vector<core::Case> remaining;
  for (auto& c : plan.cases) {
    const std::string name = core::make_case_name(c);
    if (!session.resumed->done.count(name)) remaining.push_back(std::move(c));
    else if (session.resumed->to_retime.count(name)) to_retime.push_back(std::move(c));
  }
  std::fprintf(stderr, "opmark: resuming %s: %zu case(s) measured already (%zu of them to re-time), %zu to run\n",
               session.log_path.c_str(), session.resumed->done.size(), to_retime.size(), remaining.size());
  plan.cases = std::move(remaining);
  return to_retime;
}

// Each case's record goes to the results log, then to the case lines, as the case finishes; Google Benchmark's
// reporter writes benchmark.json, counts progress, and shows its own table where asked to.
void measure(Harness& harness, const Options& options, ResultsLog& results_log, const std::string& json_path) {
  const auto color = isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_ColorTabular
                                            : benchmark::ConsoleReporter::OO_Tabular;
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  std::unique_ptr<CaseLinePrinter> case_lines;
  if (options.console_table) {
    display = std::make_unique<benchmark::ConsoleReporter>(color);
  } else {
    display = std::make_unique<SilentReporter>();
    case_lines = std::make_unique<CaseLinePrinter>(std::cout);
  }
  CaseSinks sinks(case_lines ? std::vector<CaseSink*>{&results_log, case_lines.get()}
                             : std::vector<CaseSink*>{&results_log});
  harness.set_case_sink(&sinks);
  ConsoleJsonReporter reporter(std::move(display), json_path);
  Progress progress(harness.registered());  // every registered case runs: the filter chose them
  reporter.set_progress(&progress);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (options.recheck && options.profile_launches == 0 && harness.count(Status::ok) > 0) {
    std::fprintf(stderr, "opmark: re-timing every case briefly (--opmark_recheck=off skips it)\n");
    harness.recheck();
  }
  harness.set_case_sink(nullptr);
}

// The phase times on stderr, then the summary of outcomes and where the results are. Returns the exit status.
int summarise(Harness& harness, const Options& options, const Session& session, const RunPlan& plan,
              double run_s) {
  const int ok = harness.count(Status::ok), skipped = harness.count(Status::skipped),
            failed = harness.count(Status::failed), unstable = harness.count(Status::unstable);
  const PhaseTimes& phase_times = harness.phase_times();
  for (const std::string& line : phase_times.family_lines()) std::fprintf(stderr, "opmark:   %s\n", line.c_str());
  for (const std::string& line : phase_times.summary_lines(run_s, kCaseLineWidth))
    std::fprintf(stderr, "%s\n", line.c_str());
  // A resumed run's earlier cases count as this run's: one run in two parts.
  std::map<std::string, int> earlier;
  if (session.resumed)
    for (const auto& [name, status] : session.resumed->status)
      if (!harness.outcome(name)) ++earlier[status];
  if (ok + skipped + failed + unstable == 0 && earlier.empty()) {
    std::fprintf(stderr, "opmark-bench: no case ran: --benchmark_filter and the --opmark_ selection match nothing\n");
    return 1;
  }
  std::vector<SummaryCase> summary_cases;
  for (const auto& c : harness.cases()) {
    const Outcome* o = harness.outcome(core::make_case_name(c));
    if (o) summary_cases.push_back({c.family, core::short_case_name(c), name_of(o->status), o->counters});
  }
  SummaryPlace place;
  if (!session.log_path.empty()) {
    // A resumed run's benchmark.resumed.json is joined into benchmark.json by now (finish_resumed_json).
    const std::string json_path = session.resumed && !session.json_path.empty()
                                      ? (fs::path(session.log_path).parent_path() / "benchmark.json").string()
                                      : session.json_path;
    place.results = session.log_path + (json_path.empty() ? "" : " and " + json_path);
    place.out_dir = options.out_dir;
    place.aggregator = aggregator_command();
    place.models = !options.models.empty() ? options.models
                   : plan.suite            ? plan.suite->model_names
                                           : std::vector<std::string>{};
  }
  std::printf("\n");
  if (!earlier.empty()) {
    std::printf("from the run resumed, kept as it measured them:");
    for (const auto& [status, n] : earlier) std::printf(" %d %s", n, status.c_str());
    std::printf("\n");
  }
  for (const std::string& line : run_summary(summary_cases, place, run_s)) std::printf("%s\n", line.c_str());
  return failed > 0 || earlier.count("failed") ? 1 : 0;
}

}  // namespace

int run_cases(RunPlan plan, const Options& options, Session& session, const std::string& command, int argc,
              char** argv, ProcessGroup& group, const WorkloadRegistry& workloads) {
  BenchmarkArgs args(argc, argv, group.rank() == 0);
  const bool listing = has_flag(args.argc(), args.argv(), "--benchmark_list_tests");
  benchmark::Initialize(&args.argc(), args.argv());
  if (benchmark::ReportUnrecognizedArguments(args.argc(), args.argv())) return 2;

  std::string why;
  const std::optional<DeviceInfo> device = listing ? std::nullopt : query_device(&why);
  Harness harness(options, device, why, &group, &workloads);
  // A resumed log's context is held to this run's before the log is read in full.
  std::optional<nlohmann::json> context;
  if (device && !listing) {
    choose_json_output(session, options, user_benchmark_out(argc, argv));
    context = write_context(device, options, harness.peaks(), group, command, plan.suite ? &*plan.suite : nullptr,
                            harness.monitor());
    check_resume(session, *context);
  }
  std::vector<core::Case> to_retime = leave_out_resumed(plan, session);
  if (session.resumed && session.resumed->whole && plan.cases.empty() && !listing) {
    std::fprintf(stderr, "opmark: %s is a whole run (every case measured and re-timed, its summary written): "
                         "nothing to resume\n", session.log_path.c_str());
    return 0;
  }
  harness.register_cases(std::move(plan.cases));
  for (auto& c : to_retime) {
    const std::string name = core::make_case_name(c);
    harness.restore_for_retime(std::move(c),
                               core::from_json(session.resumed->to_retime.at(name), session.log_path + ": " + name));
  }
  if (listing) {  // the names results.jsonl uses, one a line and nothing else on stdout
    for (const auto& c : harness.cases()) std::printf("%s\n", core::make_case_name(c).c_str());
    return 0;
  }
  if (!device) {
    std::fprintf(stderr,
                 "opmark-bench: no CUDA device is present (%s), so none of the %zu selected case(s) was run.\n"
                 "  Listing cases (--benchmark_list_tests) and checking tables (--opmark_validate) work without one.\n",
                 why.c_str(), harness.cases().size());
    discard_unused_folder(session, options);
    return 1;
  }
  keep_resumed(session);
  ResultsLog results_log(session.log_path, *context, session.resumed ? &*session.resumed : nullptr);
  const auto run_start = std::chrono::steady_clock::now();
  measure(harness, options, results_log, session.json_path);
  results_log.append_summary();
  results_log.close();  // on disk before the run says it is done
  finish_resumed_json(session);
  benchmark::Shutdown();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  return summarise(harness, options, session, plan, run_s);
}

}  // namespace opmark::bench::app
