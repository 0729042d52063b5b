#include "bench/harness/gpu_state/host_info.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace opmark::bench {

namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string parse_cpu_model(const std::string& cpuinfo) {
  std::istringstream lines(cpuinfo);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(':');
    if (colon != std::string::npos && trim(line.substr(0, colon)) == "model name") return trim(line.substr(colon + 1));
  }
  return "";
}

std::string parse_driver_version(const std::string& proc_version) {
  // The version is the first dotted number after "Kernel Module" ("... Kernel Module  535.104.05 ...", "... Open
  // Kernel Module for x86_64  580.159.04 ...").
  const std::string marker = "Kernel Module";
  auto at = proc_version.find(marker);
  if (at == std::string::npos) return "";
  std::istringstream rest(proc_version.substr(at + marker.size(), proc_version.find('\n', at) - at));
  for (std::string word; rest >> word;)
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) return word;
  return "";
}

std::string host_cpu_model() { return parse_cpu_model(read_file("/proc/cpuinfo")); }
std::string nvidia_driver_version() { return parse_driver_version(read_file("/proc/driver/nvidia/version")); }

}  // namespace opmark::bench
