#pragma once
// Text helpers shared by the tables, the flags and the aggregator.
#include <string>
#include <vector>

namespace opmark::core {

// The parts of `s` between `sep` characters, in order. With keep_empty, "a,,b" gives three parts and "" one
// (case names: every field is there); without, empty parts are dropped (comma lists in flags: "a,,b," is a, b).
inline std::vector<std::string> split(const std::string& s, char sep, bool keep_empty = true) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (keep_empty || !part.empty()) parts.push_back(std::move(part));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace opmark::core
