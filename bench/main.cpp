// opmark-bench: opmark flags -> load tables -> one Google Benchmark case per (row, direction, precision) ->
// run on the local GPU -> console, Google Benchmark JSON and the results log.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/harness/case_filter.h"
#include "bench/harness/case_line.h"
#include "bench/harness/console_json_reporter.h"
#include "bench/harness/device_info.h"
#include "bench/families/factories.h"
#include "bench/harness/gpu_monitor.h"
#include "bench/harness/harness.h"
#include "bench/harness/host_info.h"
#include "bench/harness/options.h"
#include "bench/harness/output_folder.h"
#include "bench/harness/process_group.h"
#include "bench/harness/progress.h"
#include "bench/harness/registry.h"
#include "bench/harness/results_log.h"
#include "bench/harness/run_summary.h"
#include "bench/harness/topology.h"
#include "bench/harness/version.h"
#include "core/error.h"
#include "core/file_access.h"
#include "core/model_table.h"
#include "core/result_record.h"
#include "core/resume.h"
#include "core/schema.h"
#include "core/shapes_dir.h"
#include "core/suite.h"
#include "core/table.h"
#include "core/text.h"
#include "kernels/cuda_check.h"
#include "opmark/version.h"

namespace fs = std::filesystem;
using namespace opmark;

namespace {

// $OPMARK_SHAPES, the installed tables beside the executable, or the source tree's (core/shapes_dir.h).
std::vector<std::string> default_shapes() { return {core::default_shapes_dir().path}; }

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

void print_summary(const std::vector<core::Table>& tables, const std::vector<core::Case>& cases) {
  std::map<std::string, int> by_family_precision;
  for (const auto& c : cases) ++by_family_precision[c.family + " " + c.precision];
  std::size_t rows = 0;
  for (const auto& t : tables)
    for (const auto& s : t.sets) rows += s.rows.size();
  std::printf("opmark: %zu tables, %zu rows, %zu distinct cases\n", tables.size(), rows, cases.size());
  for (const auto& [key, n] : by_family_precision) std::printf("  %-24s %d cases\n", key.c_str(), n);
}

bool has_flag(int argc, char** argv, const char* flag) {
  const std::size_t n = std::strlen(flag);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || std::strcmp(argv[i] + n, "=true") == 0 ||
                                                std::strcmp(argv[i] + n, "=1") == 0))
      return true;
  return false;
}

// The value of the last --benchmark_filter= among the arguments, else $BENCHMARK_FILTER as Google Benchmark reads
// it ("" when neither): which cases run (case_filter.h).
std::string benchmark_filter(int argc, char** argv) {
  const char* env = std::getenv("BENCHMARK_FILTER");
  std::string filter = env ? env : "";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
  return filter;
}

// Whether the user named Google Benchmark's output file: then Google Benchmark writes it, and opmark writes no
// benchmark.json of its own.
bool user_benchmark_out(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_out=", 16) == 0) return true;
  return false;
}

// opmark's defaults for Google Benchmark, placed before the user's arguments so the user's flags win. Repetitions
// and time per repetition are the harness's own (it repeats until the noise is small). benchmark.json is written
// by opmark's own reporter (console_json_reporter.h), not through --benchmark_out: Google Benchmark's own file would
// follow a link and never say that a write failed.
std::vector<std::string> default_benchmark_flags() {
  // One iteration of a case reports its median; any time meets this minimum, so Google Benchmark asks no more.
#if OPMARK_BENCHMARK_MIN_TIME_HAS_UNIT
  std::vector<std::string> flags = {"--benchmark_min_time=1e-12s", "--benchmark_repetitions=1"};
#else
  std::vector<std::string> flags = {"--benchmark_min_time=1e-12", "--benchmark_repetitions=1"};
#endif
  return flags;
}

// The command line as one shell-quoted line, for the record (a submission names the exact command).
std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string word = argv[i];
    const bool plain = !word.empty() && word.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == std::string::npos;
    if (!plain) {
      std::string q = "'";
      for (char ch : word) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      word = q + "'";
    }
    line += (i ? " " : "") + word;
  }
  return line;
}

nlohmann::json add_context(const std::optional<bench::DeviceInfo>& device, const bench::Options& o,
                           const bench::Peaks& peaks, const bench::ProcessGroup& group, const std::string& command,
                           const core::Suite* suite, const bench::GpuMonitor* monitor) {
  nlohmann::json ctx;
  auto put = [&](const std::string& key, const std::string& value) {
    benchmark::AddCustomContext("opmark_" + key, value);
    ctx[key] = value;
  };
  // A number is a JSON number in the results log (results format 2, core/result_record.h); Google Benchmark's
  // context takes text only, so benchmark.json keeps the text it always had.
  auto put_number = [&](const std::string& key, auto value) {
    benchmark::AddCustomContext("opmark_" + key, std::to_string(value));
    ctx[key] = value;
  };
  put("version", OPMARK_VERSION);
  put("git", OPMARK_GIT_HASH);
  put("command", command);
  if (suite) {
    put("suite", suite->path);
    put_number("rules_version", suite->rules_version);
  }
  put_number("results_format", core::kResultsFormat);
  // The run's settings, each a typed key (core/run_spec.h's table): readers take them as values, never from the
  // sentence below.
  const nlohmann::json settings = core::settings_context(o);  // held here: items() only refers to it
  for (const auto& [key, value] : settings.items()) {
    if (value.is_string()) put(key, value.get<std::string>());
    else if (value.is_number_unsigned()) put_number(key, value.get<std::uint64_t>());
    else if (value.is_number_integer()) put_number(key, value.get<std::int64_t>());
    else put_number(key, value.get<double>());
  }
  put_number("power_margin", bench::kPowerMargin);
  put("started_at", bench::utc_now());
  char timing[768];
  if (o.regime == bench::Regime::burst)
    std::snprintf(timing, sizeof timing,
                  "burst: %s; batches of about %g ms (at most %d launches); L2 %s; median over repetitions of at "
                  "least %g s of GPU time each, at least %d and at most %d, stopping once the median absolute "
                  "deviation over the median is at most %g or after %g s; a sample whose SM clock (measured on "
                  "the GPU) was under %g%% of the maximum, or that NVML saw throttled, is dropped and taken again "
                  "after an idle pause; energy over at least %g s of back-to-back launches, in whole steps of "
                  "NVML's energy counter timed by its period",
                  o.graph_timing ? "cuda graph replays, each enqueued whole before it starts, timed with events"
                                 : "back-to-back launches timed with events",
                  o.batch_s * 1e3, bench::kMaxBatch, bench::name_of(o.l2), o.min_time_s,
                  o.min_repetitions, o.max_repetitions, o.noise_target, o.case_time_cap_s,
                  o.min_clock_fraction * 100, o.energy_window_s);
  else
    std::snprintf(timing, sizeof timing,
                  "sustained: %s; batches of about %g ms; L2 %s; %g s to settle, then %d windows of at least %g s "
                  "each, bounded by steps of NVML's energy counter",
                  o.graph_timing ? "cuda graph replays" : "back-to-back launches", o.batch_s * 1e3,
                  bench::name_of(o.l2), bench::kSustainedLeadInSeconds, bench::kSustainedWindows,
                  bench::kSustainedWindowSeconds);
  put("timing", timing);
  put("peaks", peaks.source);
  for (const auto& [k, v] : peaks.tflops) put_number("peak_tflops_" + k, v);
  if (peaks.memory_gb_per_s > 0) put_number("peak_gb_per_s", peaks.memory_gb_per_s);
  if (device) {
    put("gpu", device->name);
    put_number("gpu_count_used", group.size());
    int visible = 0;
    if (cudaGetDeviceCount(&visible) == cudaSuccess) {
      put_number("visible_gpus", visible);
      put("peer_access", bench::peer_access_pairs(visible));
      const std::string nvlink = bench::nvlink_pairs(visible);
      if (!nvlink.empty()) put("nvlink_pairs", nvlink);
    }
    if (group.multi_process()) {
      put_number("processes", group.size());
      put("mpi", group.describe());
    }
    put("compute_capability", std::to_string(device->compute_capability / 10) + "." +
                                  std::to_string(device->compute_capability % 10));
    put_number("sm_count", device->sm_count);
    put_number("memory_gib", device->memory_gib);
    put_number("l2_bytes", device->l2_bytes);
    put_number("sm_clock_mhz", device->sm_clock_mhz);
    put_number("memory_clock_mhz", device->memory_clock_mhz);
    put_number("memory_bus_bits", device->memory_bus_bits);
    // The kernels' own durations (kernel_us), or why not.
    put("kernel_trace", bench::kernel_trace_off(o, group.multi_process()).value_or("cupti"));
    if (monitor && monitor->available()) {
      put("nvml", "ok");
      const std::string uuid = monitor->uuid();
      if (!uuid.empty()) put("gpu_uuid", uuid);
      if (auto w = monitor->power_limit_watts()) put_number("power_limit_w", *w);
      if (auto mhz = monitor->max_sm_mhz()) put_number("max_sm_clock_mhz", *mhz);
      if (auto e = monitor->ecc_enabled()) put("ecc", *e ? "on" : "off");
      if (auto m = monitor->mig_enabled()) put("mig", *m ? "on" : "off");
    } else {
      put("nvml", "unavailable: " + (monitor ? monitor->why() : std::string("no GPU")) +
                      " (no clocks, throttle reasons, power or energy recorded)");
    }
  }
  for (const auto& [lib, version] : bench::library_versions()) put(lib + "_version", version);
  const std::string driver = bench::nvidia_driver_version(), cpu = bench::host_cpu_model();
  if (!driver.empty()) put("driver_version", driver);
  if (!cpu.empty()) put("host_cpu", cpu);
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) put("host", host);
  return ctx;
}

// --opmark_symbols gives the shape tables' symbols and --opmark_inputs the models' inputs; a flag that the chosen
// source of cases would ignore is an error, not a silent no-op. `symbols` is what the user gave (not the G that a
// multi-process run adds).
void check_flags_apply(const bench::Options& o, const core::Symbols& symbols) {
  if (!o.suite.empty() && (!symbols.empty() || !o.inputs.empty()))
    throw Error("--opmark_suite runs the shapes the rules fix: drop --opmark_symbols and --opmark_inputs");
  if (!o.models.empty() && (!symbols.empty() || !o.selection.sets.empty()))
    throw Error("--opmark_models runs the models' cases, not the shape tables' sets: drop --opmark_set and "
                "--opmark_symbols (--opmark_inputs=B=16 sets a model's input sizes)");
  if (o.models.empty() && o.suite.empty() && !o.inputs.empty())
    throw Error("--opmark_inputs sets the input sizes of --opmark_models; the shape tables take --opmark_symbols");
  if (o.profile_graph && o.profile_launches == 0)
    throw Error("--opmark_profile_graph says how --opmark_profile_launches=K profiles: give K too");
}

int run(int argc, char** argv, bench::ProcessGroup& group) {
  // A family in one layer's list and not the other's is a build mistake: said before anything else, by name.
  bench::check_family_lists(bench::family_list(), core::known_families());
  const bench::WorkloadRegistry workloads(bench::family_list());
  const std::string command = command_line(argc, argv);  // before the --opmark_ flags are taken out of argv
  bench::Options options = bench::parse_options(argc, argv);
  if (options.version) {  // no tables, no GPU: what this binary is and the libraries it loads
    if (group.rank() == 0) std::cout << bench::version_text();
    return 0;
  }
  const core::Symbols given_symbols = options.selection.symbols;  // before a multi-process run adds G
  // One process per GPU (MPI): rank 0 alone prints and writes files; the all-reduce's ranks default to the
  // process count; each process takes the GPU of its rank on its host.
  if (group.multi_process()) {
    if (group.rank() != 0) {
      if (!std::freopen("/dev/null", "w", stdout)) throw Error("rank " + std::to_string(group.rank()) +
                                                                ": cannot silence stdout");
      options.out_dir.clear();
    }
    if (!options.selection.symbols.count("G")) options.selection.symbols["G"] = group.size();
    int count = 0;
    if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0)
      OPMARK_CHECK_CUDA(cudaSetDevice(bench::device_for_local_rank(group.local_rank(), count)));
  }
  if (options.help) {
    // --help also goes on to Google Benchmark, which prints its own flags and exits; --opmark_help stops here.
    std::cout << bench::options_help();
    if (!has_flag(argc, argv, "--help") && !has_flag(argc, argv, "-h")) {
      std::cout << "\nGoogle Benchmark's own flags: opmark-bench --help\n";
      return 0;
    }
    std::cout << "\nGoogle Benchmark's flags:\n";
  }
  check_flags_apply(options, given_symbols);
  const std::string filter = benchmark_filter(argc, argv);
  bench::check_benchmark_filter(filter);  // Google Benchmark would only print it and run nothing
  // The folder is this run's until it ends, taken before anything is read, so a second run on it is refused at once.
  std::optional<bench::OutputFolderLock> folder_lock;
  // Rank 0 alone writes files (and so holds the folder) in a multi-process run.
  if (!options.out_dir.empty() && !options.validate_only && !options.help && group.rank() == 0 &&
      !has_flag(argc, argv, "--benchmark_list_tests")) {
    folder_lock.emplace(bench::lock_output_folder(options.out_dir));
    bench::check_output_folder(options.out_dir, options.overwrite || options.resume);
  }
  // --opmark_resume: the cases the log holds in full are kept and not run again.
  std::optional<core::ResumeState> resumed;
  const std::string resume_log = (fs::path(options.out_dir) / "results.jsonl").string();
  if (options.resume && folder_lock && fs::exists(resume_log) && fs::file_size(resume_log) > 0) {
    resumed = core::read_resume_state(resume_log);
  }

  const std::vector<std::string> shape_dirs = options.shapes.empty() ? default_shapes() : options.shapes;
  std::vector<core::Table> tables = core::load_tables(shape_dirs);
  std::vector<core::Case> cases;
  std::optional<core::Suite> suite;
  if (!options.suite.empty()) {  // the submission rules pick every case
    const auto& sel = options.selection;
    if (!sel.families.empty() || !sel.sets.empty() || !sel.precisions.empty() || !options.models.empty())
      throw Error("--opmark_suite picks the cases itself: drop --opmark_family, --opmark_set, --opmark_precision "
                  "and --opmark_models (use --benchmark_filter to run part of a suite)");
    // A bare name is a suite of the shapes folder (submission, quick); anything else a rules file's path.
    const bool named = options.suite.find('/') == std::string::npos && fs::path(options.suite).extension() != ".yaml";
    const std::string rules =
        named ? (fs::path(shape_dirs.front()) / (options.suite + ".yaml")).string() : options.suite;
    if (named && !fs::exists(rules))
      throw Error("--opmark_suite=" + options.suite + ": no " + rules + " (the suites are submission and quick; or "
                  "give a rules file's path)");
    suite = core::load_suite(rules);
    cases = core::suite_cases(*suite, tables, core::load_models(suite->model_names, shape_dirs, suite->model_folder));
    std::fprintf(stderr, "opmark: the suite %s (rules version %d) names %zu distinct cases\n", rules.c_str(),
                 suite->rules_version, cases.size());
    if (!options.min_time_given) options.min_time_s = suite->min_time_s;
    if (!options.min_repetitions_given) options.min_repetitions = std::max(options.min_repetitions, suite->repetitions);
    if (!options.noise_target_given && suite->noise_target > 0) options.noise_target = suite->noise_target;
    if (suite->timing && (*suite->timing == core::TimingMode::graph) != options.graph_timing)
      throw Error("the submission rules " + rules + " require --opmark_timing=" + core::name_of(*suite->timing));
    if (suite->max_repetitions > 0) options.max_repetitions = std::min(options.max_repetitions, suite->max_repetitions);
    if (options.max_repetitions < options.min_repetitions) options.min_repetitions = options.max_repetitions;
    if (suite->regime && *suite->regime != options.regime)
      throw Error("the submission rules " + rules + " require --opmark_regime=" + core::name_of(*suite->regime));
    if (suite->l2 && *suite->l2 != options.l2)
      throw Error("the submission rules " + rules + " require --opmark_l2=" + core::name_of(*suite->l2));
  } else if (options.models.empty()) {
    core::Selection asked = options.selection;  // the user's own symbols: a G added above need not be used
    asked.symbols = given_symbols;
    core::check_selection(tables, asked);
    cases = core::expand_tables(tables, options.selection);
  } else {  // the models' cases, each unique case once across models (Benanza's unique layers)
    std::vector<core::ModelTable> models;
    try {
      models = core::load_models(options.models, shape_dirs);
    } catch (const TableError&) {
      throw;  // already names the file and line
    } catch (const Error& e) {
      throw Error(std::string("--opmark_models: ") + e.what());
    }
    core::check_inputs(models, options.inputs);
    std::vector<std::string> precisions(options.selection.precisions.begin(), options.selection.precisions.end());
    if (precisions.empty()) precisions = {"fp16"};
    cases = core::model_cases(models, options.inputs, precisions);
    std::fprintf(stderr, "opmark: %zu models need %zu distinct cases\n", models.size(), cases.size());
  }
  if (options.validate_only) {
    print_summary(tables, cases);
    return 0;
  }
  // Tables can arrive before their family's benchmark: such cases are checked above but not registered.
  std::map<std::string, int> not_runnable;
  std::vector<core::Case> runnable;
  for (auto& c : cases) {
    if (workloads.has(c.family)) runnable.push_back(std::move(c));
    else ++not_runnable[c.family];
  }
  cases = std::move(runnable);
  if (group.multi_process()) {  // only a collective spans processes; the rest would run once per rank
    std::vector<core::Case> collective;
    for (auto& c : cases)
      if (core::family_info(c.family).collective) collective.push_back(std::move(c));
    if (collective.size() < cases.size())
      std::fprintf(stderr,
                   "opmark: %zu process(es): running the collective families only (%zu other case(s) left out)\n",
                   static_cast<std::size_t>(group.size()), cases.size() - collective.size());
    cases = std::move(collective);
  }
  for (const auto& [family, n] : not_runnable)
    std::fprintf(stderr, "opmark: %s: %d cases selected, no benchmark for this family in this build yet\n",
                 family.c_str(), n);
  if (cases.empty()) std::fprintf(stderr, "opmark: the selection matches no case that this build can run\n");
  // opmark applies --benchmark_filter to its own case names and registers only what it keeps (case_filter.h).
  std::vector<std::string> names;
  for (const auto& c : cases) names.push_back(core::make_case_name(c));
  const std::vector<std::size_t> selected = bench::select_cases(names, filter);
  bench::check_filter_selects(names, filter, selected);
  {
    std::vector<core::Case> kept;
    for (std::size_t i : selected) kept.push_back(std::move(cases[i]));
    cases = std::move(kept);
  }

  // Our defaults first, the user's arguments after them, and a filter that keeps every registered case last: the
  // user's filter has been applied above, and Google Benchmark's names end in "/manual_time".
  std::vector<std::string> defaults = default_benchmark_flags();
  std::string keep_all = "--benchmark_filter=.";
  std::vector<char*> args = {argv[0]};
  for (auto& f : defaults) args.push_back(f.data());
  for (int i = 1; i < argc; ++i) {
    // Ranks other than 0 write no files, whatever the command line asks.
    if (group.rank() != 0 && std::strncmp(argv[i], "--benchmark_out", 15) == 0) continue;
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) continue;
    args.push_back(argv[i]);
  }
  args.push_back(keep_all.data());
  int bm_argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  const bool listing = has_flag(bm_argc, args.data(), "--benchmark_list_tests");
  benchmark::Initialize(&bm_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bm_argc, args.data())) return 2;

  std::string why;
  std::optional<bench::DeviceInfo> device = listing ? std::nullopt : bench::query_device(&why);
  bench::Harness harness(options, device, why, &group, &workloads);
  if (resumed) {
    std::vector<core::Case> remaining;
    for (auto& c : cases)
      if (!resumed->done.count(core::make_case_name(c))) remaining.push_back(std::move(c));
    std::fprintf(stderr, "opmark: resuming %s: %zu case(s) measured already, %zu to run\n", resume_log.c_str(),
                 cases.size() - remaining.size(), remaining.size());
    cases = std::move(remaining);
  }
  harness.register_cases(std::move(cases));
  if (listing) {  // the names results.jsonl uses, one a line and nothing else on stdout (Google Benchmark's end in
                  // "/manual_time")
    for (const auto& c : harness.cases()) std::printf("%s\n", core::make_case_name(c).c_str());
    return 0;
  }
  if (!device) {
    std::fprintf(stderr,
                 "opmark-bench: no CUDA device is present (%s), so none of the %zu selected case(s) was run.\n"
                 "  Listing cases (--benchmark_list_tests) and checking tables (--opmark_validate) work without one.\n",
                 why.c_str(), harness.cases().size());
    return 1;
  }
  // Rank 0 alone writes the results: the other ranks' measurements are the same agreed values.
  const bool writes = !options.out_dir.empty() && group.rank() == 0;
  if (writes) fs::create_directories(options.out_dir);
  nlohmann::json context =
      add_context(device, options, harness.peaks(), group, command, suite ? &*suite : nullptr, harness.monitor());
  const std::string log_path = writes ? (fs::path(options.out_dir) / "results.jsonl").string() : "";
  const std::string json_path =
      !writes || user_benchmark_out(argc, argv)
          ? ""
          : (fs::path(options.out_dir) / (resumed ? "benchmark.resumed.json" : "benchmark.json")).string();
  if (resumed) {
    const std::vector<std::string> differ = core::resume_mismatches(resumed->context, context);
    if (!differ.empty()) {
      std::string all;
      for (const auto& d : differ) all += "\n  " + d;
      throw Error("--opmark_resume: " + log_path + " was measured otherwise; a resumed run must be the same run:" +
                  all);
    }
    // The log as the kill left it, less what is measured again: replaced whole, so a crash here loses nothing.
    core::write_file_atomically(log_path, resumed->kept_text);
  }
  const auto color = isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_ColorTabular
                                            : benchmark::ConsoleReporter::OO_Tabular;
  // The harness hands each case's record to the results log, then to the case lines, as the case finishes; Google
  // Benchmark's reporter writes benchmark.json, counts progress, and shows its own table where asked to.
  bench::ResultsLog results_log(log_path, context, resumed ? &*resumed : nullptr);
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  std::unique_ptr<bench::CaseLinePrinter> case_lines;
  if (options.console_table) {
    display = std::make_unique<benchmark::ConsoleReporter>(color);
  } else {
    display = std::make_unique<bench::SilentReporter>();
    case_lines = std::make_unique<bench::CaseLinePrinter>(std::cout);
  }
  bench::CaseSinks sinks(case_lines ? std::vector<bench::CaseSink*>{&results_log, case_lines.get()}
                                    : std::vector<bench::CaseSink*>{&results_log});
  harness.set_case_sink(&sinks);
  bench::ConsoleJsonReporter reporter(std::move(display), json_path);
  bench::Progress progress(harness.cases().size());  // every registered case runs: the filter chose them
  reporter.set_progress(&progress);
  const auto run_start = std::chrono::steady_clock::now();
  benchmark::RunSpecifiedBenchmarks(&reporter);
  if (options.recheck && options.profile_launches == 0 && harness.count(bench::Status::ok) > 0) {
    std::fprintf(stderr, "opmark: re-timing every case briefly (--opmark_recheck=off skips it)\n");
    harness.recheck();
  }
  results_log.append_summary();
  results_log.close();  // on disk before the run says it is done
  benchmark::Shutdown();

  const int ok = harness.count(bench::Status::ok), skipped = harness.count(bench::Status::skipped),
            failed = harness.count(bench::Status::failed), unstable = harness.count(bench::Status::unstable);
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  const bench::PhaseTimes& phase_times = harness.phase_times();
  for (const std::string& line : phase_times.family_lines()) std::fprintf(stderr, "opmark:   %s\n", line.c_str());
  for (const std::string& line : phase_times.summary_lines(run_s, bench::kCaseLineWidth))
    std::fprintf(stderr, "%s\n", line.c_str());
  if (ok + skipped + failed + unstable == 0) {
    std::fprintf(stderr, "opmark-bench: no case ran: --benchmark_filter and the --opmark_ selection match nothing\n");
    return 1;
  }
  std::vector<bench::SummaryCase> summary_cases;
  for (const auto& c : harness.cases()) {
    const std::string name = core::make_case_name(c);
    const bench::Outcome* o = harness.outcome(name);
    if (!o) continue;
    summary_cases.push_back({c.family, core::short_case_name(c), bench::name_of(o->status), o->counters});
  }
  bench::SummaryPlace place;
  if (!log_path.empty()) {
    place.results = log_path + (json_path.empty() ? "" : " and " + json_path);
    place.out_dir = options.out_dir;
    place.aggregator = aggregator_command();
    place.models = !options.models.empty() ? options.models : suite ? suite->model_names : std::vector<std::string>{};
  }
  std::printf("\n");
  for (const std::string& line : bench::run_summary(summary_cases, place, run_s)) std::printf("%s\n", line.c_str());
  return failed > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::unique_ptr<bench::ProcessGroup> group = bench::make_process_group(&argc, &argv);
    return run(argc, argv, *group);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-bench: %s\n", e.what());
    return 2;
  }
}
