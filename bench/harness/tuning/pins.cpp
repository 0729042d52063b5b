#include "bench/harness/tuning/pins.h"

#include <sstream>

#include "core/error.h"
#include "core/file_access.h"

namespace opmark::bench {

std::map<std::string, std::string> parse_pins(const std::string& text, const std::string& source) {
  std::map<std::string, std::string> pins;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    const std::string where = source + ":" + std::to_string(number) + ": ";
    if (tab == std::string::npos || tab == 0 || tab + 1 == line.size() || line.find('\t', tab + 1) != std::string::npos)
      throw Error(where + "expected 'case name<TAB>candidate name', got '" + line + "'");
    const std::string name = line.substr(0, tab);
    if (!pins.emplace(name, line.substr(tab + 1)).second) throw Error(where + "case '" + name + "' is pinned twice");
  }
  return pins;
}

std::map<std::string, std::string> read_pins(const std::string& path) {
  try {
    return parse_pins(core::read_regular_file(path, "pin file"), path);
  } catch (const Error& e) {
    throw Error(std::string("--opmark_pin: ") + e.what());
  }
}

}  // namespace opmark::bench
