#pragma once
// Progress of a long run on the console: "case i of N, elapsed, estimated time left", on stderr. Each case has its
// own line on stdout (case_line.h), so progress prints at most every few seconds, and at the last case.
#include <chrono>
#include <cstdio>
#include <set>
#include <string>

namespace opmark::bench {

// "[12/480] 1m05s elapsed, about 42m10s left" (the estimate: the mean time per finished case so far).
std::string progress_line(std::size_t done, std::size_t total, double elapsed_s);

class Progress {
 public:
  explicit Progress(std::size_t total, std::FILE* out = stderr, double every_s = 10)
      : total_(total), out_(out), every_s_(every_s) {}
  // Called for every reported run; a case counts once, when its first run is reported (all its repetitions
  // have run by then).
  void reported(const std::string& case_name);

 private:
  std::size_t total_;
  std::FILE* out_;
  double every_s_;
  std::set<std::string> seen_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double printed_at_s_ = 0;
};

}  // namespace opmark::bench
