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
  using Clock = std::chrono::steady_clock;
  // Times a scope and adds it to `phase`; with no PhaseTimes (a caller that keeps none), times nothing.
  class Scope {
   public:
    Scope(PhaseTimes& times, const char* phase) : Scope(&times, phase) {}
    Scope(PhaseTimes* times, const char* phase) : times_(times), phase_(phase), start_(Clock::now()) {}
    ~Scope() {
      if (times_) times_->add(phase_, std::chrono::duration<double>(Clock::now() - start_).count());
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    PhaseTimes* times_;
    const char* phase_;
    std::chrono::steady_clock::time_point start_;
  };

  void add(const std::string& phase, double seconds);
  // From here on, time counts toward `family` as well (its wall time, and each phase), and it has one more case.
  void begin_case(const std::string& family);
  // Ends the current family's wall time (at the end of the run, or before time that belongs to no family).
  void end_cases();
  // Per family, largest first: "conv: 554 cases, 0.77 s a case (energy windows 0.31, tuning 0.20, ...)"; phases
  // under 0.01 s a case are left out, and the smallest where the line would pass `width` characters.
  std::vector<std::string> family_lines(std::size_t width = 150) const;
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  // "energy windows 430 s (39%), tuning and verification 310 s (28%), ..." over `total_s`, largest first; phases
  // under 1% are left out.
  std::string summary(double total_s) const;
  // "opmark: 66 s, of which " and the summary, folded into lines of at most `width` characters.
  std::vector<std::string> summary_lines(double total_s, std::size_t width) const;

 private:
  struct Family {
    std::string name;
    int cases = 0;
    double wall_s = 0;
    std::vector<std::pair<std::string, double>> phases;
  };
  std::vector<std::pair<std::string, double>> phases_;  // in first-seen order
  std::vector<Family> families_;
  Family* current_ = nullptr;
  Clock::time_point current_since_{};
};

}  // namespace opmark::bench
