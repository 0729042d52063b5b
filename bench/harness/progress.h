#pragma once
// Progress of a long run on the console: "case i of N, elapsed, estimated time left", one line per finished case,
// on stderr so the benchmark table on stdout stays clean.
#include <chrono>
#include <cstdio>
#include <set>
#include <string>

namespace opmark::bench {

// "[12/480] 1m05s elapsed, about 42m10s left" (the estimate: the mean time per finished case so far).
std::string progress_line(std::size_t done, std::size_t total, double elapsed_s);

class Progress {
 public:
  explicit Progress(std::size_t total, std::FILE* out = stderr) : total_(total), out_(out) {}
  // Called for every reported run; a case counts once, when its first run is reported (all its repetitions
  // have run by then).
  void reported(const std::string& case_name);

 private:
  std::size_t total_;
  std::FILE* out_;
  std::set<std::string> seen_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace opmark::bench
