#include "aggregate/side_by_side.h"

#include <cstdio>
#include <map>

namespace opmark::aggregate {
namespace {

// The system's column head: its GPU, else the file.
std::string system_name(const ScoredSet& s) {
  const auto it = s.results->context.find("gpu");
  return it != s.results->context.end() && !it->second.empty() ? it->second : s.label;
}

std::string cell(const double* ms, const double* first) {
  if (!ms) return "-";
  char b[64];
  if (first && *first > 0) std::snprintf(b, sizeof b, "%.4f (%.3fx)", *ms, *ms / *first);
  else std::snprintf(b, sizeof b, "%.4f", *ms);
  return b;
}

}  // namespace

std::string side_by_side_text(const std::vector<ScoredSet>& systems) {
  if (systems.size() < 2) return "";
  // Rows in the first system's order, then any the others add.
  std::vector<std::pair<std::string, std::string>> rows;  // name, area ("area" for an area's row)
  std::vector<std::map<std::string, double>> scores(systems.size());
  for (std::size_t i = 0; i < systems.size(); ++i) {
    for (const ModelScore& m : systems[i].report->models) {
      if (!scores[i].count(m.name)) {
        bool seen = false;
        for (const auto& r : rows) seen |= r.first == m.name && r.second != "area";
        if (!seen) rows.emplace_back(m.name, m.area);
      }
      scores[i][m.name] = m.score_ms;
    }
  }
  const std::size_t model_rows = rows.size();
  for (std::size_t i = 0; i < systems.size(); ++i)
    for (const AreaScore& a : systems[i].report->areas) {
      bool seen = false;
      for (std::size_t r = model_rows; r < rows.size(); ++r) seen |= rows[r].first == a.name;
      if (!seen) rows.emplace_back(a.name, "area");
      scores[i]["area " + a.name] = a.score_ms;
    }
  std::string out = "\nScores side by side, ms (lower is better; in parentheses, the ratio to the first system)\n";
  char b[256];
  std::snprintf(b, sizeof b, "%-24s %-16s", "model", "area");
  out += b;
  for (const ScoredSet& s : systems) {
    std::snprintf(b, sizeof b, " %24.24s", system_name(s).c_str());
    out += b;
  }
  out += "\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const bool area = r >= model_rows;
    const std::string key = area ? "area " + rows[r].first : rows[r].first;
    std::snprintf(b, sizeof b, "%-24s %-16s", area ? ("area " + rows[r].first).c_str() : rows[r].first.c_str(),
                  area ? "" : rows[r].second.c_str());
    out += b;
    const auto first_it = scores[0].find(key);
    const double* first = first_it == scores[0].end() ? nullptr : &first_it->second;
    for (std::size_t i = 0; i < systems.size(); ++i) {
      const auto it = scores[i].find(key);
      const double* ms = it == scores[i].end() ? nullptr : &it->second;
      std::snprintf(b, sizeof b, " %24s", cell(ms, i ? first : nullptr).c_str());
      out += b;
    }
    out += "\n";
  }
  return out;
}

}  // namespace opmark::aggregate
