#pragma once
// The DeepBench-style tables as one .xlsx workbook: a worksheet per precision and family, in DeepBench's order
// (GEMM, convolution, recurrent, sparse, all-reduce, then ours), each named "<precision> <section>" after DeepBench's
// section name (core::family_info's title: "fp16 GEMM") and headed by it, as DeepBench's sections are; and a Specs
// worksheet from the run's context. Needs libxlsxwriter at build time (optional: the GPU image lacks it).
#include <string>
#include <vector>

#include "aggregate/spreadsheet.h"

namespace opmark::aggregate {

// Whether this build can write .xlsx.
bool xlsx_available();

// Writes the workbook to path. Numbers (SheetCell::number) are stored as numbers at full precision, shown in their
// column's format (Sheet::formats: times to the ns, TFLOPS to two decimals), so a spreadsheet can sort and chart
// them; text stays text (a version "13.0" is not the number 13). The header rows are frozen and filtered, the
// columns as wide as their content; times measured unstable are highlighted. Throws opmark::Error where the build
// has no libxlsxwriter, or the file cannot be written.
void write_xlsx(const std::vector<Sheet>& sheets, const std::string& path);

}  // namespace opmark::aggregate
