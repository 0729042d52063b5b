#pragma once
// opmark-aggregate db: the results database's commands (aggregate/results_db.h): ingest runs and bundles, list the
// runs, a case's history, and the runs where a case changed beyond its noise.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace opmark::aggregate {

struct DbOptions {
  std::string db = "opmark.db";  // the SQLite file
  std::string action;            // ingest, runs, history, regressions, export
  std::vector<std::string> paths;  // ingest: results logs, run folders, bundle folders
  std::string gpu;                 // a substring of the GPU's name
  std::string since;               // runs started at or after this (ISO date or time)
  std::string cases;               // a regular expression over case names
  std::string format = "table";    // table, csv or json
  bool faster_too = false;         // regressions: also the changes to faster
  std::string svg;                 // history: also a chart of the times, written here
};

// Adds `db` and its actions to the command line.
CLI::App* add_db_command(CLI::App& app, DbOptions& options);
// Runs the action parsed into `options`. Returns the exit status: 0; 1 where regressions found a slower case; 2 for
// an error (thrown as opmark::Error).
int run_db(const DbOptions& options);

}  // namespace opmark::aggregate
