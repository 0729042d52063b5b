// The run's parameters read from a context: the typed keys (results format 3), and the one legacy reader of the
// timing sentence that older contexts state them in (formats 1 and 2, as committed bundles hold them).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run_context.h"

namespace {

using opmark::core::run_parameters_from_sentence;
using opmark::core::run_parameters_of;
using opmark::core::L2Mode;
using opmark::core::Regime;
using opmark::core::RunParameters;
using opmark::core::TimingMode;

// The sentences as opmark-bench wrote them (results/nvidia-h200, test/data/bundles/nvidia-h200-v4, .../good).
const std::string kBurst =
    "burst: cuda graph replays timed with events; batches of about 1 ms (at most 1000 launches); L2 hot; median over "
    "repetitions of at least 0.005 s of GPU time each, at least 3 and at most 10, stopping once the median absolute "
    "deviation over the median is at most 0.01 or after 2 s; a sample whose SM clock (measured on the GPU) was under "
    "90% of the maximum, or that NVML saw throttled, is dropped and taken again after an idle pause; energy over at "
    "least 0.15 s of back-to-back launches";
const std::string kFormat2 =
    "cuda graph replays timed with events; batches of launches lasting about 1 ms (at most 1000 launches); L2 hot; "
    "median over repetitions of at least 0.01 s of GPU time each, at least 3 and at most 30, stopping once the median "
    "absolute deviation over the median is at most 0.01 or after 2 s; a sample taken while the GPU throttled (a "
    "thermal or hardware slowdown, or the SM clock under 90% of the fastest seen) is taken again";
const std::string kFormat1 = "cuda events, median over repetitions; L2 hot";

// A results format 3 context: the first line of a current run.
nlohmann::json format3() {
  return {{"regime", "burst"},      {"l2", "hot"},
          {"timing_mode", "graph"}, {"min_time_s", 0.005},
          {"min_repetitions", 3},   {"max_repetitions", 10},
          {"noise_target", 0.01},   {"case_time_cap_s", 2.0},
          {"seed", 20261121},       {"min_clock_fraction", 0.9},
          {"energy_window_s", 0.15}, {"power_margin", 0.25},
          {"timing", kBurst},       {"results_format", 3}};
}

// What format3() and kBurst both state: a burst run's parameters (its seed and power margin are in the keys only).
void expect_burst_parameters(const RunParameters& p) {
  EXPECT_EQ(p.regime, Regime::burst);
  EXPECT_EQ(p.l2, L2Mode::hot);
  EXPECT_EQ(p.timing_mode, TimingMode::graph);
  EXPECT_EQ(p.min_time_s, 0.005);
  EXPECT_EQ(p.min_repetitions, 3);
  EXPECT_EQ(p.max_repetitions, 10);
  EXPECT_EQ(p.noise_target, 0.01);
  EXPECT_EQ(p.case_time_cap_s, 2.0);
  EXPECT_EQ(p.min_clock_fraction, 0.9);
  EXPECT_EQ(p.energy_window_s, 0.15);
}

TEST(RunParameters, TypedKeysAreReadAsValues) {
  const RunParameters p = run_parameters_of(format3());
  expect_burst_parameters(p);
  EXPECT_EQ(p.seed, 20261121u);
  EXPECT_EQ(p.power_margin, 0.25);
  EXPECT_TRUE(p.from_sentence.empty());
  EXPECT_TRUE(p.malformed.empty());
  EXPECT_TRUE(p.disagreements.empty()) << p.disagreements.front();
  EXPECT_EQ(p.source_of("min_time_s"), "min_time_s");
}

// aggregate's contexts are text (a results format 1 file wrote every value as text): the same values.
TEST(RunParameters, TextContextsReadAsJsonOnes) {
  std::map<std::string, std::string> text;
  const nlohmann::json typed = format3();  // items() of a temporary would outlive it
  for (const auto& [key, value] : typed.items())
    text[key] = value.is_string() ? value.get<std::string>() : value.dump();
  const RunParameters a = run_parameters_of(format3()), b = run_parameters_of(text);
  EXPECT_EQ(a.min_time_s, b.min_time_s);
  EXPECT_EQ(a.max_repetitions, b.max_repetitions);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.regime, b.regime);
  EXPECT_TRUE(b.malformed.empty());
}

TEST(RunParameters, TheLegacySentencesStateWhatTheirFormatsDid) {
  const RunParameters burst = run_parameters_from_sentence(kBurst);
  expect_burst_parameters(burst);
  EXPECT_FALSE(burst.seed);  // never in the sentence

  const RunParameters f2 = run_parameters_from_sentence(kFormat2);
  EXPECT_FALSE(f2.regime);
  EXPECT_EQ(f2.timing_mode, TimingMode::graph);
  EXPECT_EQ(f2.l2, L2Mode::hot);
  EXPECT_EQ(f2.min_time_s, 0.01);
  EXPECT_EQ(f2.max_repetitions, 30);
  EXPECT_EQ(f2.min_clock_fraction, 0.9);
  EXPECT_FALSE(f2.energy_window_s);

  const RunParameters f1 = run_parameters_from_sentence(kFormat1 + "; launches under 1 ms timed in batches of about 2 ms");
  EXPECT_EQ(f1.l2, L2Mode::hot);
  EXPECT_FALSE(f1.timing_mode);
  EXPECT_FALSE(f1.min_time_s);
  EXPECT_EQ(run_parameters_from_sentence("cuda events, median over repetitions; L2 cold").l2, L2Mode::cold);

  const RunParameters eager = run_parameters_from_sentence(
      "back-to-back launches timed with events; batches of launches lasting about 1 ms (at most 1000 launches); "
      "L2 cold; median over repetitions of at least 1e-05 s of GPU time each, at least 5 and at most 7");
  EXPECT_EQ(eager.timing_mode, TimingMode::eager);
  EXPECT_EQ(eager.l2, L2Mode::cold);
  EXPECT_EQ(eager.min_time_s, 1e-05);
  EXPECT_EQ(eager.min_repetitions, 5);

  const RunParameters sustained = run_parameters_from_sentence(
      "sustained: back-to-back launches; batches of about 1 ms; L2 hot; 10 s to settle, then 3 windows of at least "
      "1 s each, bounded by steps of NVML's energy counter");
  EXPECT_EQ(sustained.regime, Regime::sustained);
  EXPECT_EQ(sustained.timing_mode, TimingMode::eager);
  EXPECT_FALSE(sustained.min_time_s);
  EXPECT_TRUE(run_parameters_from_sentence("").from_sentence.empty());
}

// A format 2 context: the repetition bounds, noise target and timing mode typed, the rest in the sentence.
TEST(RunParameters, AnOlderContextTakesWhatItsSentenceSays) {
  const std::map<std::string, std::string> v4 = {{"timing_mode", "graph"}, {"min_repetitions", "3"},
                                                 {"max_repetitions", "30"}, {"noise_target", "0.01"},
                                                 {"timing", kFormat2}};
  const RunParameters p = run_parameters_of(v4);
  EXPECT_EQ(p.min_time_s, 0.01);
  EXPECT_EQ(p.l2, L2Mode::hot);
  EXPECT_EQ(p.max_repetitions, 30);
  EXPECT_FALSE(p.regime);
  EXPECT_EQ(p.from_sentence, (std::set<std::string>{"l2", "min_time_s", "case_time_cap_s", "min_clock_fraction"}));
  EXPECT_EQ(p.source_of("min_time_s"), "the timing sentence");
  EXPECT_TRUE(p.disagreements.empty());

  const RunParameters f1 = run_parameters_of(std::map<std::string, std::string>{{"timing", kFormat1}});
  EXPECT_EQ(f1.l2, L2Mode::hot);
  EXPECT_FALSE(f1.min_time_s);
  EXPECT_TRUE(run_parameters_of(std::map<std::string, std::string>{}).from_sentence.empty());
}

// An edited key is reported, not replaced by the sentence's value; an edit the sentence contradicts is named.
TEST(RunParameters, AMalformedOrContradictedKeyIsReported) {
  nlohmann::json c = format3();
  c["min_time_s"] = "fast";
  c["regime"] = "warm";
  c["max_repetitions"] = 2.5;
  c["seed"] = "-1";
  RunParameters p = run_parameters_of(c);
  EXPECT_FALSE(p.min_time_s);
  EXPECT_FALSE(p.regime);
  EXPECT_FALSE(p.max_repetitions);
  EXPECT_FALSE(p.seed);
  ASSERT_EQ(p.malformed.size(), 4u);
  EXPECT_EQ(p.malformed[0], "regime: 'warm' is not burst or sustained");
  EXPECT_EQ(p.malformed[1], "min_time_s: 'fast' is not a number of at least 0");
  EXPECT_TRUE(p.from_sentence.empty());

  c = format3();
  c["min_time_s"] = 0.01;
  c["l2"] = "cold";
  p = run_parameters_of(c);
  EXPECT_EQ(p.min_time_s, 0.01);  // the typed key is the value; the disagreement is the checker's to report
  ASSERT_EQ(p.disagreements.size(), 2u);
  EXPECT_EQ(p.disagreements[0], "l2 is cold, the timing sentence says hot");
  EXPECT_EQ(p.disagreements[1], "min_time_s is 0.01, the timing sentence says 0.005");

  c = format3();
  c["seed"] = 18446744073709551615ull;  // a seed is any 64-bit value
  EXPECT_EQ(run_parameters_of(c).seed, 18446744073709551615ull);
}

}  // namespace
