#include "aggregate/page_runs.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "aggregate/bundle.h"
#include "aggregate/plots.h"  // escape
#include "aggregate/results.h"
#include "core/text.h"

namespace opmark::aggregate {

namespace fs = std::filesystem;

std::string plain_run_html(const std::string& id, const fs::path& dir) {
  const std::string path = (dir / "results.jsonl").string();
  const ResultSet results = parse_results(
      bundle_file_text(dir.string(), "results.jsonl", "results file", false, bundle_results_limits()), path,
      Statistic::median, bundle_results_limits());
  const auto context = [&](const char* key) {
    const auto it = results.context.find(key);
    return it == results.context.end() ? std::string() : it->second;
  };
  std::string h = "<details class=\"plain-run\">\n<summary><code>" + escape(id) + "</code>: " +
                  escape(context("gpu").empty() ? "no GPU named" : context("gpu")) + ", " +
                  std::to_string(results.cases.size()) + " cases, <strong>not checked</strong></summary>\n<p>";
  for (const auto& [label, key] : {std::pair<const char*, const char*>{"driver", "driver_version"},
                                   {"CUDA runtime", "cuda_runtime_version"}, {"opmark", "git"},
                                   {"started", "started_at"}, {"command", "command"}})
    if (!context(key).empty()) h += std::string(label) + " <code>" + escape(context(key)) + "</code>; ";
  h += "median times in microseconds, as the run wrote them: no checker has seen them.</p>\n";
  for (const std::string& warning : results.warnings) h += "<p class=\"note\">warning: " + escape(warning) + "</p>\n";
  h += 
       "<table class=\"plain-run\">\n<thead><tr><th>case</th><th>status</th><th>time (us)</th></tr></thead>\n<tbody>\n";
  std::vector<const std::pair<const std::string, CaseResult>*> rows;  // "m=256" before "m=1024"
  for (const auto& entry : results.cases) rows.push_back(&entry);
  std::sort(rows.begin(), rows.end(), [](auto* x, auto* y) { return core::natural_less(x->first, y->first); });
  char time[64];
  for (const auto* row : rows) {
    const auto& [name, r] = *row;
    h += "<tr><td><code>" + escape(name) + "</code></td><td>" + escape(r.status) +
         (r.reason.empty() ? "" : ": " + escape(r.reason)) + "</td><td class=\"num unchecked\">";
    if (r.timed()) {
      std::snprintf(time, sizeof time, "%.2f", r.time_us);
      h += std::string(time) + " <small>not checked</small>";
    }
    h += "</td></tr>\n";
  }
  return h + "</tbody>\n</table>\n</details>\n";
}

}  // namespace opmark::aggregate
