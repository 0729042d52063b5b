#include "core/shapes_dir.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

// Both set by core/CMakeLists.txt on this file alone.
#ifndef OPMARK_SOURCE_SHAPES_DIR
#define OPMARK_SOURCE_SHAPES_DIR ""
#endif
#ifndef OPMARK_INSTALLED_SHAPES_REL
#define OPMARK_INSTALLED_SHAPES_REL "../share/opmark/shapes"
#endif

namespace opmark::core {

std::string executable_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string installed_shapes_dir() {
  const std::string exe = executable_path();
  if (exe.empty()) return "";
  const fs::path dir = (fs::path(exe).parent_path() / OPMARK_INSTALLED_SHAPES_REL).lexically_normal();
  std::error_code ec;
  return fs::is_directory(dir, ec) ? dir.string() : std::string();
}

ShapesDir default_shapes_dir() {
  if (const char* env = std::getenv("OPMARK_SHAPES"); env != nullptr && *env != '\0')
    return {env, ShapesOrigin::kEnvironment};
  if (std::string installed = installed_shapes_dir(); !installed.empty())
    return {installed, ShapesOrigin::kInstalled};
  std::error_code ec;
  if (*OPMARK_SOURCE_SHAPES_DIR != '\0' && fs::is_directory(OPMARK_SOURCE_SHAPES_DIR, ec))
    return {OPMARK_SOURCE_SHAPES_DIR, ShapesOrigin::kSourceTree};
  return {"shapes", ShapesOrigin::kWorkingFolder};
}

std::string describe(ShapesOrigin origin) {
  switch (origin) {
    case ShapesOrigin::kEnvironment: return "from the environment variable OPMARK_SHAPES";
    case ShapesOrigin::kInstalled: return "installed beside the executable";
    case ShapesOrigin::kSourceTree: return "from the source tree this build was made in";
    case ShapesOrigin::kWorkingFolder: break;
  }
  return "from ./shapes";
}

}  // namespace opmark::core
