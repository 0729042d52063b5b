#include "bench/app/command_line.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "bench/harness/cases/case_filter.h"
#include "bench/harness/options.h"
#include "opmark/version.h"

namespace opmark::bench::app {

bool has_flag(int argc, char** argv, const char* flag) {
  const std::size_t n = std::strlen(flag);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || std::strcmp(argv[i] + n, "=true") == 0 ||
                                                std::strcmp(argv[i] + n, "=1") == 0))
      return true;
  return false;
}

std::string benchmark_filter(int argc, char** argv) {
  const char* env = std::getenv("BENCHMARK_FILTER");
  std::string filter = env ? env : "";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) filter = argv[i] + 19;
  check_benchmark_filter(filter);
  return filter;
}

bool print_help(int argc, char** argv) {
  std::cout << options_help();
  const bool google_help = has_flag(argc, argv, "--help") || has_flag(argc, argv, "-h");
  std::cout << (google_help ? "\nGoogle Benchmark's flags:\n"
                            : "\nGoogle Benchmark's own flags: opmark-bench --help\n");
  return !google_help;
}

bool user_benchmark_out(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_out=", 16) == 0) return true;
  return false;
}

std::string command_text(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string word = argv[i];
    const bool plain = !word.empty() && word.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == std::string::npos;
    if (!plain) {
      std::string q = "'";
      for (char ch : word) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      word = q + "'";
    }
    line += (i ? " " : "") + word;
  }
  return line;
}

BenchmarkArgs::BenchmarkArgs(int argc, char** argv, bool writes_files) {
  // Repetitions and time per repetition are the harness's own (it repeats until the noise is small): one iteration
  // of a case reports its median, and any time meets this minimum, so Google Benchmark asks no more. benchmark.json
  // is written by opmark's own reporter, not through --benchmark_out: Google Benchmark's file would follow a link and
  // never say that a write failed.
#if OPMARK_BENCHMARK_MIN_TIME_HAS_UNIT
  words_ = {argv[0], "--benchmark_min_time=1e-12s", "--benchmark_repetitions=1"};
#else
  words_ = {argv[0], "--benchmark_min_time=1e-12", "--benchmark_repetitions=1"};
#endif
  for (int i = 1; i < argc; ++i) {
    if (!writes_files && std::strncmp(argv[i], "--benchmark_out", 15) == 0) continue;
    if (std::strncmp(argv[i], "--benchmark_filter=", 19) == 0) continue;
    words_.push_back(argv[i]);
  }
  words_.push_back("--benchmark_filter=.");  // Google Benchmark's names end in "/manual_time"
  for (auto& w : words_) pointers_.push_back(w.data());
  argc_ = static_cast<int>(pointers_.size());
  pointers_.push_back(nullptr);
}

}  // namespace opmark::bench::app
