#pragma once
// The DeepBench-style tables as one .xlsx workbook, laid out as DeepBench published its results: a worksheet per
// precision holding a titled section per family (GEMM, convolution, RNN, sparse, all-reduce, then ours), and a Specs
// worksheet from the run's context. Needs libxlsxwriter at build time (optional: the GPU image lacks it).
#include <string>
#include <vector>

#include "aggregate/spreadsheet.h"

namespace opmark::aggregate {

// Whether this build can write .xlsx.
bool xlsx_available();

// Writes the workbook to path. Cells that read whole as numbers are stored as numbers, so a spreadsheet can sort
// and chart them; times measured unstable are highlighted. Throws opmark::Error where the build has no
// libxlsxwriter, or the file cannot be written.
void write_xlsx(const std::vector<Sheet>& sheets, const std::string& path);

}  // namespace opmark::aggregate
