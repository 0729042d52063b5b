#include "bench/harness/options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bench/harness/tuning/pins.h"
#include "bench/harness/version.h"
#include "core/error.h"
#include "core/resume.h"
#include "core/run_spec.h"
#include "core/suite.h"

using namespace opmark::bench;

namespace {

struct Argv {
  explicit Argv(std::vector<std::string> a) : args(std::move(a)) {
    for (auto& s : args) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
    argc = static_cast<int>(args.size());
  }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
  int argc;
};

}  // namespace

TEST(Options, TakesOpmarkFlagsAndLeavesTheRest) {
  Argv a({"opmark-bench", "--opmark_set=train,inference_server", "--benchmark_filter=^gemm/",
          "--opmark_precision=fp16,bf16", "--opmark_symbols=B=8", "--opmark_l2=cold", "--opmark_out=results/x",
          "--opmark_peak=bf16=790,bw=3000", "--benchmark_out_format=json"});
  Options o = parse_options(a.argc, a.ptrs.data());
  EXPECT_EQ(a.argc, 3);
  EXPECT_STREQ(a.ptrs[1], "--benchmark_filter=^gemm/");
  EXPECT_STREQ(a.ptrs[2], "--benchmark_out_format=json");
  EXPECT_EQ(a.ptrs[3], nullptr);
  EXPECT_EQ(o.selection.sets, (std::set<std::string>{"train", "inference_server"}));
  EXPECT_EQ(o.selection.precisions, (std::set<std::string>{"fp16", "bf16"}));
  EXPECT_EQ(o.selection.symbols.at("B"), 8);
  EXPECT_EQ(o.l2, L2Mode::cold);
  EXPECT_EQ(o.out_dir, "results/x");
  EXPECT_DOUBLE_EQ(o.peaks.at("bf16"), 790);
  EXPECT_DOUBLE_EQ(o.peaks.at("bw"), 3000);
}

TEST(Options, BadValuesNameTheFlag) {
  auto message = [](std::vector<std::string> args) {
    args.insert(args.begin(), "opmark-bench");
    Argv a(args);
    try {
      parse_options(a.argc, a.ptrs.data());
    } catch (const opmark::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"--opmark_l2=warm"}), "--opmark_l2: expected hot or cold, got 'warm'");
  EXPECT_EQ(message({"--opmark_precision=fp64"}).find("unknown precision 'fp64'"), 0u);
  EXPECT_EQ(message({"--opmark_family=gemmm"}).find("unknown family 'gemmm'"), 0u);
  EXPECT_EQ(message({"--opmark_sets=train"}), "unknown flag --opmark_sets (see --opmark_help)");
  EXPECT_EQ(message({"--opmark_candidates=0"}), "--opmark_candidates: expected an integer from 1 to 1000, got '0'");
  EXPECT_EQ(message({"--opmark_out"}), "--opmark_out needs a value (--opmark_out=...)");
  EXPECT_EQ(message({"--opmark_peak=bf16"}), "--opmark_peak: expected KEY=VALUE, got 'bf16'");
}

TEST(Options, ModelsInputsAndMinTime) {
  Argv a({"opmark-bench", "--opmark_models=resnet50,bert_base", "--opmark_inputs=B=16,H=512", "--opmark_min_time=0.01"});
  Options o = parse_options(a.argc, a.ptrs.data());
  EXPECT_EQ(a.argc, 1);
  EXPECT_EQ(o.models, (std::vector<std::string>{"resnet50", "bert_base"}));
  EXPECT_EQ(o.inputs.at("H"), 512);
  EXPECT_DOUBLE_EQ(o.min_time_s, 0.01);
  Argv bad({"opmark-bench", "--opmark_min_time=0"});
  EXPECT_THROW(parse_options(bad.argc, bad.ptrs.data()), opmark::Error);
}

TEST(Options, CudnnEnginesDefaultToAllListed) {
  Argv none({"opmark-bench"});
  EXPECT_EQ(parse_options(none.argc, none.ptrs.data()).engines, 0);
  Argv capped({"opmark-bench", "--opmark_engines=8"});
  EXPECT_EQ(parse_options(capped.argc, capped.ptrs.data()).engines, 8);
  Argv bad({"opmark-bench", "--opmark_engines=-1"});
  EXPECT_THROW(parse_options(bad.argc, bad.ptrs.data()), opmark::Error);
}

TEST(Options, TimingAndRepetitionFlags) {
  Argv a({"opmark-bench", "--opmark_timing=eager", "--benchmark_repetitions=5", "--opmark_noise=0.02",
          "--opmark_case_time_cap=3", "--opmark_recheck=off", "--opmark_kernel_trace=off",
          "--opmark_profile_launches=4", "--opmark_rest=0.2", "--opmark_batch=0.00025", "--benchmark_filter=x"});
  const Options o = parse_options(a.argc, a.ptrs.data());
  EXPECT_FALSE(o.graph_timing);
  EXPECT_EQ(o.min_repetitions, 5);  // Google Benchmark's repetitions flag sets opmark's minimum...
  EXPECT_TRUE(o.given.count("opmark_repetitions"));
  EXPECT_EQ(a.argc, 2);             // ... and is not passed on; the filter is
  EXPECT_DOUBLE_EQ(o.noise_target, 0.02);
  EXPECT_DOUBLE_EQ(o.case_time_cap_s, 3.0);
  EXPECT_FALSE(o.recheck);
  EXPECT_FALSE(o.kernel_trace);
  EXPECT_EQ(o.profile_launches, 4);
  EXPECT_DOUBLE_EQ(o.rest_s, 0.2);
  EXPECT_DOUBLE_EQ(o.batch_s, 0.00025);
  const Options d = [] {
    Argv none({"opmark-bench"});
    return parse_options(none.argc, none.ptrs.data());
  }();
  EXPECT_TRUE(d.graph_timing);  // GPU time by default
  EXPECT_EQ(d.min_repetitions, 3);
  EXPECT_DOUBLE_EQ(d.noise_target, 0.01);
  EXPECT_TRUE(d.recheck);
  EXPECT_TRUE(d.kernel_trace);  // the kernels' own durations by default
  EXPECT_DOUBLE_EQ(d.rest_s, 0);
  EXPECT_DOUBLE_EQ(d.batch_s, 0.001);  // the replay every rules version times
  Argv zero_batch({"opmark-bench", "--opmark_batch=0"});
  EXPECT_THROW(parse_options(zero_batch.argc, zero_batch.ptrs.data()), opmark::Error);
  Argv isolated({"opmark-bench", "--opmark_isolated=yes"});  // a switch: true or false, 1 or 0
  EXPECT_THROW(parse_options(isolated.argc, isolated.ptrs.data()), opmark::Error);
  Argv recheck({"opmark-bench", "--opmark_recheck=maybe"});
  EXPECT_THROW(parse_options(recheck.argc, recheck.ptrs.data()), opmark::Error);
  Argv trace({"opmark-bench", "--opmark_kernel_trace=sometimes"});
  EXPECT_THROW(parse_options(trace.argc, trace.ptrs.data()), opmark::Error);
  Argv bad({"opmark-bench", "--opmark_timing=host"});
  EXPECT_THROW(parse_options(bad.argc, bad.ptrs.data()), opmark::Error);
}

// Issue 21: numbers past a flag's range (inf overflowed an int to -2147483648), symbols and inputs that are not sizes,
// and peaks that are not positive are errors stating the range.
TEST(Options, OutOfRangeValuesStateTheRange) {
  auto message = [](const std::string& arg) {
    Argv a({"opmark-bench", arg});
    try {
      parse_options(a.argc, a.ptrs.data());
    } catch (const opmark::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("--opmark_candidates=inf"), "--opmark_candidates: expected an integer from 1 to 1000, got 'inf'");
  EXPECT_EQ(message("--opmark_candidates=2.5"), "--opmark_candidates: expected an integer from 1 to 1000, got '2.5'");
  EXPECT_EQ(message("--opmark_candidates=99999999999999999999"),
            "--opmark_candidates: expected an integer from 1 to 1000, got '99999999999999999999'");
  EXPECT_EQ(message("--opmark_engines=inf"), "--opmark_engines: expected an integer from 0 to 1000, got 'inf'");
  EXPECT_EQ(message("--opmark_workspace_mib=inf"),
            "--opmark_workspace_mib: expected an integer from 0 to 1048576, got 'inf'");
  EXPECT_EQ(message("--opmark_seed=inf"), "--opmark_seed: expected an integer from 0 to 18446744073709551615, got 'inf'");
  EXPECT_EQ(message("--opmark_seed=-1"), "--opmark_seed: expected an integer from 0 to 18446744073709551615, got '-1'");
  EXPECT_EQ(message("--opmark_min_time=inf"), "--opmark_min_time: expected a number from 1e-06 to 3600, got 'inf'");
  EXPECT_EQ(message("--opmark_min_time=nan"), "--opmark_min_time: expected a number from 1e-06 to 3600, got 'nan'");
  EXPECT_EQ(message("--opmark_noise=2"), "--opmark_noise: expected a number from 0 to 1, got '2'");
  EXPECT_EQ(message("--opmark_repetitions=inf"),
            "--opmark_repetitions: expected an integer from 1 to 100000, got 'inf'");
  EXPECT_EQ(message("--opmark_peak=fp16=0"), "--opmark_peak: fp16: expected a number > 0, got '0'");
  EXPECT_EQ(message("--opmark_peak=bw=inf"), "--opmark_peak: bw: expected a number > 0, got 'inf'");
  EXPECT_EQ(message("--opmark_validate=maybe"), "--opmark_validate: expected true or false, got 'maybe'");
  EXPECT_EQ(message("--opmark_symbols=B=-4"),
            "--opmark_symbols: symbol list 'B=-4': in 'B=-4': expected a positive integer, got -4");
  EXPECT_EQ(message("--opmark_inputs=B=(-9223372036854775807-1)/-1"),
            "--opmark_inputs: symbol list 'B=(-9223372036854775807-1)/-1': in 'B=(-9223372036854775807-1)/-1': "
            "integer overflow");
  EXPECT_EQ(message("--opmark_symbols=B=-(-9223372036854775807-1)"),
            "--opmark_symbols: symbol list 'B=-(-9223372036854775807-1)': in 'B=-(-9223372036854775807-1)': integer "
            "overflow");
  // The ends of each range are accepted.
  Argv ends({"opmark-bench", "--opmark_candidates=1000", "--opmark_engines=0", "--opmark_seed=18446744073709551615",
             "--opmark_min_time=3600", "--opmark_workspace_mib=1048576", "--opmark_validate=false"});
  const Options o = parse_options(ends.argc, ends.ptrs.data());
  EXPECT_EQ(o.candidates, 1000);
  EXPECT_EQ(o.seed, 18446744073709551615ull);
  EXPECT_EQ(o.workspace_bytes, std::size_t{1} << 40);
  EXPECT_EQ(o.gemm_workspace_bytes(), std::size_t{1} << 40);
  // Unset: cuBLASLt's 1 GiB; cuDNN's limit is the GPU's free memory, read where candidates are listed.
  Argv none({"opmark-bench"});
  const Options d = parse_options(none.argc, none.ptrs.data());
  EXPECT_FALSE(d.workspace_bytes.has_value());
  EXPECT_EQ(d.gemm_workspace_bytes(), std::size_t{1} << 30);
  EXPECT_FALSE(o.validate_only);
}

TEST(Pins, ParsesCaseAndCandidatePerLine) {
  const auto pins = opmark::bench::parse_pins(
      "# chosen by an earlier run\n\ngemm/fwd/fp16/m=1/n=1/k=1\tcublasLt algo 66 tile 10 [NN]\r\nconv/x\tengine 3 #2\n",
      "pins.tsv");
  ASSERT_EQ(pins.size(), 2u);
  EXPECT_EQ(pins.at("gemm/fwd/fp16/m=1/n=1/k=1"), "cublasLt algo 66 tile 10 [NN]");
  EXPECT_EQ(pins.at("conv/x"), "engine 3 #2");
}

TEST(Pins, BadLinesNameFileAndLine) {
  auto message = [](const std::string& text) {
    try {
      opmark::bench::parse_pins(text, "pins.tsv");
    } catch (const opmark::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("a\tb\nonly a name\n"), "pins.tsv:2: expected 'case name<TAB>candidate name', got 'only a name'");
  EXPECT_EQ(message("a\t\n"), "pins.tsv:1: expected 'case name<TAB>candidate name', got 'a\t'");
  EXPECT_EQ(message("a\tb\tc\n"), "pins.tsv:1: expected 'case name<TAB>candidate name', got 'a\tb\tc'");
  EXPECT_EQ(message("a\tb\n#\na\tc\n"), "pins.tsv:3: case 'a' is pinned twice");
  EXPECT_THROW(opmark::bench::read_pins("/nonexistent/pins.tsv"), opmark::Error);
}

TEST(Options, ProfileGraphAndPin) {
  auto parse = [](std::vector<std::string> flags) {
    flags.insert(flags.begin(), "opmark-bench");
    Argv a(flags);
    return parse_options(a.argc, a.ptrs.data());
  };
  const Options o = parse({"--opmark_profile_launches=2", "--opmark_profile_graph", "--opmark_pin=p.tsv"});
  EXPECT_EQ(o.profile_launches, 2);
  EXPECT_TRUE(o.profile_graph);
  EXPECT_EQ(o.pin_path, "p.tsv");
  EXPECT_THROW(parse({"--opmark_pin="}), opmark::Error);
  EXPECT_THROW(parse({"--opmark_profile_graph=maybe"}), opmark::Error);
}

// Issue 20: CLI11 parses the flags. Values also follow a space, a repeated flag applies each time, switches never
// take the next argument, and everything else reaches Google Benchmark in its order.
TEST(Options, SpaceSeparatedValuesRepeatsAndPassThrough) {
  Argv a({"opmark-bench", "--benchmark_filter=^gemm/", "--opmark_set", "train", "pos", "--opmark_set=peak",
          "--opmark_l2=cold", "--opmark_l2", "hot", "-h", "--opmark_validate", "--benchmark_out=x.json",
          "--opmark_engines", "4", "--", "--benchmark_list_tests"});
  const Options o = parse_options(a.argc, a.ptrs.data());
  EXPECT_EQ(o.selection.sets, (std::set<std::string>{"train", "peak"}));
  EXPECT_EQ(o.l2, L2Mode::hot);  // the last one
  EXPECT_TRUE(o.validate_only);
  EXPECT_EQ(o.engines, 4);
  EXPECT_TRUE(o.help);  // -h goes on to Google Benchmark too
  ASSERT_EQ(a.argc, 7);
  EXPECT_STREQ(a.ptrs[1], "--benchmark_filter=^gemm/");
  EXPECT_STREQ(a.ptrs[2], "pos");
  EXPECT_STREQ(a.ptrs[3], "-h");
  EXPECT_STREQ(a.ptrs[4], "--benchmark_out=x.json");
  EXPECT_STREQ(a.ptrs[5], "--");
  EXPECT_STREQ(a.ptrs[6], "--benchmark_list_tests");
  EXPECT_EQ(a.ptrs[7], nullptr);
}

TEST(Options, SwitchesAndVersion) {
  auto parse = [](std::vector<std::string> flags) {
    flags.insert(flags.begin(), "opmark-bench");
    Argv a(flags);
    Options o = parse_options(a.argc, a.ptrs.data());
    return std::make_pair(o, a.argc);
  };
  EXPECT_TRUE(parse({"--opmark_isolated"}).first.isolated);
  EXPECT_TRUE(parse({"--opmark_isolated=1"}).first.isolated);
  EXPECT_FALSE(parse({"--opmark_isolated=true", "--opmark_isolated=false"}).first.isolated);
  EXPECT_TRUE(parse({"--opmark_tuning_log"}).first.tuning_log);
  EXPECT_FALSE(parse({"--opmark_validate=0"}).first.validate_only);
  const auto [o, argc] = parse({"--opmark_validate", "false"});  // a switch takes a value only after '='
  EXPECT_TRUE(o.validate_only);
  EXPECT_EQ(argc, 2);
  EXPECT_FALSE(parse({"--opmark_recheck", "off"}).first.recheck);
  EXPECT_TRUE(parse({"--opmark_recheck"}).first.recheck);
  EXPECT_TRUE(parse({"--opmark_help"}).first.help);
  EXPECT_TRUE(parse({"--version"}).first.version);
  EXPECT_FALSE(parse({}).first.version);
  EXPECT_EQ(parse({"--benchmark_repetitions", "7"}).first.min_repetitions, 7);
}

TEST(Options, ErrorsKeepTheirWordingWithASpace) {
  auto message = [](std::vector<std::string> args) {
    args.insert(args.begin(), "opmark-bench");
    Argv a(args);
    try {
      parse_options(a.argc, a.ptrs.data());
    } catch (const opmark::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"--opmark_l2", "warm"}), "--opmark_l2: expected hot or cold, got 'warm'");
  EXPECT_EQ(message({"--opmark_engines", "-1"}), "--opmark_engines: expected an integer from 0 to 1000, got '-1'");
  EXPECT_EQ(message({"--opmark_out", "--benchmark_filter=x"}), "--opmark_out needs a value (--opmark_out=...)");
  EXPECT_EQ(message({"--opmark_out="}), "--opmark_out needs a value (--opmark_out=...)");
  EXPECT_EQ(message({"--opmark_isolated=yes"}), "--opmark_isolated: expected true or false, got 'yes'");
  EXPECT_EQ(message({"--benchmark_repetitions=0"}),
            "--opmark_repetitions: expected an integer from 1 to 100000, got '0'");
  // An unknown --opmark_ flag is named before any other flag is looked at.
  EXPECT_EQ(message({"--opmark_l2=warm", "--opmark_famly=gemm"}), "unknown flag --opmark_famly (see --opmark_help)");
  EXPECT_EQ(message({"--opmark_"}), "unknown flag --opmark_ (see --opmark_help)");
}

TEST(Version, NamesOpmarkAndEveryLibrary) {
  const std::string text = version_text();
  EXPECT_EQ(text.find("opmark-bench "), 0u) << text;
  for (const char* name : {"\nCUDA runtime ", "\nCUDA driver", "\ncuBLASLt ", "\ncuSPARSE ", "\ncuDNN", "\nNCCL",
                           "\nGoogle Benchmark ", "\nnlohmann-json ", "\nyaml-cpp ", "\nCLI11 "})
    EXPECT_NE(text.find(name), std::string::npos) << name << " missing from:\n" << text;
  EXPECT_EQ(text.back(), '\n');
}

// One edit per setting: a setting added to core's table (as a new flag would be, in core/run_spec.cpp) is a flag of
// the command line, a line of the help, a typed key of the context and a key a resumed run must match, with no
// other edit anywhere.
TEST(Options, ASettingAddedToTheTableIsEverywhere) {
  auto& table = opmark::core::run_settings();
  const std::size_t before = table.size();
  table.push_back({"opmark_test_knob", "K", "a knob only this test has", "test_knob", true,
                   [](opmark::core::RunSpec& s, const std::string& v) {
                     if (v.empty()) throw opmark::Error("--opmark_test_knob needs a value");
                     s.extra["opmark_test_knob"] = v;
                   },
                   [](const opmark::core::RunSpec& s) {
                     const auto it = s.extra.find("opmark_test_knob");
                     return nlohmann::json(it == s.extra.end() ? "unset" : it->second);
                   }});
  Argv a({"opmark-bench", "--opmark_test_knob=7", "--benchmark_filter=x"});
  const Options o = parse_options(a.argc, a.ptrs.data());
  EXPECT_EQ(a.argc, 2);  // taken out of argv, as every opmark flag
  EXPECT_EQ(o.extra.at("opmark_test_knob"), "7");
  EXPECT_NE(options_help().find("--opmark_test_knob=K"), std::string::npos);
  EXPECT_NE(options_help().find("a knob only this test has"), std::string::npos);
  EXPECT_EQ(opmark::core::settings_context(o).at("test_knob"), "7");
  const auto keys = opmark::core::resume_keys();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "test_knob"), keys.end());
  nlohmann::json earlier = opmark::core::settings_context(o), now = earlier;
  now["test_knob"] = "8";
  EXPECT_EQ(opmark::core::resume_mismatches(earlier, now),
            (std::vector<std::string>{"test_knob: \"7\" in the log, \"8\" in this run"}));
  // Held by the rules: the same entry's two fields, and the run applies them and the checker holds a log to them.
  table.back().rules = opmark::core::RulesBound::equal;
  table.back().rules_value = [](const opmark::core::Suite&) { return std::optional<nlohmann::json>("9"); };
  const opmark::core::Suite rules;
  const auto departures = opmark::core::rules_departures(
      [&](const std::string& key) {
        return key == "test_knob" ? std::optional<nlohmann::json>(earlier.at(key)) : std::nullopt;
      },
      rules);
  ASSERT_EQ(departures.size(), 1u);
  EXPECT_EQ(departures[0].what("line 1"), "the run's test_knob is '7' (line 1), the rules require 9");
  EXPECT_EQ(departures[0].flag_text(), "--opmark_test_knob=9");
  Options spec = o;
  try {
    opmark::core::apply_rules(spec, rules, "rules.yaml", true);
    ADD_FAILURE() << "a word the rules fix, given otherwise";
  } catch (const opmark::Error& e) {
    EXPECT_EQ(std::string(e.what()), "the submission rules rules.yaml require --opmark_test_knob=9");
  }
  table.resize(before);
}

// The rules over a run's settings: a number the command line gave stands; else the rules' is taken (min time),
// raised to (repetitions) or lowered to (a maximum); a word they fix must be the run's.
TEST(Options, TheRulesFillTheSettingsTheCommandLineLeft) {
  opmark::core::Suite rules;
  rules.min_time_s = 0.01;
  rules.repetitions = 5;
  rules.max_repetitions = 8;
  rules.noise_target = 0.01;
  rules.regime = opmark::core::Regime::burst;
  Argv a({"opmark-bench", "--opmark_repetitions=4"});
  Options o = parse_options(a.argc, a.ptrs.data());
  opmark::core::apply_rules(o, rules, "rules.yaml", true);
  EXPECT_DOUBLE_EQ(o.min_time_s, 0.01);  // left: the rules'
  EXPECT_EQ(o.min_repetitions, 4);       // given: it stands (check then rejects the run)
  EXPECT_EQ(o.max_repetitions, 8);       // 10 lowered to the rules' most
  o.regime = opmark::core::Regime::sustained;
  EXPECT_THROW(opmark::core::apply_rules(o, rules, "rules.yaml", true), opmark::Error);
  o.regime = opmark::core::Regime::burst;
  o.recheck = false;  // a run of part of the suite may leave the re-time out; a whole run may not
  EXPECT_NO_THROW(opmark::core::apply_rules(o, rules, "rules.yaml", false));
  EXPECT_THROW(opmark::core::apply_rules(o, rules, "rules.yaml", true), opmark::Error);
}

// The table itself: one entry per flag, each with help; each context key once; every setting the context records is
// one a resumed run must match; the help names every flag of the table, and --opmark_help and --version.
TEST(Options, TheSettingsTableIsWholeAndTheHelpComesFromIt) {
  std::set<std::string> flags, keys;
  for (const auto& s : opmark::core::run_settings()) {
    EXPECT_TRUE(flags.insert(s.flag).second) << s.flag;
    EXPECT_FALSE(s.help.empty()) << s.flag;
    EXPECT_TRUE(s.apply) << s.flag;
    if (s.key.empty()) continue;
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_TRUE(s.value) << s.flag;
    EXPECT_TRUE(s.resume) << s.flag;
    EXPECT_NE(options_help().find("--" + s.flag), std::string::npos) << s.flag;
  }
  for (const char* flag : {"--opmark_resume", "--opmark_suite", "--opmark_overwrite", "--opmark_help", "--version"})
    EXPECT_NE(options_help().find(flag), std::string::npos) << flag;
  const nlohmann::json context = opmark::core::settings_context(opmark::core::RunSpec{});
  EXPECT_EQ(context.at("max_repetitions"), opmark::core::kDefaultMaxRepetitions);
  EXPECT_EQ(context.at("regime"), "burst");
  EXPECT_EQ(context.at("timing_mode"), "graph");
  EXPECT_EQ(context.size(), keys.size());
}
