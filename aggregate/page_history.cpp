#include "aggregate/page_history.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "aggregate/db_connection.h"
#include "aggregate/plots.h"
#include "aggregate/results_db.h"
#include "aggregate/verdict.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

constexpr std::size_t kMostCharted = 12;  // charts of the cases the changes name

std::string three_places(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", v);
  return text;
}

// One GPU's checked runs along x, in order of start, each labelled with its id, date and opmark commit.
struct Axis {
  std::map<std::int64_t, std::size_t> column_of;
  std::vector<std::string> labels;
};

std::map<std::string, Axis> axes_of(const std::vector<DbRun>& runs) {
  std::map<std::string, Axis> out;
  for (const auto& r : runs) {
    Axis& a = out[r.gpu];
    a.column_of[r.id] = a.labels.size();
    a.labels.push_back("run " + std::to_string(r.id) + ", " +
                       (r.started_at.empty() ? "?" : r.started_at.substr(0, 10)) + ", " + r.opmark_git.substr(0, 7));
  }
  return out;
}

bool timed(const DbPoint& p) { return p.timed() && p.time_us > 0; }  // and a time to take the logarithm of

// On one GPU, a line per family: the geometric mean over its cases of time / the case's time in the GPU's first run
// that timed it.
std::vector<HistorySeries> family_lines(const std::map<std::string, std::vector<const DbSeries*>>& by_family,
                                        const std::string& gpu, const Axis& axis) {
  std::vector<HistorySeries> out;
  for (const auto& [family, cases] : by_family) {
    std::map<std::size_t, std::pair<double, int>> sums;  // column -> (sum of logs, cases)
    for (const DbSeries* s : cases) {
      double first = 0;
      for (const auto& p : s->points) {
        if (p.run.gpu != gpu || !timed(p) || !axis.column_of.count(p.run.id)) continue;
        if (first == 0) first = p.time_us;
        auto& cell = sums[axis.column_of.at(p.run.id)];
        cell.first += std::log(p.time_us / first);
        ++cell.second;
      }
    }
    HistorySeries h{family, {}};
    for (const auto& [column, sum] : sums) h.points.push_back({column, std::exp(sum.first / sum.second)});
    if (!h.points.empty()) out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

std::string page_history_html(const std::string& db_path) {
  // The page only reads: a mistyped file name is an error, not a new empty database.
  if (!is_postgres_url(db_path) && !std::filesystem::exists(db_path))
    throw Error("--db " + db_path + ": no such results database (opmark-aggregate db ingest makes one)");
  ResultsDb db(db_path);
  std::vector<DbRun> runs;
  for (const auto& r : db.runs())
    if (r.checked == 1) runs.push_back(r);
  std::ostringstream h;
  if (runs.empty()) {
    h << "<p class=\"note\">The database holds no bundle that passed check: no history is shown.</p>\n";
    return h.str();
  }
  const std::map<std::string, Axis> axes = axes_of(runs);
  const std::vector<DbSeries> series = db.history(".", "", "", true);
  std::map<std::string, std::vector<const DbSeries*>> by_family;
  for (const auto& s : series) by_family[s.case_name.substr(0, s.case_name.find('/'))].push_back(&s);
  h << "<p class=\"note\">" << runs.size() << " checked bundle" << (runs.size() == 1 ? "" : "s") << " of "
    << escape(db_path) << " (<code>opmark-aggregate db</code>). Per GPU, each family's time over its bundles: the "
    << "geometric mean over its cases of each one's time over its time in the GPU's first bundle (below 1: faster)."
    << "</p>\n<div class=\"charts\">\n";
  for (const auto& [gpu, axis] : axes)
    h << history_svg(gpu + ": each family's time over the first bundle", axis.labels,
                     family_lines(by_family, gpu, axis), "time / first", "x the first");
  h << "</div>\n";
  // The changes between consecutive bundles of a GPU and regime, slower first.
  std::vector<DbChange> changes = db.regressions("", "", true, "", true);
  std::stable_sort(changes.begin(), changes.end(), [](const DbChange& a, const DbChange& b) {
    return a.verdict.verdict != b.verdict.verdict ? a.verdict.verdict == Verdict::slower
                                                  : a.verdict.ratio > b.verdict.ratio;
  });
  std::size_t slower = 0;
  for (const auto& c : changes) slower += c.verdict.verdict == Verdict::slower;
  h << "<h3>Changes between consecutive bundles</h3>\n<p class=\"note\">" << slower << " case(s) slower and "
    << changes.size() - slower << " faster beyond their runs' noise (compare's verdict), each with the software "
    << "that changed and, where the tuner chose another candidate, which.</p>\n";
  if (!changes.empty()) {
    h << "<table>\n<thead><tr><th>case</th><th>GPU</th><th>runs</th><th>verdict</th><th>after/before</th>"
         "<th>what changed</th></tr></thead>\n<tbody>\n";
    for (const auto& c : changes)
      h << "<tr><td><code>" << escape(c.case_name) << "</code></td><td>" << escape(c.gpu) << "</td><td>"
        << c.before.id << " &rarr; " << c.after.id << "</td><td>" << name_of(c.verdict.verdict) << "</td><td>"
        << three_places(c.verdict.ratio) << "</td><td>" << escape(c.software)
        << (c.candidate_change.empty() ? "" : "; another candidate: " + escape(c.candidate_change)) << "</td></tr>\n";
    h << "</tbody>\n</table>\n";
  }
  // A chart of each case named above on its GPU, slower ones first.
  std::set<std::pair<std::string, std::string>> charted;
  h << "<div class=\"charts\">\n";
  for (const auto& c : changes) {
    if (charted.size() >= kMostCharted || !charted.insert({c.case_name, c.gpu}).second) continue;
    const auto it = std::find_if(series.begin(), series.end(),
                                 [&](const DbSeries& s) { return s.case_name == c.case_name; });
    const Axis& axis = axes.at(c.gpu);
    HistorySeries line{c.case_name, {}};
    for (const auto& p : it->points)
      if (p.run.gpu == c.gpu && timed(p) && axis.column_of.count(p.run.id))
        line.points.push_back({axis.column_of.at(p.run.id), p.time_us});
    h << history_svg(c.gpu + ": " + c.case_name, axis.labels, {line});
  }
  h << "</div>\n";
  return h.str();
}

}  // namespace opmark::aggregate
