#pragma once
// opmark-aggregate compare BEFORE AFTER: loads the two runs, compares them (compare.h), prints the report
// (compare_report.h). The command line is cli.cpp's.
#include <string>

#include "aggregate/verdict.h"

namespace opmark::aggregate {

struct CompareOptions {
  std::string before, after;  // results.jsonl, benchmark.json or bundle folders
  double threshold = kChangeFloor;  // the least change called
  std::string format = "md";  // md, csv or json ("table", the format's old name, is md)
  std::string statistic_name = "median";
  std::string shapes;         // for the areas (the model tables); default: default_shapes_dir()
  bool all = false;
};

// Exit status 3 when a case is slower (beyond the threshold and the noise), else 0; throws opmark::Error when a
// file does not read.
int run_compare(const CompareOptions& options);

}  // namespace opmark::aggregate
