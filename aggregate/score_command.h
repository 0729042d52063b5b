#pragma once
// opmark-aggregate scores (the default command) and spreadsheet: measured results + model operator tables -> model
// and area scores (OpBench), with coverage; DeepBench-style tables; SVG plots. The command line is cli.cpp's.
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "core/expr.h"

namespace opmark::aggregate {

struct ScoreOptions {
  std::vector<std::string> files;  // results.jsonl, benchmark.json or bundle folders
  std::string models = "all", precision = "fp16", format = "table", shapes;
  std::string inputs_text;               // --inputs=B=16
  std::string statistic_name = "median";  // --statistic
  bool allow_missing = false;
  bool detail = false;      // each system's own table and each model's breakdown by family (table form)
  std::string spreadsheet;  // folder for the DeepBench-style tables
  std::string plots;        // folder for the SVG plots
  // Set by validate from the texts above.
  core::Symbols inputs;
  Statistic statistic = Statistic::median;

  // Checks what the flags say together and reads inputs and statistic; throws opmark::Error naming the flag.
  void validate();
};

int run_scores(const ScoreOptions& options);
int run_spreadsheet(const ScoreOptions& options);

// A results file, or a bundle folder's run/results.jsonl(.gz); its reader's warnings (a torn last line) said on
// stderr.
ResultSet load_results_or_bundle(const std::string& path, Statistic statistic);

}  // namespace opmark::aggregate
