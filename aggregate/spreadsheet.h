#pragma once
// DeepBench-style result tables: per precision, one table per family laid out as DeepBench published its results
// (convolution: the three directions of a shape in one row; RNN: forward and backward in one row; sparse: with the
// dense time and speedup), plus a Specs table from the run's context. Written as CSV files, and as one .xlsx
// workbook (aggregate/xlsx.h) where the build found libxlsxwriter.
//
// A table's columns: "application" (DeepBench's column: the shape table rows' `application:`, else their `model:`,
// as the run recorded them; empty where unknown), the family's fields, then per direction "<dir> time (us)" and
// DeepBench's "<dir> time (ms)", and the throughput: "<dir> TFLOPS" for a family with FLOPs, "<dir> GB/s" and
// "<dir> % of copy" (of the device-to-device copy the run measured) for a memory-bound one; an all-reduce has
// nccl-tests' algbw and busbw instead. Rows are sorted by their fields in natural order (m = 1, 2, 10, 1000).
//
// Where the run measured energy (results format 2 with NVML: a case's `joules_per_op`), every direction adds
// "<dir> energy (mJ/op)" and its efficiency, "<dir> TFLOPS/W" for a family with FLOPs or "<dir> GB/s/W" for a
// memory-bound one. A sheet with an unstable case (a time in doubt) adds a last column "notes" naming it and why.
//
// Numbers are kept whole: the workbook stores each at full precision (with a display format per column); CSV
// writes six significant digits (integers whole, no exponent).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "aggregate/results.h"

namespace opmark::aggregate {

// One cell: a number (stored as one in the workbook) or text (a status such as "not run", a choice, a version).
struct SheetCell {
  std::string text;     // what CSV writes: a number's six significant digits, or the text
  double value = 0;     // a number's full value
  bool number = false;

  SheetCell() = default;
  SheetCell(std::string t) : text(std::move(t)) {}  // a text cell (implicit: rows of text read as before)
  SheetCell(const char* t) : text(t) {}
  static SheetCell of_text(std::string text);
  static SheetCell of_number(double value);
  static SheetCell of_integer(long long value);  // written whole ("16777217")
  bool operator==(const std::string& t) const { return text == t; }
};

struct Sheet {
  std::string name;                              // "fp16_conv", "specs"
  std::string precision, family;                 // "fp16", "conv"; empty for specs
  std::string title;                             // the section's name, DeepBench's ("Dense Matrix Multiplication")
  std::vector<std::string> header;
  std::vector<std::string> formats;              // per column: the workbook's number format ("0.000"), "" General
  std::vector<std::vector<SheetCell>> rows;
  std::vector<std::pair<std::size_t, std::size_t>> unstable_cells;  // (row, column) of times measured unstable
};

// The tables for every (precision, family) the results hold, and the specs.
std::vector<Sheet> deepbench_sheets(const ResultSet& results);

// A row's texts (as CSV writes them), for tests and messages.
std::vector<std::string> row_texts(const std::vector<SheetCell>& row);

// A number as CSV writes it: six significant digits in plain notation, trailing zeros dropped ("2", "0.294912",
// "11722.6", "16777217" for an integer).
std::string number_text(double value);

// One CSV field: quoted where it holds a comma, quote or line break; text that begins with =, +, -, @, a tab or a
// carriage return (and is no plain number) is quoted with a leading single quote, so a spreadsheet shows it as text
// instead of running it as a formula.
std::string csv_field(const std::string& text);

// One sheet as CSV text (header line, then the rows).
std::string csv_text(const Sheet& sheet);

// DIR/<sheet>.csv for each sheet; returns the files written.
std::vector<std::string> write_csv_sheets(const std::vector<Sheet>& sheets, const std::string& dir);

}  // namespace opmark::aggregate
