#pragma once
// Several systems' results side by side, as DeepBench's sheets put vendors beside each other: per precision and
// family one table, a row per case any system measured, and per system its time (us) and, after the first, its
// time over the first's (below 1: faster than the first). A "systems" table names each system's GPU and file.
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/spreadsheet.h"

namespace opmark::aggregate {

struct NamedSystem {
  std::string label;  // the system's column title: its GPU, else its file
  const ResultSet* results = nullptr;
};

std::vector<Sheet> systems_sheets(const std::vector<NamedSystem>& systems);

}  // namespace opmark::aggregate
