#pragma once
// What the tuner saw, for a reader: a table of every candidate's stages (--opmark_tuning_log), and a label note
// naming the candidates that failed. Host-only, tested on the CPU.
#include <functional>
#include <string>

#include "bench/harness/tuning/autotune.h"

namespace opmark::bench {

// One line per candidate, the fastest (by its last stage) first: its screen, probe, rounds and confirmation times in
// microseconds ("-" where that stage did not time it), then "chosen", "default" or why it failed. `name` gives a
// candidate's name by its index.
std::string tuning_table(const TuningResult& r, const std::function<std::string(int)>& name);

// " | N of the candidates failed in tuning (first: NAME: WHY)" for a case's label, or nothing when none failed.
// Why: a candidate that fails in one run and not in another changes the choice, and the label is what two runs'
// readers compare.
std::string failed_note(const TuningResult& r, const std::function<std::string(int)>& name);

}  // namespace opmark::bench
