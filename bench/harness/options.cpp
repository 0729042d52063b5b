#include "bench/harness/options.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/error.h"

namespace opmark::bench {

Options parse_options(int& argc, char** argv) {
  Options o;
  CLI::App app{"opmark-bench", "opmark-bench"};
  app.allow_extras();   // Google Benchmark's flags (and anything else) pass through, untouched and in order
  app.set_help_flag();  // --help and -h go on to Google Benchmark too (main prints both helps)
  // Each setting of core::run_settings() is a CLI11 option that applies its value as it is parsed
  // (trigger_on_parse), so flags take effect in command-line order and a repeated flag applies each time; the
  // setting keeps the messages and ranges. A value flag takes --opmark_x=value or --opmark_x value (bare: "", which
  // the setting refuses where it needs a value); a switch takes =value only after '=' (bare: "true").
  auto add = [&](const std::string& flag, bool takes_value, std::function<void(const std::string&)> apply) {
    CLI::Option* opt = app.add_option("--" + flag, [apply](const CLI::results_t& r) {
      apply(r.empty() ? "" : r.back());
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
  for (const core::RunSetting& s : core::run_settings()) {
    const auto apply = s.apply;
    const std::string flag = s.flag;
    add(s.flag, !s.metavar.empty(), [&o, apply, flag](const std::string& v) {
      apply(o, v);
      o.given.insert(flag);
    });
  }
  add("opmark_help", false, [&o](const std::string& v) { o.help = core::parse_switch("opmark_help", v); });
  // Repetitions are opmark's (they adapt to the noise): Google Benchmark's flag sets their minimum.
  const auto repetitions = core::find_setting("opmark_repetitions")->apply;
  add("benchmark_repetitions", true, [&o, repetitions](const std::string& v) {
    repetitions(o, v);
    o.given.insert("opmark_repetitions");
  });
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
