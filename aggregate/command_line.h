#pragma once
// opmark-aggregate's flags (CLI11), read into one CommandLine without running anything: run_cli (cli.cpp) runs the
// command it names, and the flags' fuzz harness (test/fuzz/fuzz_aggregate_cli.cpp) reads any words through it.
#include <ostream>
#include <string>
#include <vector>

#include "aggregate/bundle.h"
#include "aggregate/compare_command.h"
#include "aggregate/db_command.h"
#include "aggregate/score_command.h"

namespace opmark::aggregate {

// `page RESULTS_DIR [--out=PAGE] [--rules=PATH] [--shapes=DIR] [--rules-version=N] [--unchecked] [--runs]`.
struct PageFlags {
  std::string dir, out;
  CheckOptions check;  // the page checks every bundle as check does
  bool unchecked = false;
  bool runs = false;
  std::string db;  // a results database (SQLite file or PostgreSQL URL): the History section
};

struct CommandLine {
  // "scores", "spreadsheet", "compare", "pack", "check", "page", "counters" or "db"; "" where nothing is to run (help,
  // --version or a flag in error: exit_status says which, the text is written).
  std::string command;
  int exit_status = 0;
  ScoreOptions scores, spreadsheet;
  CompareOptions compare;
  PackOptions pack;
  CheckOptions check;
  PageFlags page;
  bool counters_json = false;  // counters --json
  DbOptions db;
};

// The words after the program's name, as opmark-aggregate reads them (the deprecated `--compare`, a results file
// with no command meaning scores, `--name=` an empty value). Help and version go to `out`, errors to `err`.
CommandLine parse_command_line(std::vector<std::string> words, const std::string& version, std::ostream& out,
                               std::ostream& err);

}  // namespace opmark::aggregate
