#include "core/run_modes.h"

namespace opmark::core {

const char* name_of(Regime r) { return r == Regime::burst ? "burst" : "sustained"; }

std::optional<Regime> parse_regime(const std::string& text) {
  if (text == "burst") return Regime::burst;
  if (text == "sustained") return Regime::sustained;
  return std::nullopt;
}

const char* name_of(L2Mode m) { return m == L2Mode::hot ? "hot" : "cold"; }

std::optional<L2Mode> parse_l2_mode(const std::string& text) {
  if (text == "hot") return L2Mode::hot;
  if (text == "cold") return L2Mode::cold;
  return std::nullopt;
}

const char* name_of(TimingMode m) { return m == TimingMode::graph ? "graph" : "eager"; }

std::optional<TimingMode> parse_timing_mode(const std::string& text) {
  if (text == "graph") return TimingMode::graph;
  if (text == "eager") return TimingMode::eager;
  return std::nullopt;
}

}  // namespace opmark::core
