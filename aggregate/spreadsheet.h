#pragma once
// DeepBench-style result tables: per precision, one table per family laid out as DeepBench published its results
// (convolution: the three directions of a shape in one row; RNN: forward and backward in one row; sparse: with the
// dense time and speedup), plus a Specs table from the run's context. Written as CSV files, and as one .xlsx
// workbook (aggregate/xlsx.h) where the build found libxlsxwriter.
//
// Where the run measured energy (results format 2 with NVML: a case's `joules_per_op`), every direction adds
// "<dir> energy (mJ/op)" and its efficiency, "<dir> TFLOPS/W" for a family with FLOPs or "<dir> GB/s/W" for a
// memory-bound one. A sheet with an unstable case (a time in doubt) adds a last column "notes" naming it and why.
// A run with neither has exactly the columns it always had (committed bundles' CSV files are checked byte for byte).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "aggregate/results.h"

namespace opmark::aggregate {

struct Sheet {
  std::string name;                              // "fp16_conv", "specs"
  std::string precision, family;                 // "fp16", "conv"; empty for specs
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::pair<std::size_t, std::size_t>> unstable_cells;  // (row, column) of times measured unstable
};

// The tables for every (precision, family) the results hold, and the specs.
std::vector<Sheet> deepbench_sheets(const ResultSet& results);

// One sheet as CSV text (header line, then the rows).
std::string csv_text(const Sheet& sheet);

// DIR/<sheet>.csv for each sheet; returns the files written.
std::vector<std::string> write_csv_sheets(const std::vector<Sheet>& sheets, const std::string& dir);

}  // namespace opmark::aggregate
