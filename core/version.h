#pragma once
// What --version prints that every opmark binary shares: the opmark version and commit, and the host libraries
// (nlohmann-json, yaml-cpp, CLI11). Host only: no CUDA, so the aggregator uses it too.
#include <string>
#include <utility>
#include <vector>

namespace opmark::core {

// "<program> <opmark version> (git <commit>)".
std::string version_line(const std::string& program);

// {"nlohmann-json", "3.11.3"}, {"yaml-cpp", "0.7.0"}, {"CLI11", "2.1.2"}: the versions built against (yaml-cpp's
// from its CMake package: its headers carry none; the other two are header-only).
std::vector<std::pair<std::string, std::string>> host_library_versions();

}  // namespace opmark::core
