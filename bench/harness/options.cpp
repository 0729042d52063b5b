#include "bench/harness/options.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include <CLI/CLI.hpp>

#include "core/error.h"
#include "core/precision.h"
#include "core/schema.h"
#include "core/text.h"

namespace opmark::bench {

const char* name_of(L2Mode m) { return m == L2Mode::hot ? "hot" : "cold"; }

namespace {

// A comma list of a flag's value; empty items dropped ("a,,b," is a, b).
std::vector<std::string> split_list(const std::string& s) { return core::split(s, ',', false); }

// Ranges of the numeric flags: each far past any sensible run, so a typo or "inf" is caught rather than cast to
// an int or a size (where it would overflow) or left to run for ever.
constexpr std::int64_t kMaxCandidates = 1000;     // cuBLASLt's heuristics and cuDNN's lists offer a few dozen
constexpr std::int64_t kMaxWorkspaceMib = 1 << 20;  // 1 TiB: past any GPU's memory
constexpr std::int64_t kMaxRepetitions = 100000;  // at 0.05 s each, over an hour and a half per case
constexpr std::int64_t kMaxProfileLaunches = 1000;  // each is profiled by Nsight Compute, seconds apiece
constexpr double kMaxSeconds = 3600;               // GPU time per repetition, or measuring a case: an hour
constexpr double kMinBatchSeconds = 1e-5, kMaxBatchSeconds = 0.1;  // a timed replay: one launch to a tenth of a second
constexpr double kMaxWarmupMs = 60000;             // a minute

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

core::Symbols parse_symbols(const std::string& flag, const std::string& text) {
  try {
    return core::parse_symbol_list(text);
  } catch (const Error& e) {
    throw Error("--" + flag + ": " + e.what());
  }
}

bool parse_switch(const std::string& flag, const std::string& value) {
  if (value.empty() || value == "true" || value == "1") return true;
  if (value == "false" || value == "0") return false;
  throw Error("--" + flag + ": expected true or false, got '" + value + "'");
}

// A flag that is on by default: on or off (true/false and 1/0 too; bare: on).
bool parse_on_off(const std::string& flag, const std::string& value) {
  if (value == "on" || value.empty() || value == "true" || value == "1") return true;
  if (value == "off" || value == "false" || value == "0") return false;
  throw Error("--" + flag + ": expected on or off, got '" + value + "'");
}

void apply(Options& o, const std::string& flag, const std::string& value) {
  auto need_value = [&] {
    if (value.empty()) throw Error("--" + flag + " needs a value (--" + flag + "=...)");
  };
  if (flag == "opmark_shapes") {
    need_value();
    o.shapes = split_list(value);
  } else if (flag == "opmark_family") {
    need_value();
    for (const auto& f : split_list(value)) {
      if (!core::is_family(f)) core::schema_for(f);  // throws the message listing known families
      o.selection.families.insert(f);
    }
  } else if (flag == "opmark_set") {
    need_value();
    for (const auto& s : split_list(value)) o.selection.sets.insert(s);
  } else if (flag == "opmark_precision") {
    need_value();
    for (const auto& p : split_list(value)) {
      core::precision_info(p);  // throws listing the known precisions
      o.selection.precisions.insert(p);
    }
  } else if (flag == "opmark_suite") {
    need_value();
    o.suite = value;
  } else if (flag == "opmark_models") {
    need_value();
    o.models = split_list(value);
  } else if (flag == "opmark_inputs") {
    need_value();
    o.inputs = parse_symbols(flag, value);
  } else if (flag == "opmark_symbols") {
    need_value();
    o.selection.symbols = parse_symbols(flag, value);
  } else if (flag == "opmark_l2") {
    if (value == "hot") o.l2 = L2Mode::hot;
    else if (value == "cold") o.l2 = L2Mode::cold;
    else throw Error("--opmark_l2: expected hot or cold, got '" + value + "'");
  } else if (flag == "opmark_out") {
    need_value();
    o.out_dir = value;
  } else if (flag == "opmark_overwrite") {
    o.overwrite = parse_switch(flag, value);
  } else if (flag == "opmark_resume") {
    o.resume = parse_switch(flag, value);
  } else if (flag == "opmark_validate") {
    o.validate_only = parse_switch(flag, value);
  } else if (flag == "opmark_peak") {
    need_value();
    for (const auto& item : split_list(value)) {
      std::size_t eq = item.find('=');
      if (eq == std::string::npos) throw Error("--opmark_peak: expected KEY=VALUE, got '" + item + "'");
      std::string key = item.substr(0, eq);
      if (key != "bw") core::precision_info(key);
      o.peaks[key] = parse_positive(flag, key, item.substr(eq + 1));
    }
  } else if (flag == "opmark_candidates") {
    o.candidates = static_cast<int>(parse_integer(flag, value, 1, kMaxCandidates));
  } else if (flag == "opmark_engines") {
    o.engines = static_cast<int>(parse_integer(flag, value, 0, kMaxCandidates));
  } else if (flag == "opmark_workspace_mib") {
    o.workspace_bytes = static_cast<std::size_t>(parse_integer(flag, value, 0, kMaxWorkspaceMib)) << 20;
  } else if (flag == "opmark_seed") {
    o.seed = parse_seed(flag, value);
  } else if (flag == "opmark_min_time") {
    o.min_time_s = parse_number(flag, value, 1e-6, kMaxSeconds);
    o.min_time_given = true;
  } else if (flag == "opmark_warmup_ms") {
    o.warmup_ms = parse_number(flag, value, 0, kMaxWarmupMs);
  } else if (flag == "opmark_timing") {
    if (value == "graph") o.graph_timing = true;
    else if (value == "eager") o.graph_timing = false;
    else throw Error("--opmark_timing: expected graph or eager, got '" + value + "'");
  } else if (flag == "opmark_repetitions") {
    o.min_repetitions = static_cast<int>(parse_integer(flag, value, 1, kMaxRepetitions));
    o.min_repetitions_given = true;
    if (o.max_repetitions < o.min_repetitions) o.max_repetitions = o.min_repetitions;
  } else if (flag == "opmark_max_repetitions") {
    o.max_repetitions = static_cast<int>(parse_integer(flag, value, 1, kMaxRepetitions));
  } else if (flag == "opmark_noise") {
    o.noise_target = parse_number(flag, value, 0, 1);  // a median absolute deviation over the median
    o.noise_target_given = true;
  } else if (flag == "opmark_case_time_cap") {
    o.case_time_cap_s = parse_number(flag, value, 0, kMaxSeconds);
  } else if (flag == "opmark_regime") {
    const auto r = parse_regime(value);
    if (!r) throw Error("--opmark_regime: expected burst or sustained, got '" + value + "'");
    o.regime = *r;
  } else if (flag == "opmark_min_clock") {
    o.min_clock_fraction = parse_number(flag, value, 0, 1);
  } else if (flag == "opmark_rest") {
    o.rest_s = parse_number(flag, value, 0, kMaxSeconds);
  } else if (flag == "opmark_batch") {
    o.batch_s = parse_number(flag, value, kMinBatchSeconds, kMaxBatchSeconds);
  } else if (flag == "opmark_energy_window") {
    o.energy_window_s = parse_number(flag, value, 0, kMaxSeconds);
  } else if (flag == "opmark_sustained") {
    if (value == "auto") o.sustained_heavy = true;
    else if (value == "off") o.sustained_heavy = false;
    else throw Error("--opmark_sustained: expected auto or off, got '" + value + "'");
  } else if (flag == "opmark_console") {
    if (value == "lines") o.console_table = false;
    else if (value == "table") o.console_table = true;
    else throw Error("--opmark_console: expected lines or table, got '" + value + "'");
  } else if (flag == "opmark_recheck") {
    o.recheck = parse_on_off(flag, value);
  } else if (flag == "opmark_kernel_trace") {
    o.kernel_trace = parse_on_off(flag, value);
  } else if (flag == "opmark_isolated") {
    o.isolated = parse_switch(flag, value);  // a misspelt value is an error, not a silent off
  } else if (flag == "opmark_tuning_log") {
    o.tuning_log = parse_switch(flag, value);
  } else if (flag == "opmark_profile_launches") {
    o.profile_launches = static_cast<int>(parse_integer(flag, value, 1, kMaxProfileLaunches));
  } else if (flag == "opmark_profile_graph") {
    o.profile_graph = parse_switch(flag, value);
  } else if (flag == "opmark_pin") {
    if (value.empty()) throw Error("--opmark_pin: expected a file (case name<TAB>candidate name per line)");
    o.pin_path = value;
  } else if (flag == "opmark_help") {
    o.help = true;
  } else {
    throw Error("unknown flag --" + flag + " (see --opmark_help)");
  }
}

// The flags, as CLI11 options. Each runs apply() as it is parsed (trigger_on_parse), so flags take effect in
// command-line order and a repeated flag applies each time, as before CLI11; apply() keeps the messages and ranges.
// A value flag takes --opmark_x=value or --opmark_x value; a bare one gets "" (apply() says it needs a value). A
// switch (true/false) takes --opmark_x or --opmark_x=value only, so it never swallows the next argument.
const std::vector<std::string> kValueFlags = {
    "opmark_shapes", "opmark_family", "opmark_set", "opmark_precision", "opmark_suite", "opmark_models",
    "opmark_inputs", "opmark_symbols", "opmark_l2", "opmark_out", "opmark_peak", "opmark_candidates",
    "opmark_engines", "opmark_workspace_mib", "opmark_seed", "opmark_min_time", "opmark_warmup_ms",
    "opmark_timing", "opmark_repetitions", "opmark_max_repetitions", "opmark_noise", "opmark_case_time_cap",
    "opmark_console", "opmark_recheck", "opmark_kernel_trace", "opmark_profile_launches", "opmark_pin", "opmark_regime",
    "opmark_min_clock", "opmark_rest", "opmark_batch", "opmark_energy_window", "opmark_sustained"};
const std::vector<std::string> kSwitches = {"opmark_validate", "opmark_isolated", "opmark_profile_graph",
                                            "opmark_overwrite", "opmark_resume", "opmark_help",
                                            "opmark_tuning_log"};

}  // namespace

Options parse_options(int& argc, char** argv) {
  Options o;
  CLI::App app{"opmark-bench", "opmark-bench"};
  app.allow_extras();   // Google Benchmark's flags (and anything else) pass through, untouched and in order
  app.set_help_flag();  // --help and -h go on to Google Benchmark too (main prints both helps)
  auto add = [&](const std::string& flag, const std::string& as, bool takes_value) {
    CLI::Option* opt = app.add_option("--" + flag, [&o, as](const CLI::results_t& r) {
      apply(o, as, r.empty() ? "" : r.back());
      return true;
    });
    if (takes_value) {
      opt->expected(0, 1);
      opt->default_str("");  // what a bare --opmark_x gets
    } else {
      opt->expected(0);  // a flag: a value only after '='; bare, it gets "true"
    }
    opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    opt->trigger_on_parse();
  };
  for (const auto& flag : kValueFlags) add(flag, flag, true);
  for (const auto& flag : kSwitches) add(flag, flag, false);
  // Repetitions are opmark's (they adapt to the noise): Google Benchmark's flag sets their minimum.
  add("benchmark_repetitions", "opmark_repetitions", true);
  app.add_flag("--version", o.version, "print opmark's version and the libraries it loads");

  // CLI11 would take "--" as the end of the options and drop it: opmark's flags end there instead, and "--" and what
  // follows go to Google Benchmark unread (which rejects "--", as it did when it got it before CLI11).
  int parsed = 1;
  while (parsed < argc && std::strcmp(argv[parsed], "--") != 0) ++parsed;

  // An unknown --opmark_ flag is an error (Google Benchmark would only say it is unrecognised), found before any
  // flag is applied, as the hand-written parser did.
  for (int i = 1; i < parsed; ++i) {
    if (std::strncmp(argv[i], "--opmark_", 9) != 0) continue;
    const std::string name(argv[i], std::strcspn(argv[i], "="));
    if (!app.get_option_no_throw(name)) throw Error("unknown flag " + name + " (see --opmark_help)");
  }
  try {
    app.parse(parsed, argv);
  } catch (const CLI::ParseError& e) {
    throw Error(e.what());  // not expected: every flag takes what apply() checks
  }
  // remaining() copies the arguments left for Google Benchmark, in order; point back at argv's own strings, which
  // outlive this call.
  std::vector<char*> rest;
  std::vector<bool> used(static_cast<std::size_t>(parsed), false);
  for (const std::string& arg : app.remaining()) {
    int at = 1;
    while (at < parsed && (used[static_cast<std::size_t>(at)] || arg != argv[at])) ++at;
    if (at == parsed) throw Error("internal: the command line parser changed the argument '" + arg + "'");
    used[static_cast<std::size_t>(at)] = true;
    rest.push_back(argv[at]);
    if (arg == "--help" || arg == "-h") o.help = true;
  }
  rest.insert(rest.end(), argv + parsed, argv + argc);
  int kept = 1;
  for (char* arg : rest) argv[kept++] = arg;
  argc = kept;
  argv[argc] = nullptr;
  return o;
}

}  // namespace opmark::bench
