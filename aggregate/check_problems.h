#pragma once
// What the checker's parts share (check.cpp, check_files.cpp, check_run.cpp): the list of problems, grouped by
// class, and the few number helpers their messages use.
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "aggregate/bundle.h"
#include "aggregate/results.h"
#include "core/suite.h"

namespace opmark::aggregate::check_detail {

constexpr std::size_t kListedPerKind = 25;  // a wholly broken bundle should not print a thousand lines

class Problems {
 public:
  void add(const std::string& kind, std::string what, std::string fix) {
    if (++count_[kind] <= kListedPerKind) list_.push_back({std::move(what), std::move(fix), kind});
  }
  std::vector<Problem> done() {
    for (const auto& [kind, n] : count_)
      if (n > kListedPerKind)
        list_.push_back({std::to_string(n - kListedPerKind) + " more: " + kind, "as for the ones listed above", kind});
    return list_;
  }

 private:
  std::vector<Problem> list_;
  std::map<std::string, std::size_t> count_;
};

// A context value as a number; 0 where it is missing or no finite number.
inline double context_number(const std::map<std::string, std::string>& context, const std::string& key) {
  const auto it = context.find(key);
  if (it == context.end()) return 0;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  return end != it->second.c_str() && std::isfinite(v) ? v : 0;
}

inline std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

inline std::string us(double t) { return number(t) + " us"; }

inline bool close_to(double value, double expected, double tolerance) {
  if (expected == 0) return std::abs(value) <= 1e-12;
  return std::abs(value / expected - 1) <= tolerance;
}

inline const char* kKeepLog = "keep the run's own results log, unedited (opmark-bench writes it; nothing else should)";

// The checks of check_files.cpp: every file of the bundle known; benchmark.json's context, medians and counters
// those of results.jsonl; bench.log's closing count the summary's.
void check_known_files(const std::string& dir, Problems& p);
void check_benchmark_json(const std::string& dir, const ResultSet& results, Problems& p);
void check_bench_log(const std::string& dir, const ResultSet& results, Problems& p);

// The checks of check_run.cpp: a whole run (summary last and true, every re-time line), timestamps in order and in
// the run's window (system.yaml's run.started and run.wall_s where given: "" and 0 where not), verification text
// within tolerance, repetitions that agree with their recorded noise, physically possible clocks, power and energy.
void check_whole_run(const ResultSet& results, Problems& p);
// Seconds since 1970 of "YYYY-MM-DDTHH:MM:SSZ" (the writer's form; a fraction of a second is allowed), or -1.
double epoch_of(const std::string& text);
void check_timestamps(const ResultSet& results, const std::string& system_started, double system_wall_s, Problems& p);
void check_verification(const ResultSet& results, Problems& p);
void check_noise_agreement(const ResultSet& results, double max_noise, Problems& p);
void check_physics(const ResultSet& results, Problems& p);
// The context's power limit within its GPU model's largest, and peaks that say they are opmark's datasheet equal to
// it (core/datasheet.h).
void check_datasheet(const ResultSet& results, Problems& p);

// The check of check_parameters.cpp: the run's parameters (core/run_context.h), typed or from an older run's timing
// sentence, against the rules' timing, regime, L2 mode, min time, repetitions and noise target; a typed key that
// reads as no value, or that its sentence contradicts, is an edited context.
void check_run_parameters(const ResultSet& results, const core::Suite& rules, Problems& p);

// "all N elements within tolerance T (max scaled error E, rel norm error R)" read; false where the text is not
// that form or a number in it is not one.
struct Verification {
  double elements = 0, tolerance = 0, max_scaled_error = 0, rel_norm_error = 0;
};
bool parse_verification(const std::string& text, Verification* out);

}  // namespace opmark::aggregate::check_detail
