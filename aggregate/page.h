#pragma once

namespace opmark::aggregate {

// opmark-aggregate page RESULTS_DIR [--out=FILE]: the static results page over every bundle under RESULTS_DIR.
// argv[0] is "page". Returns the process exit status.
int page_main(int argc, char** argv);

}  // namespace opmark::aggregate
