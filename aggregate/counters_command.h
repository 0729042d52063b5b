#pragma once
// opmark-aggregate counters: the counter schema (core/counters.h) as a table for people, or as JSON for scripts
// (bench/compare/counters.json is this output, held to it by a CPU test).
#include <ostream>

namespace opmark::aggregate {

void print_counters(std::ostream& out, bool json);

}  // namespace opmark::aggregate
