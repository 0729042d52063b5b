#pragma once
// DeepBench-style result tables: per precision, one table per family laid out as DeepBench published its results
// (convolution: the three directions of a shape in one row; RNN: forward and backward in one row; sparse: with the
// dense time and speedup), plus a Specs table from the run's context. Written as CSV files, and as one .xlsx
// workbook (aggregate/xlsx.h) where the build found libxlsxwriter.
#include <string>
#include <vector>

#include "aggregate/results.h"

namespace opmark::aggregate {

struct Sheet {
  std::string name;                              // "fp16_conv", "specs"
  std::string precision, family;                 // "fp16", "conv"; empty for specs
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// The tables for every (precision, family) the results hold, and the specs.
std::vector<Sheet> deepbench_sheets(const ResultSet& results);

// One sheet as CSV text (header line, then the rows).
std::string csv_text(const Sheet& sheet);

// DIR/<sheet>.csv for each sheet; returns the files written.
std::vector<std::string> write_csv_sheets(const std::vector<Sheet>& sheets, const std::string& dir);

}  // namespace opmark::aggregate
