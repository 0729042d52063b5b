#pragma once
// Where a run's time goes, phase by phase (building inputs, tuning, timing, energy windows, ...), summed over its
// cases and printed at the end, so a suite that runs long says why.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace opmark::bench {

class PhaseTimes {
 public:
  // Times a scope and adds it to `phase`.
  class Scope {
   public:
    Scope(PhaseTimes& times, const char* phase) : times_(times), phase_(phase), start_(Clock::now()) {}
    ~Scope() { times_.add(phase_, std::chrono::duration<double>(Clock::now() - start_).count()); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimes& times_;
    const char* phase_;
    std::chrono::steady_clock::time_point start_;
  };
  using Clock = std::chrono::steady_clock;

  void add(const std::string& phase, double seconds);
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  // "energy windows 430 s (39%), tuning and verification 310 s (28%), ..." over `total_s`, largest first; phases
  // under 1% are left out.
  std::string summary(double total_s) const;

 private:
  std::vector<std::pair<std::string, double>> phases_;  // in first-seen order
};

}  // namespace opmark::bench
