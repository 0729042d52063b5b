#pragma once
// Where the shape tables are when no flag names them, so that a build run in place and an installed copy
// (cmake --install) both find theirs. In order:
//   1. the environment variable OPMARK_SHAPES (a shapes folder), where set and not empty;
//   2. <the executable's folder>/../share/opmark/shapes: the installed layout (the executable's own path from
//      /proc/self/exe, links resolved);
//   3. the shapes/ of the source tree the build was made in (compiled in; a build tree run in place);
//   4. ./shapes.
// A flag (opmark-bench --opmark_shapes, opmark-aggregate --shapes) goes before all of these.
#include <string>

namespace opmark::core {

enum class ShapesOrigin { kEnvironment, kInstalled, kSourceTree, kWorkingFolder };

struct ShapesDir {
  std::string path;
  ShapesOrigin origin = ShapesOrigin::kWorkingFolder;
};

// The path of the running executable (Linux: /proc/self/exe), or "" where it cannot be read.
std::string executable_path();

// The installed shapes folder beside the running executable (<exe dir>/../share/opmark/shapes, as the install
// rules lay it out), or "" where there is none.
std::string installed_shapes_dir();

// The default shapes folder and where it came from (the order above).
ShapesDir default_shapes_dir();

// Where a folder of `origin` came from, in words: "from OPMARK_SHAPES", "installed beside the executable", ...
std::string describe(ShapesOrigin origin);

}  // namespace opmark::core
