#pragma once
// Two result sets side by side (two GPUs, or before and after a driver update): what changed, case by case, with a
// verdict on each, the geometric mean of after/before per family and per area, and how the two runs' contexts
// differ (another opmark commit, driver or library explains a change as well as the GPU does). The printing is
// compare_report.h's; this file decides.
//
// Each case's verdict (same, faster, slower, unclear) is verdict.h's, the one the results page shows too. A slower
// case is a regression: the command's exit status says so (3), for CI.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/verdict.h"

namespace opmark::aggregate {

// Under this time on both sides a case is short enough that the launch rate, not the kernel, may set its time.
inline constexpr double kShortCaseUs = 12.0;

struct CaseComparison {
  std::string name;        // the canonical case name (the key)
  std::string short_name;  // for people: fields at their default left out (core::short_case_name)
  std::string family, precision;  // "" where the name is not one opmark parses
  double before_us = 0, after_us = 0;
  double ratio = 0;          // after / before: above 1 is slower
  CaseVerdict judged;        // the verdict, its basis (time or cycles), the runs' noise and the limit
  Verdict verdict = Verdict::same;  // judged.verdict
  bool regression = false;   // verdict slower
  std::string unstable;      // "before", "after" or "before and after" where the case was unstable there; else empty
  // Both times under kShortCaseUs: `launch_bound` where either run's launch_bound counter says eager launches were
  // slower than graph replays (the launch rate sets the time), `short` where the runs did not record the counter.
  std::string short_flag;
  // "X -> Y" where the two runs' labels name another chosen candidate (the tuner chose differently: the change may be
  // the choice, not the library's kernel); else empty.
  std::string candidate_change;
};

struct GroupRatio {
  std::string name;   // a family or an area
  int cases = 0;      // cases of it both runs measured
  double geomean_ratio = 0;
};

struct ContextRow {
  std::string key, label;     // the context key (driver_version) and what it is (driver)
  std::string before, after;  // "" where the run did not record it
  bool differs() const { return before != after; }
};

struct Comparison {
  std::vector<CaseComparison> cases;  // both sets measured, by report order: sort_by_effect
  double geomean_ratio = 0;           // over every case both measured
  int regressions = 0;                // cases slower
  int unstable = 0;                   // cases unstable before or after (unclear)
  int in_cycles = 0;                  // cases judged in cycles (the runs' SM clocks differed)
  std::map<Verdict, int> counts;      // cases per verdict
  std::vector<std::string> only_before, only_after;
  std::vector<GroupRatio> families;   // per family, in core's family order
  std::vector<GroupRatio> areas;      // per area (set by area_ratios: needs the model tables)
  std::vector<ContextRow> context;    // the keys either run recorded, in a fixed order
  bool launch_bound_recorded = false; // either run records launch_bound (results format 2)
};

// Compares by case name; `change_floor` is the least change called (verdict.h). Cases are sorted by
// sort_by_effect; families and context are filled.
Comparison compare(const ResultSet& before, const ResultSet& after, double change_floor = kChangeFloor);

// The candidate a case's label names as chosen: what precedes " (fastest of" or " (pinned by" ("" for an untuned
// case).
std::string chosen_candidate(const std::string& label);

// Slower cases first, the largest slowdown first; then faster, the largest speedup first; then unclear and same,
// the largest change first (on the verdict's basis). Ties by name.
void sort_by_effect(std::vector<CaseComparison>& cases);

// The geometric mean of after/before per group, where `groups_of` gives a case's groups (a case may be in several).
std::vector<GroupRatio> group_ratios(const std::vector<CaseComparison>& cases,
                                     const std::map<std::string, std::set<std::string>>& groups_of);

// Each case name the areas of shapes_dir/areas.yaml reach through their models' tables (default inputs), at the
// precisions in `precisions`. Throws opmark::Error (TableError) where the tables do not load.
std::map<std::string, std::set<std::string>> areas_of_cases(const std::string& shapes_dir,
                                                            const std::set<std::string>& precisions);

// The runs' contexts side by side: GPU, driver, CUDA and library versions, opmark's version and commit, timing
// mode, results format, L2 mode. Keys neither run recorded are left out; the results format of a run without one
// is 1, and the L2 mode is read from a format-1 run's `timing` text.
std::vector<ContextRow> context_rows(const std::map<std::string, std::string>& before,
                                     const std::map<std::string, std::string>& after);

// Whether the runs name different opmark commits (a `-dirty` one differs from its clean self: its source changed).
bool commits_differ(const std::vector<ContextRow>& rows);

}  // namespace opmark::aggregate
