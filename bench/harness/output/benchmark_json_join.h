#pragma once
// A resumed run's benchmark.json: the part the killed run wrote and the part the resumed run writes, joined into one
// file, as an unbroken run writes it. The parts are Google Benchmark's JSON as text, kept as text (it writes NaN and
// infinities bare, which no JSON reader takes); a part cut off by the kill gives the entries it holds whole.
#include <set>
#include <string>
#include <vector>

namespace opmark::bench {

struct BenchmarkJsonText {
  std::string context;                // the "context" object's text, or "" where the file was cut before its end
  std::vector<std::string> entries;   // each whole entry of "benchmarks", as written
};

// The context and whole entries of a Google Benchmark JSON text, complete or cut off anywhere.
BenchmarkJsonText split_benchmark_json(const std::string& text);
// An entry's case: its "name" less the "/manual_time" Google Benchmark appends to cases that time themselves.
std::string benchmark_entry_case(const std::string& entry);
// One document: `context`, then the entries in order, a case's later entry replacing its earlier one.
std::string join_benchmark_json(const std::string& context, const std::vector<std::string>& entries);

// In `dir`: benchmark.json (the run's first part) and benchmark.resumed.json (a resumed part), either cut off or
// missing, joined into benchmark.json (the first part's context where it has one), each written whole before the
// resumed part is removed. `keep` (not null): only the entries of these cases are kept (a resumed run's start: the
// cases it measures again lose their old entries).
void join_resumed_benchmark_json(const std::string& dir, const std::set<std::string>* keep);

}  // namespace opmark::bench
