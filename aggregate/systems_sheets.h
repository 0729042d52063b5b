#pragma once
// Several systems' results side by side, as DeepBench's sheets put vendors beside each other: per precision and
// family one table, laid out as a system's own (spreadsheet.h: the application and the shape's fields, conv's
// directions in one row, rows in natural order), then per system each direction's time (us) and throughput (TFLOPS,
// GB/s, or an all-reduce's algbw and busbw) and the shape's status on it (ok, unstable, failed, skipped, not run),
// then per direction each later system's time over the first's (below 1: faster than the first). A "systems" table names each system's GPU and file.
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
