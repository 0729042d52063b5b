#include "core/run_context.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <regex>
#include <type_traits>

#include "core/result_record.h"

namespace opmark::core {

namespace {

using Lookup = std::function<std::optional<std::string>(const char*)>;

// The sentence prints numbers with %g (six significant digits): a typed value agrees with it to that precision.
constexpr double kSentencePrecision = 1e-5;

std::optional<double> number_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

// What every typed key reads through: its value, or a line in `malformed` and nothing.
struct TypedReader {
  const Lookup& get;
  RunParameters& out;

  // A mode's word (burst, hot, graph, ...): `parse` reads it, `expected` says what it may be.
  template <typename Mode>
  void mode(const char* key, std::optional<Mode>& field, std::optional<Mode> (*parse)(const std::string&),
            const char* expected) {
    const auto text = get(key);
    if (!text) return;
    if (const auto m = parse(*text)) field = *m;
    else out.malformed.push_back(std::string(key) + ": '" + *text + "' is not " + expected);
  }
  void real(const char* key, std::optional<double>& field) {
    const auto text = get(key);
    if (!text) return;
    const auto v = number_of(*text);
    if (v && *v >= 0) field = *v;
    else out.malformed.push_back(std::string(key) + ": '" + *text + "' is not a number of at least 0");
  }
  void whole(const char* key, std::optional<long long>& field) {
    const auto text = get(key);
    if (!text) return;
    const auto v = number_of(*text);
    // 2^53: past it a double holds no exact whole number; no repetition count comes near.
    if (v && *v >= 0 && *v == std::floor(*v) && *v <= 9007199254740992.0) field = static_cast<long long>(*v);
    else out.malformed.push_back(std::string(key) + ": '" + *text + "' is not a whole number of at least 0");
  }
  void seed(const char* key, std::optional<std::uint64_t>& field) {
    const auto text = get(key);
    if (!text) return;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
    if (!text->empty() && (*text)[0] != '-' && *end == '\0' && errno != ERANGE) field = v;
    else out.malformed.push_back(std::string(key) + ": '" + *text + "' is not a whole number from 0 to 2^64-1");
  }
};

// A field the typed keys leave unset (and not malformed) takes the sentence's value; one both state is compared.
template <typename T>
void merge(const char* key, std::optional<T>& typed, const std::optional<T>& said, RunParameters& out,
           const std::set<std::string>& malformed_keys) {
  if (!said || malformed_keys.count(key)) return;
  if (!typed) {
    typed = said;
    out.from_sentence.insert(key);
    return;
  }
  bool same;
  if constexpr (std::is_floating_point_v<T>)
    same = *said == 0 ? *typed == 0 : std::abs(*typed / *said - 1) <= kSentencePrecision;
  else
    same = *typed == *said;
  if (same) return;
  std::string typed_text, said_text;
  if constexpr (std::is_enum_v<T>) {
    typed_text = name_of(*typed);
    said_text = name_of(*said);
  } else {
    typed_text = context_text(nlohmann::json(*typed));
    said_text = context_text(nlohmann::json(*said));
  }
  out.disagreements.push_back(std::string(key) + " is " + typed_text + ", the timing sentence says " + said_text);
}

RunParameters read(const Lookup& get) {
  RunParameters p;
  TypedReader r{get, p};
  r.mode(run_key::regime, p.regime, &parse_regime, "burst or sustained");
  r.mode(run_key::l2, p.l2, &parse_l2_mode, "hot or cold");
  r.mode(run_key::timing_mode, p.timing_mode, &parse_timing_mode, "graph or eager");
  r.real(run_key::min_time_s, p.min_time_s);
  r.whole(run_key::min_repetitions, p.min_repetitions);
  r.whole(run_key::max_repetitions, p.max_repetitions);
  r.real(run_key::noise_target, p.noise_target);
  r.real(run_key::case_time_cap_s, p.case_time_cap_s);
  r.seed(run_key::seed, p.seed);
  r.real(run_key::min_clock_fraction, p.min_clock_fraction);
  r.real(run_key::energy_window_s, p.energy_window_s);
  r.real(run_key::power_margin, p.power_margin);
  const auto sentence = get(run_key::timing);
  if (!sentence) return p;
  const RunParameters s = run_parameters_from_sentence(*sentence);
  std::set<std::string> bad;
  for (const auto& m : p.malformed) bad.insert(m.substr(0, m.find(':')));
  merge(run_key::regime, p.regime, s.regime, p, bad);
  merge(run_key::l2, p.l2, s.l2, p, bad);
  merge(run_key::timing_mode, p.timing_mode, s.timing_mode, p, bad);
  merge(run_key::min_time_s, p.min_time_s, s.min_time_s, p, bad);
  merge(run_key::min_repetitions, p.min_repetitions, s.min_repetitions, p, bad);
  merge(run_key::max_repetitions, p.max_repetitions, s.max_repetitions, p, bad);
  merge(run_key::noise_target, p.noise_target, s.noise_target, p, bad);
  merge(run_key::case_time_cap_s, p.case_time_cap_s, s.case_time_cap_s, p, bad);
  merge(run_key::min_clock_fraction, p.min_clock_fraction, s.min_clock_fraction, p, bad);
  merge(run_key::energy_window_s, p.energy_window_s, s.energy_window_s, p, bad);
  return p;
}

}  // namespace

std::string RunParameters::source_of(const std::string& key) const {
  return from_sentence.count(key) ? "the timing sentence" : key;
}

RunParameters run_parameters_of(const std::map<std::string, std::string>& context) {
  return read([&](const char* key) -> std::optional<std::string> {
    const auto it = context.find(key);
    if (it == context.end()) return std::nullopt;
    return it->second;
  });
}

RunParameters run_parameters_of(const nlohmann::json& context) {
  return read([&](const char* key) -> std::optional<std::string> {
    if (!context.is_object()) return std::nullopt;
    const auto it = context.find(key);
    if (it == context.end()) return std::nullopt;
    return context_text(*it);
  });
}

RunParameters run_parameters_from_sentence(const std::string& timing) {
  // The sentences opmark-bench has written (bench/main.cpp; git log -S for the older ones):
  //   format 1: "cuda events, median over repetitions; L2 hot[; launches under 1 ms timed in batches ...]"
  //   format 2: "cuda graph replays timed with events; batches of launches lasting about 1 ms (at most 1000
  //     launches); L2 hot; median over repetitions of at least 0.01 s of GPU time each, at least 3 and at most 30,
  //     stopping once the median absolute deviation over the median is at most 0.01 or after 2 s; a sample taken
  //     while the GPU throttled (... the SM clock under 90% of the fastest seen) is taken again"
  //   format 3: "burst: " or "sustained: " before a format 2 sentence's kind, and "energy over at least 0.15 s"
  static const std::string num = "([0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?)";
  static const std::regex regime("^(burst|sustained): ");
  static const std::regex mode("^(?:(?:burst|sustained): )?(cuda graph replays|back-to-back launches)");
  static const std::regex l2("\\bL2 (hot|cold)\\b");
  static const std::regex min_time("of at least " + num + " s of GPU time each");
  static const std::regex reps("at least ([0-9]+) and at most ([0-9]+)");
  static const std::regex noise("over the median is at most " + num);
  static const std::regex cap("or after " + num + " s\\b");
  static const std::regex clock("under " + num + "% of the");
  static const std::regex energy("energy over at least " + num + " s");
  RunParameters p;
  std::smatch m;
  const auto real = [&](const std::regex& re, std::optional<double>& field, double divisor = 1) {
    if (std::regex_search(timing, m, re)) field = std::strtod(m[1].str().c_str(), nullptr) / divisor;
  };
  if (std::regex_search(timing, m, regime)) p.regime = parse_regime(m[1].str());
  if (std::regex_search(timing, m, mode))
    p.timing_mode = m[1].str() == "cuda graph replays" ? TimingMode::graph : TimingMode::eager;
  if (std::regex_search(timing, m, l2)) p.l2 = parse_l2_mode(m[1].str());
  real(min_time, p.min_time_s);
  if (std::regex_search(timing, m, reps)) {
    p.min_repetitions = std::strtoll(m[1].str().c_str(), nullptr, 10);
    p.max_repetitions = std::strtoll(m[2].str().c_str(), nullptr, 10);
  }
  real(noise, p.noise_target);
  real(cap, p.case_time_cap_s);
  real(clock, p.min_clock_fraction, 100);  // a percentage
  real(energy, p.energy_window_s);
  return p;
}

}  // namespace opmark::core
