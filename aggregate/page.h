#pragma once
#include "aggregate/command_line.h"

namespace opmark::aggregate {

// opmark-aggregate page RESULTS_DIR: the static results page over every bundle under RESULTS_DIR, from the flags
// the command line parsed (command_line.cpp documents them). Returns the process exit status; throws Error.
int run_page(PageFlags flags);

}  // namespace opmark::aggregate
