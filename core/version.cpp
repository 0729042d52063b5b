#include "core/version.h"

#include <CLI/Version.hpp>
#include <nlohmann/json.hpp>

#include "opmark/version.h"

#ifndef OPMARK_YAML_CPP_VERSION
#define OPMARK_YAML_CPP_VERSION "unknown"
#endif

namespace opmark::core {

std::string version_line(const std::string& program) {
  return program + " " + OPMARK_VERSION + " (git " + OPMARK_GIT_HASH + ")";
}

std::vector<std::pair<std::string, std::string>> host_library_versions() {
  return {{"nlohmann-json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
          {"yaml-cpp", OPMARK_YAML_CPP_VERSION},
          {"CLI11", CLI11_VERSION}};
}

}  // namespace opmark::core
