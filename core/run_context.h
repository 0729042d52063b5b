#pragma once
// The run's parameters as typed keys of the results log's context line: the key names, defined once, and one
// reader that every consumer (scores, compare, the checker) calls, so none of them reads the `timing` sentence.
// opmark-bench writes the keys (bench/main.cpp); contexts written before a key existed state it only in that
// sentence, and one legacy function (run_parameters_from_sentence) reads it from there.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run_modes.h"

namespace opmark::core {

// The context keys of the run's parameters (results format 3; format 2 wrote timing_mode, noise_target and the
// repetition bounds).
namespace run_key {
inline constexpr char regime[] = "regime";                          // burst | sustained
inline constexpr char l2[] = "l2";                                  // hot | cold
inline constexpr char timing_mode[] = "timing_mode";                // graph | eager
inline constexpr char min_time_s[] = "min_time_s";                  // GPU seconds per repetition
inline constexpr char min_repetitions[] = "min_repetitions";
inline constexpr char max_repetitions[] = "max_repetitions";
inline constexpr char noise_target[] = "noise_target";              // MAD over median that stops the repetitions
inline constexpr char case_time_cap_s[] = "case_time_cap_s";        // repetitions stop after this long regardless
inline constexpr char seed[] = "seed";                              // the inputs' random seed
inline constexpr char min_clock_fraction[] = "min_clock_fraction";  // a burst sample under it is taken again
inline constexpr char energy_window_s[] = "energy_window_s";
inline constexpr char power_margin[] = "power_margin";
inline constexpr char batch_s[] = "batch_s";                        // GPU seconds of launches per timed replay
inline constexpr char rest_s[] = "rest_s";                          // burst: idle before each case's repetitions
inline constexpr char sustained_heavy[] = "sustained_heavy";        // auto | off: heavy cases' sustained windows
inline constexpr char recheck[] = "recheck";                        // on | off: the end-of-run re-time
// The prose sentence, for people: only run_parameters_from_sentence reads it.
inline constexpr char timing[] = "timing";
}  // namespace run_key

// opmark-bench's timed replay: about a millisecond of launches (bench/harness/timing/timer.h says why), the length every
// rules version times with.
inline constexpr double kDefaultBatchSeconds = 1e-3;

struct RunParameters {
  std::optional<Regime> regime;
  std::optional<L2Mode> l2;
  std::optional<TimingMode> timing_mode;
  std::optional<double> min_time_s;
  std::optional<long long> min_repetitions, max_repetitions;
  std::optional<double> noise_target, case_time_cap_s;
  std::optional<std::uint64_t> seed;
  std::optional<double> min_clock_fraction, energy_window_s, power_margin;

  // The keys whose value came from the `timing` sentence (an older context without the typed key).
  std::set<std::string> from_sentence;
  // Typed keys whose value is no value of theirs ("min_time_s: 'fast' is not a number"): left unset, and not
  // taken from the sentence either, so an edited key is reported rather than papered over.
  std::vector<std::string> malformed;
  // Typed keys the sentence states otherwise ("min_time_s is 0.01, the timing sentence says 0.005"): the writer
  // prints both from one value, so a disagreement is an edit.
  std::vector<std::string> disagreements;

  // Where `key`'s value came from, for messages: "min_time_s" or "the timing sentence".
  std::string source_of(const std::string& key) const;
};

// The parameters a context states: each typed key, else what the `timing` sentence says. Context values as text
// (aggregate's ResultSet::context) or as the JSON the log holds.
RunParameters run_parameters_of(const std::map<std::string, std::string>& context);
RunParameters run_parameters_of(const nlohmann::json& context);

// The legacy reader: what a `timing` sentence of any opmark-bench version states (format 1: the L2 mode only;
// format 2: timing mode, L2, min time, repetition bounds, noise target, time cap, clock fraction; format 3: those,
// the regime and the energy window). Unstated parameters stay unset.
RunParameters run_parameters_from_sentence(const std::string& timing);

}  // namespace opmark::core
