#pragma once
// Whole-file reads and writes for the aggregator's tests, which edit copies of bundles.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace opmark::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

}  // namespace opmark::test
