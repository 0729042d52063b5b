#pragma once
// The screen a run ends on (issue 38): per family, its cases by status and the best rate it reached; where the
// results are; and the next commands, which work on what this run wrote.
#include <map>
#include <string>
#include <vector>

namespace opmark::bench {

struct SummaryCase {
  std::string family;
  std::string short_name;  // core::short_case_name
  std::string status;      // ok, unstable, skipped, failed
  std::map<std::string, double> counters;  // tflops, pct_peak, gb_per_s, pct_peak_bw read
};

struct SummaryPlace {
  std::string results;     // the results log ("" when the run wrote none)
  std::string out_dir;     // the folder the run wrote
  std::string aggregator;  // how to call opmark-aggregate from here
  std::vector<std::string> models;  // the models the run's cases were chosen for, scored by the next command
};

// The lines, each without a newline; a family's line at most kCaseLineWidth characters (case_line.h).
std::vector<std::string> run_summary(const std::vector<SummaryCase>& cases, const SummaryPlace& place, double run_s);

}  // namespace opmark::bench
