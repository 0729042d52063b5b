#include "core/run_spec.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "core/error.h"
#include "core/precision.h"
#include "core/schema.h"
#include "core/suite.h"
#include "core/text.h"

namespace opmark::core {
namespace {

// Ranges of the numeric flags: each far past any sensible run, so a typo or "inf" is caught rather than cast to
// an int or a size (where it would overflow) or left to run for ever.
constexpr std::int64_t kMaxCandidates = 1000;       // cuBLASLt's heuristics and cuDNN's lists offer a few dozen
constexpr std::int64_t kMaxWorkspaceMib = 1 << 20;  // 1 TiB: past any GPU's memory
constexpr std::int64_t kMaxRepetitions = 100000;    // at 0.05 s each, over an hour and a half per case
constexpr std::int64_t kMaxProfileLaunches = 1000;  // each is profiled by Nsight Compute, seconds apiece
constexpr double kMaxSeconds = 3600;                // GPU time per repetition, or measuring a case: an hour
constexpr double kMinBatchSeconds = 1e-5, kMaxBatchSeconds = 0.1;  // a timed replay: one launch to a tenth of a second
constexpr double kMaxWarmupMs = 60000;              // a minute

// A comma list of a flag's value; empty items dropped ("a,,b," is a, b).
std::vector<std::string> split_list(const std::string& s) { return split(s, ',', false); }

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// `text` as a finite number, all of it; nullopt for anything else ("inf", "nan", "3x", "").
std::optional<double> finite_number(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A number from `min` to `max`.
double parse_number(const std::string& flag, const std::string& text, double min, double max) {
  const std::optional<double> v = finite_number(text);
  if (!v || *v < min || *v > max)
    throw Error("--" + flag + ": expected a number from " + number_text(min) + " to " + number_text(max) + ", got '" +
                text + "'");
  return *v;
}

// A number > 0 with no upper bound a flag could know (a peak); `what` names the item in a list flag.
double parse_positive(const std::string& flag, const std::string& what, const std::string& text) {
  const std::optional<double> v = finite_number(text);
  if (!v || !(*v > 0)) throw Error("--" + flag + ": " + what + ": expected a number > 0, got '" + text + "'");
  return *v;
}

// An integer from `min` to `max`, written as one: these flags count things, so "2.5", "1e3" and "inf" are typos.
std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
    throw Error("--" + flag + ": expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                ", got '" + text + "'");
  return v;
}

// Any 64-bit seed: digits only (strtoull would take "-1" as 2^64 - 1).
std::uint64_t parse_seed(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])) || *end != '\0' || errno == ERANGE)
    throw Error("--" + flag + ": expected an integer from 0 to " +
                std::to_string(std::numeric_limits<std::uint64_t>::max()) + ", got '" + text + "'");
  return v;
}

Symbols parse_symbols(const std::string& flag, const std::string& text) {
  try {
    return parse_symbol_list(text);
  } catch (const Error& e) {
    throw Error("--" + flag + ": " + e.what());
  }
}

// A flag that is on by default: on or off (true/false and 1/0 too; bare: on).
bool parse_on_off(const std::string& flag, const std::string& value) {
  if (value == "on" || value.empty() || value == "true" || value == "1") return true;
  if (value == "off" || value == "false" || value == "0") return false;
  throw Error("--" + flag + ": expected on or off, got '" + value + "'");
}

// One of two words, each setting a bool: "--opmark_timing: expected graph or eager, got 'x'".
bool parse_pair(const std::string& flag, const std::string& value, const char* yes, const char* no) {
  if (value == yes) return true;
  if (value == no) return false;
  throw Error("--" + flag + ": expected " + yes + " or " + no + ", got '" + value + "'");
}

void need_value(const std::string& flag, const std::string& value) {
  if (value.empty()) throw Error("--" + flag + " needs a value (--" + flag + "=...)");
}

using Apply = std::function<void(RunSpec&, const std::string&)>;
using Value = std::function<nlohmann::json(const RunSpec&)>;

// A setting that only the command line has (no context key).
RunSetting flag_only(const char* flag, const char* metavar, const char* help, Apply apply) {
  RunSetting s;
  s.flag = flag;
  s.metavar = metavar;
  s.help = help;
  s.apply = std::move(apply);
  return s;
}

// A setting the context records under `key`, which a resumed run must match.
RunSetting recorded(const char* flag, const char* metavar, const char* key, const char* help, Apply apply,
                    Value value) {
  RunSetting s = flag_only(flag, metavar, help, std::move(apply));
  s.key = key;
  s.resume = true;
  s.value = std::move(value);
  return s;
}

// One of a mode's words (core/run_modes.h) into the spec: "--opmark_l2: expected hot or cold, got 'warm'".
template <typename Mode>
RunSetting mode_setting(const char* flag, const char* metavar, const char* key, const char* help, Mode RunSpec::*field,
                        std::optional<Mode> (*parse)(const std::string&), const char* words) {
  return recorded(
      flag, metavar, key, help,
      [=](RunSpec& s, const std::string& v) {
        const std::optional<Mode> m = parse(v);
        if (!m) throw Error("--" + std::string(flag) + ": expected " + words + ", got '" + v + "'");
        s.*field = *m;
      },
      [=](const RunSpec& s) { return nlohmann::json(name_of(s.*field)); });
}

// A switch (true or false, bare: true) into a bool of the spec.
RunSetting a_switch(const char* flag, const char* help, bool RunSpec::*field) {
  return flag_only(flag, "", help,
                   [flag, field](RunSpec& s, const std::string& v) { s.*field = parse_switch(flag, v); });
}

using Held = std::optional<nlohmann::json>;

// A mode's word the rules may fix.
template <typename Mode>
Held word(const std::optional<Mode>& mode) {
  return mode ? Held(name_of(*mode)) : std::nullopt;
}

// A setting the submission rules hold (RunSetting::rules).
RunSetting held(RunSetting setting, RulesBound bound, std::function<Held(const Suite&)> value,
                bool whole_runs_only = false) {
  setting.rules = bound;
  setting.rules_value = std::move(value);
  setting.rules_whole_runs_only = whole_runs_only;
  return setting;
}

std::vector<RunSetting> make_table() {
  std::vector<RunSetting> t;
  t.push_back(flag_only("opmark_shapes", "PATH[,PATH]",
                        "shape-table folders or files (default: the source tree's shapes/)",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_shapes", v);
                          s.shapes = split_list(v);
                        }));
  t.push_back(flag_only("opmark_family", "F[,F]", "only these families (listed below)",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_family", v);
                          for (const auto& f : split_list(v)) {
                            if (!is_family(f)) schema_for(f);  // throws the message listing known families
                            s.selection.families.insert(f);
                          }
                        }));
  t.push_back(flag_only("opmark_set", "S[,S]",
                        "only these sets (train, inference_server, inference_device, peak, resnet50, ...)",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_set", v);
                          for (const auto& set : split_list(v)) s.selection.sets.insert(set);
                        }));
  t.push_back(flag_only("opmark_precision", "P[,P]", "only these precisions (fp32, tf32, fp16, bf16, int8, fp8)",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_precision", v);
                          for (const auto& p : split_list(v)) {
                            precision_info(p);  // throws listing the known precisions
                            s.selection.precisions.insert(p);
                          }
                        }));
  t.push_back(flag_only("opmark_symbols", "B=32,L=512", "values for expression symbols in tables",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_symbols", v);
                          s.selection.symbols = parse_symbols("opmark_symbols", v);
                        }));
  t.push_back(flag_only("opmark_models", "M[,M]",
                        "run the cases these models need instead of the shape tables, each once (names of "
                        "shapes/models/*.yaml, all, all_train, or paths; fp16 unless given)",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_models", v);
                          s.models = split_list(v);
                        }));
  t.push_back(flag_only("opmark_suite", "quick|submission|PATH",
                        "run a suite: quick (shapes/quick.yaml, 118 cases, minutes: a first answer, ResNet-50 and "
                        "BERT-base scorable), submission (the cases the submission rules require, "
                        "shapes/submission.yaml; opmark-submit uses it) or a rules file: every table set and model "
                        "case it names, each once, with its repetitions and min time; not combined with "
                        "--opmark_family/set/precision/models",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_suite", v);
                          s.suite = v;
                        }));
  t.push_back(flag_only("opmark_inputs", "B=16,H=512", "the models' input sizes, over the defaults their tables record",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_inputs", v);
                          s.inputs = parse_symbols("opmark_inputs", v);
                        }));
  t.push_back(held(mode_setting(
      "opmark_l2", "hot|cold", run_key::l2,
      "hot: operands stay in L2 between launches (DeepBench, default); cold: L2 flushed before every timed launch",
      &RunSpec::l2, &parse_l2_mode, "hot or cold"),
      RulesBound::equal, [](const Suite& r) { return word(r.l2); }));
  t.push_back(flag_only("opmark_out", "DIR",
                        "write DIR/benchmark.json (Google Benchmark JSON) and DIR/results.jsonl (one line per "
                        "finished run, appended as the run goes); the run locks DIR (DIR/.opmark.lock): a second run "
                        "on DIR is refused while it lasts; a write that fails (a full disk) stops the run with an "
                        "error; links there are refused",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_out", v);
                          s.out_dir = v;
                        }));
  t.push_back(a_switch("opmark_overwrite",
                       "replace the results a folder already holds (without it, a --opmark_out that holds a run's "
                       "results.jsonl or benchmark.json is refused, so nothing measured is lost to a rerun)",
                       &RunSpec::overwrite));
  t.push_back(a_switch("opmark_resume",
                       "go on from the results.jsonl a killed run left in --opmark_out: its measured cases are kept "
                       "and skipped, a case it cut off is measured again; the GPU, software, build and timing rules "
                       "must match (the new part's Google Benchmark JSON goes to benchmark.resumed.json)",
                       &RunSpec::resume));
  t.push_back(a_switch("opmark_validate",
                       "load and check every table, print the case count, run nothing (no GPU needed)",
                       &RunSpec::validate_only));
  t.push_back(flag_only("opmark_peak", "bf16=790,bw=3000",
                        "peak TFLOPS per precision, memory GB/s (bw) and NVLink GB/s per direction (link), overriding "
                        "the built-in table and NVML's links",
                        [](RunSpec& s, const std::string& v) {
                          need_value("opmark_peak", v);
                          for (const auto& item : split_list(v)) {
                            const std::size_t eq = item.find('=');
                            if (eq == std::string::npos)
                              throw Error("--opmark_peak: expected KEY=VALUE, got '" + item + "'");
                            const std::string key = item.substr(0, eq);
                            if (key != "bw" && key != "link") precision_info(key);
                            s.peaks[key] = parse_positive("opmark_peak", key, item.substr(eq + 1));
                          }
                        }));
  t.push_back(flag_only("opmark_candidates", "N", "cuBLASLt algorithms per layout timed before measuring (default 16)",
                        [](RunSpec& s, const std::string& v) {
                          s.candidates = static_cast<int>(parse_integer("opmark_candidates", v, 1, kMaxCandidates));
                        }));
  t.push_back(flag_only("opmark_engines", "N",
                        "cuDNN graph engine configurations timed per convolution (default 0: every one cuDNN's "
                        "heuristics and its fallback list offer, as PyTorch's cudnn.benchmark does)",
                        [](RunSpec& s, const std::string& v) {
                          s.engines = static_cast<int>(parse_integer("opmark_engines", v, 0, kMaxCandidates));
                        }));
  t.push_back(flag_only("opmark_workspace_mib", "N",
                        "library workspace limit (default: cuBLASLt 1024, cuDNN what the GPU has free, as PyTorch's "
                        "cudnn.benchmark allows)",
                        [](RunSpec& s, const std::string& v) {
                          s.workspace_bytes =
                              static_cast<std::size_t>(parse_integer("opmark_workspace_mib", v, 0, kMaxWorkspaceMib))
                              << 20;
                        }));
  t.push_back(flag_only("opmark_warmup_ms", "X", "untimed warm-up per case (default 10)",
                        [](RunSpec& s, const std::string& v) {
                          s.warmup_ms = parse_number("opmark_warmup_ms", v, 0, kMaxWarmupMs);
                        }));
  t.push_back(held(mode_setting(
      "opmark_regime", "burst|sustained", run_key::regime,
      "burst (default): every time at full clock, as PyTorch, nvbench or a short benchmark sees it: short "
      "repetitions, a sample whose SM clock was down (measured on the GPU) or that NVML saw throttled is dropped, "
      "and the GPU idles until its clock is back (50 ms, doubling to 0.5 s; a case that cannot get an unthrottled "
      "sample within 5 s of pauses is reported unstable, \"throttled: ...\"); sustained: as a training loop sees it: "
      "0.5 s to settle at the power limit, then windows of at least 1 s timed with their clock, power and energy",
      &RunSpec::regime, &parse_regime, "burst or sustained"),
      RulesBound::equal, [](const Suite& r) { return word(r.regime); }));
  t.push_back(recorded(
      "opmark_min_clock", "X", run_key::min_clock_fraction,
      "burst: drop a sample whose SM clock is under X of the GPU's maximum (default 0.9)",
      [](RunSpec& s, const std::string& v) { s.min_clock_fraction = parse_number("opmark_min_clock", v, 0, 1); },
      [](const RunSpec& s) { return nlohmann::json(s.min_clock_fraction); }));
  t.push_back(recorded(
      "opmark_rest", "S", run_key::rest_s,
      "burst: leave the GPU idle S seconds before each case's repetitions, so the power limiter starts every case "
      "from rest (default 0; 0.2 held 2% run to run on an H100's 50 us GEMMs, at about 0.15 s a case: "
      "docs/regimes.md)",
      [](RunSpec& s, const std::string& v) { s.rest_s = parse_number("opmark_rest", v, 0, kMaxSeconds); },
      [](const RunSpec& s) { return nlohmann::json(s.rest_s); }));
  t.push_back(recorded(
      "opmark_energy_window", "S", run_key::energy_window_s,
      "energy per case over at least S seconds of back-to-back launches, in whole steps of NVML's energy counter "
      "(default 0.1: one step; 0: no energy)",
      [](RunSpec& s, const std::string& v) {
        s.energy_window_s = parse_number("opmark_energy_window", v, 0, kMaxSeconds);
      },
      [](const RunSpec& s) { return nlohmann::json(s.energy_window_s); }));
  t.push_back(recorded(
      "opmark_sustained", "auto|off", run_key::sustained_heavy,
      "burst: a case whose energy window ran into the power cap also gets a sustained measurement (sustained_us and "
      "its clock, power and energy; default auto)",
      [](RunSpec& s, const std::string& v) { s.sustained_heavy = parse_pair("opmark_sustained", v, "auto", "off"); },
      [](const RunSpec& s) { return nlohmann::json(s.sustained_heavy ? "auto" : "off"); }));
  t.push_back(held(recorded(
      "opmark_min_time", "S", run_key::min_time_s, "GPU seconds per repetition (default 0.005)",
      [](RunSpec& s, const std::string& v) {
        s.min_time_s = parse_number("opmark_min_time", v, 1e-6, kMaxSeconds);
      },
      [](const RunSpec& s) { return nlohmann::json(s.min_time_s); }),
      RulesBound::equal, [](const Suite& r) { return r.min_time_s > 0 ? Held(r.min_time_s) : std::nullopt; }));
  t.push_back(recorded(
      "opmark_batch", "S", run_key::batch_s,
      "GPU seconds of launches captured into one timed graph replay, at most 1000 launches (default 0.001; the "
      "tuner's rounds take 0.00025, its finalists this)",
      [](RunSpec& s, const std::string& v) {
        s.batch_s = parse_number("opmark_batch", v, kMinBatchSeconds, kMaxBatchSeconds);
      },
      [](const RunSpec& s) { return nlohmann::json(s.batch_s); }));
  t.push_back(held(recorded(
      "opmark_timing", "graph|eager", run_key::timing_mode,
      "graph (default): a batch of launches captured once into a CUDA graph and its replays timed, the GPU's own "
      "time; eager: launches back to back from the host (every case also records eager_us, and launch_bound when "
      "eager is >1.1x slower)",
      [](RunSpec& s, const std::string& v) { s.graph_timing = parse_pair("opmark_timing", v, "graph", "eager"); },
      [](const RunSpec& s) { return nlohmann::json(s.graph_timing ? "graph" : "eager"); }),
      RulesBound::equal, [](const Suite& r) { return word(r.timing); }));
  t.push_back(held(recorded(
      "opmark_repetitions", "N", run_key::min_repetitions,
      "at least N repetitions per case (default 3; --benchmark_repetitions=N says the same); more are taken until "
      "their noise is at most --opmark_noise",
      [](RunSpec& s, const std::string& v) {
        s.min_repetitions = static_cast<int>(parse_integer("opmark_repetitions", v, 1, kMaxRepetitions));
        if (s.max_repetitions < s.min_repetitions) s.max_repetitions = s.min_repetitions;
      },
      [](const RunSpec& s) { return nlohmann::json(s.min_repetitions); }),
      RulesBound::at_least, [](const Suite& r) { return r.repetitions > 0 ? Held(r.repetitions) : std::nullopt; }));
  t.push_back(held(recorded(
      "opmark_noise", "X", run_key::noise_target,
      "target noise, median absolute deviation over median (default 0.01)",
      [](RunSpec& s, const std::string& v) {
        s.noise_target = parse_number("opmark_noise", v, 0, 1);  // a median absolute deviation over the median
      },
      [](const RunSpec& s) { return nlohmann::json(s.noise_target); }),
      RulesBound::at_most, [](const Suite& r) { return r.noise_target > 0 ? Held(r.noise_target) : std::nullopt; }));
  t.push_back(held(recorded(
      "opmark_max_repetitions", "N", run_key::max_repetitions, "stop at N repetitions however noisy (default 10)",
      [](RunSpec& s, const std::string& v) {
        s.max_repetitions = static_cast<int>(parse_integer("opmark_max_repetitions", v, 1, kMaxRepetitions));
      },
      [](const RunSpec& s) { return nlohmann::json(s.max_repetitions); }),
      RulesBound::at_most,
      [](const Suite& r) { return r.max_repetitions > 0 ? Held(r.max_repetitions) : std::nullopt; }));
  t.push_back(recorded(
      "opmark_case_time_cap", "S", run_key::case_time_cap_s,
      "stop repeating once a case has measured for S seconds (default 2)",
      [](RunSpec& s, const std::string& v) {
        s.case_time_cap_s = parse_number("opmark_case_time_cap", v, 0, kMaxSeconds);
      },
      [](const RunSpec& s) { return nlohmann::json(s.case_time_cap_s); }));
  t.push_back(flag_only("opmark_console", "lines|table",
                        "the console: one line per case (status, time, kernels' time, rate, % of peak, clock, power, "
                        "energy per op; default) or Google Benchmark's table of counters",
                        [](RunSpec& s, const std::string& v) {
                          s.console_table = !parse_pair("opmark_console", v, "lines", "table");
                        }));
  t.push_back(held(recorded(
      "opmark_recheck", "on|off", run_key::recheck,
      "re-time every case briefly at the end of the run; a case that moved more than 1.3x is measured again and, "
      "if it still disagrees, reported unstable (default on)",
      [](RunSpec& s, const std::string& v) { s.recheck = parse_on_off("opmark_recheck", v); },
      [](const RunSpec& s) { return nlohmann::json(s.recheck ? "on" : "off"); }),
      // Rules that name a regime (version 5) hold every case to the end-of-run re-time: check requires its lines.
      RulesBound::equal, [](const Suite& r) { return r.regime ? Held("on") : std::nullopt; }, true));
  t.push_back(flag_only("opmark_kernel_trace", "on|off",
                        "after timing, trace three replays with CUPTI for the launch's kernels, their names and own "
                        "durations (kernel_us: what Nsight Systems shows; default on; off under "
                        "--opmark_profile_launches, where the profiler holds CUPTI)",
                        [](RunSpec& s, const std::string& v) {
                          s.kernel_trace = parse_on_off("opmark_kernel_trace", v);
                        }));
  t.push_back(a_switch("opmark_isolated",
                       "also time each launch alone between event nodes (isolated_us), so none overlaps the next, as "
                       "a profiler times a kernel, and, where launches may start early (programmatic dependent "
                       "launch), replays without that (serial_us)",
                       &RunSpec::isolated));
  t.push_back(a_switch("opmark_tuning_log",
                       "print, for each tuned case, every candidate's times at each stage of the tuning (screen, "
                       "probe, rounds, confirmation; us a launch) and why any failed (bench/compare/ncu_fidelity.py "
                       "sets it)",
                       &RunSpec::tuning_log));
  t.push_back(flag_only("opmark_profile_launches", "K",
                        "after timing each case, a marker kernel and K launches between cudaProfilerStart/Stop, each "
                        "after 10 ms of unprofiled launches, for Nsight Compute (bench/compare/ncu_fidelity.py)",
                        [](RunSpec& s, const std::string& v) {
                          s.profile_launches =
                              static_cast<int>(parse_integer("opmark_profile_launches", v, 1, kMaxProfileLaunches));
                        }));
  t.push_back(a_switch("opmark_profile_graph",
                       "with --opmark_profile_launches=K: profile K replays of the timed CUDA graph instead (ncu "
                       "--graph-profiling graph times the whole replay)",
                       &RunSpec::profile_graph));
  t.push_back(flag_only("opmark_pin", "FILE",
                        "run, verify and time the candidate FILE names for each case (one 'case<TAB>candidate' per "
                        "line) instead of tuning; a case not in FILE is tuned",
                        [](RunSpec& s, const std::string& v) {
                          if (v.empty())
                            throw Error("--opmark_pin: expected a file (case name<TAB>candidate name per line)");
                          s.pin_path = v;
                        }));
  t.push_back(recorded(
      "opmark_seed", "N", run_key::seed, "seed of the random inputs",
      [](RunSpec& s, const std::string& v) { s.seed = parse_seed("opmark_seed", v); },
      [](const RunSpec& s) { return nlohmann::json(s.seed); }));
  return t;
}

// `text` wrapped at `width` columns, every line after the first indented by `indent` spaces.
std::string wrap(const std::string& text, std::size_t first_column, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::size_t column = first_column;
  for (const std::string& word : split(text, ' ', false)) {
    if (!line.empty() && column + line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
      column = indent;
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

}  // namespace

bool parse_switch(const std::string& flag, const std::string& value) {
  if (value.empty() || value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  throw Error("--" + flag + ": expected true or false, got '" + value + "'");
}

std::vector<RunSetting>& run_settings() {
  static std::vector<RunSetting> table = make_table();
  return table;
}

const RunSetting* find_setting(const std::string& flag) {
  for (const RunSetting& s : run_settings())
    if (s.flag == flag) return &s;
  return nullptr;
}

nlohmann::json settings_context(const RunSpec& spec) {
  nlohmann::json out = nlohmann::json::object();
  for (const RunSetting& s : run_settings())
    if (!s.key.empty() && s.value) out[s.key] = s.value(spec);
  return out;
}

std::vector<std::string> settings_resume_keys() {
  std::vector<std::string> keys;
  for (const RunSetting& s : run_settings())
    if (!s.key.empty() && s.resume) keys.push_back(s.key);
  return keys;
}

std::string settings_help() {
  constexpr std::size_t kColumn = 32, kWidth = 118;
  std::string out;
  for (const RunSetting& s : run_settings()) {
    std::string left = "  --" + s.flag + (s.metavar.empty() ? "" : "=" + s.metavar);
    left += left.size() + 2 <= kColumn ? std::string(kColumn - left.size(), ' ') : "  ";
    out += left + wrap(s.help, left.size(), kColumn, kWidth);
  }
  return out;
}

}  // namespace opmark::core

namespace opmark::core {
namespace {

// A value as the messages show it: a word as it is, a number as %g.
std::string shown(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.is_number() ? number_text(v.get<double>()) : v.dump();
}

bool departs(RulesBound bound, const nlohmann::json& stated, const nlohmann::json& required) {
  if (required.is_string() || stated.is_string()) return stated != required;
  const double s = stated.get<double>(), r = required.get<double>(), slack = 1e-9 * std::max(1.0, std::fabs(r));
  switch (bound) {
    case RulesBound::equal: return std::fabs(s - r) > slack;
    case RulesBound::at_least: return s < r - slack;
    case RulesBound::at_most: return s > r + slack;
    case RulesBound::none: return false;
  }
  return false;
}

}  // namespace

std::string RulesDeparture::what(const std::string& where) const {
  const std::string bound = setting->rules == RulesBound::at_least  ? "require at least "
                            : setting->rules == RulesBound::at_most ? "allow at most "
                                                                    : "require ";
  const std::string value = !stated ? "" : stated->is_string() ? "'" + shown(*stated) + "'" : shown(*stated);
  return (stated ? "the run's " + setting->key + " is " + value + " (" + where + ")"
                 : "the run's context (" + where + ") states no " + setting->key) +
         ", the rules " + bound + shown(required);
}

std::string RulesDeparture::flag_text() const { return "--" + setting->flag + "=" + shown(required); }

std::vector<RulesDeparture> rules_departures(
    const std::function<std::optional<nlohmann::json>(const std::string& key)>& stated, const Suite& rules) {
  std::vector<RulesDeparture> out;
  for (const RunSetting& s : run_settings()) {
    if (s.rules == RulesBound::none || !s.rules_value) continue;
    const std::optional<nlohmann::json> required = s.rules_value(rules);
    if (!required) continue;
    const std::optional<nlohmann::json> value = stated(s.key);
    if (!value) {
      if (required->is_string()) out.push_back({&s, std::nullopt, *required});  // a word must be stated
    } else if (departs(s.rules, *value, *required)) {
      out.push_back({&s, value, *required});
    }
  }
  return out;
}

void apply_rules(RunSpec& spec, const Suite& rules, const std::string& rules_path, bool whole_run) {
  for (const RunSetting& s : run_settings()) {
    if (s.rules == RulesBound::none || !s.rules_value || !s.value) continue;
    const std::optional<nlohmann::json> required = s.rules_value(rules);
    if (!required) continue;
    const nlohmann::json value = s.value(spec);
    if (required->is_string()) {
      if (value != *required && (whole_run || !s.rules_whole_runs_only))
        throw Error("the submission rules " + rules_path + " require --" + s.flag + "=" + shown(*required) +
                    (s.rules_whole_runs_only ? " (a run of part of the suite, with --benchmark_filter, may leave it "
                                               "out)"
                                             : ""));
      continue;
    }
    // The rules' value through the flag's own parser, which checks its range and keeps what depends on it.
    const bool take = s.rules == RulesBound::equal || departs(s.rules, value, *required);
    if (take && !spec.given.count(s.flag)) s.apply(spec, shown(*required));
  }
}

}  // namespace opmark::core
