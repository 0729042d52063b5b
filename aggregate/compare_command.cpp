#include "aggregate/compare_command.h"

#include <cstdio>
#include <set>

#include "aggregate/bundle.h"
#include "aggregate/compare.h"
#include "aggregate/compare_report.h"
#include "aggregate/score_command.h"
#include "core/error.h"
#include "core/text.h"

namespace opmark::aggregate {

int run_compare(const CompareOptions& o) {
  const std::string format = o.format == "table" ? "md" : o.format;
  if (format != "md" && format != "csv" && format != "json")
    throw Error("--format: expected md, csv or json, got '" + o.format + "'");
  const Statistic statistic = parse_statistic(o.statistic_name);
  const ResultSet before = load_results_or_bundle(o.before, statistic);
  const ResultSet after = load_results_or_bundle(o.after, statistic);
  Comparison c = compare(before, after, o.threshold);

  CompareReportOptions report{o.before, o.after, o.threshold, o.all, ""};
  // Areas come from the model tables: a comparison still stands without them, said so.
  const std::string shapes = o.shapes.empty() ? default_shapes_dir() : o.shapes;
  std::set<std::string> precisions;
  for (const auto& k : c.cases)
    if (!k.precision.empty()) precisions.insert(k.precision);
  try {
    c.areas = group_ratios(c.cases, areas_of_cases(shapes, precisions));
    if (c.areas.empty()) report.areas_note = "No compared case is one the areas' models (" + shapes + ") call.";
  } catch (const std::exception& e) {
    report.areas_note = std::string("No area lines: the model tables did not load: ") + e.what();
  }

  // Names and context values come from the results files: no control character of theirs reaches the terminal
  // (JSON escapes its own).
  const std::string text = format == "json"  ? compare_json(c, report)
                           : format == "csv" ? core::terminal_text(compare_csv(c, report), true)
                                             : core::terminal_text(compare_markdown(c, report), true);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return c.regressions > 0 ? 3 : 0;
}

}  // namespace opmark::aggregate
