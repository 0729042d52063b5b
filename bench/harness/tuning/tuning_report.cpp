#include "bench/harness/tuning/tuning_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <vector>

namespace opmark::bench {
namespace {

constexpr std::size_t kMaxFailureChars = 160;

std::string micros(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds * 1e6);
  return text;
}

// A candidate's time at the last stage that timed it (infinity where none did).
double last_stage(const CandidateStages& s) {
  for (const double t : {s.confirm, s.rounds, s.probe, s.screen})
    if (std::isfinite(t)) return t;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

std::string tuning_table(const TuningResult& r, const std::function<std::string(int)>& name) {
  std::vector<int> order(r.stages.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return last_stage(r.stages[static_cast<std::size_t>(a)]) < last_stage(r.stages[static_cast<std::size_t>(b)]);
  });
  char line[96];
  std::snprintf(line, sizeof line, "  %10s %10s %10s %10s  candidate (us a launch)\n", "screen", "probe", "rounds",
                "confirm");
  std::string out = line;
  for (const int i : order) {
    const auto k = static_cast<std::size_t>(i);
    const CandidateStages& s = r.stages[k];
    std::snprintf(line, sizeof line, "  %10s %10s %10s %10s  ", micros(s.screen).c_str(), micros(s.probe).c_str(),
                  micros(s.rounds).c_str(), micros(s.confirm).c_str());
    out += line + name(i);
    if (i == r.best) out += "  [chosen]";
    if (i == r.default_index) out += "  [default]";
    if (i == r.reference_index) out += "  [PyTorch's call]";
    if (k < r.errors.size() && !r.errors[k].empty()) out += "  [failed: " + r.errors[k] + "]";
    out += "\n";
  }
  return out;
}

std::string failed_note(const TuningResult& r, const std::function<std::string(int)>& name) {
  int failed = 0, first = -1;
  for (std::size_t k = 0; k < r.errors.size(); ++k)
    if (!r.errors[k].empty()) {
      ++failed;
      if (first < 0) first = static_cast<int>(k);
    }
  if (failed == 0) return "";
  std::string why = r.errors[static_cast<std::size_t>(first)];
  if (why.size() > kMaxFailureChars) why = why.substr(0, kMaxFailureChars) + "...";  // a label, not a log
  return " | " + std::to_string(failed) + " of the candidates failed in tuning (first: " + name(first) + ": " + why +
         ")";
}

}  // namespace opmark::bench
