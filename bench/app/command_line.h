#pragma once
// What opmark-bench reads from its own command line besides the --opmark_ flags: Google Benchmark's switches that
// change what opmark does, the line itself for the record, and the arguments handed on to Google Benchmark.
#include <string>
#include <vector>

namespace opmark::bench::app {

// Whether argv holds `flag` alone, `flag=true` or `flag=1`.
bool has_flag(int argc, char** argv, const char* flag);
// The last --benchmark_filter= among the arguments, else $BENCHMARK_FILTER as Google Benchmark reads it ("" when
// neither): which cases run (harness/case_filter.h). Throws where Google Benchmark would only print it and run nothing.
std::string benchmark_filter(int argc, char** argv);
// Whether the user named Google Benchmark's output file: then Google Benchmark writes it, and opmark writes no
// benchmark.json of its own.
bool user_benchmark_out(int argc, char** argv);
// The command line as one shell-quoted line (a submission names the exact command).
std::string command_text(int argc, char** argv);
// --opmark_help or --help: prints opmark's flags. Returns true where the run stops there; --help goes on to Google
// Benchmark, which prints its own flags and exits.
bool print_help(int argc, char** argv);

// The arguments for benchmark::Initialize: opmark's defaults first, the user's after them (so theirs win), and a
// filter that keeps every registered case last (opmark applied the user's filter when it registered the cases).
// `writes_files`: false drops --benchmark_out (ranks other than 0 write nothing). The strings live in the object.
class BenchmarkArgs {
 public:
  BenchmarkArgs(int argc, char** argv, bool writes_files);
  int& argc() { return argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<char*> pointers_;
  int argc_ = 0;
};

}  // namespace opmark::bench::app
