#pragma once
// Pinned candidates: which candidate each case runs, taken from an earlier run instead of tuned again. A profiler
// run (ncu) must time the kernels the measured run chose, and tuning under a profiler, which intercepts every
// launch, can choose others.
#include <map>
#include <string>

namespace opmark::bench {

// Reads a pin file: one `case name<TAB>candidate name` per line; empty lines and lines starting with '#' are
// skipped. Throws opmark::Error naming the file and line for anything else, or a case pinned twice.
std::map<std::string, std::string> read_pins(const std::string& path);
std::map<std::string, std::string> parse_pins(const std::string& text, const std::string& source);

}  // namespace opmark::bench
