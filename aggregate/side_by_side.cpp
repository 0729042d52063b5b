#include "aggregate/side_by_side.h"

#include <cstdio>
#include <map>
#include <optional>

namespace opmark::aggregate {
namespace {

// One system's row: its score and, for a model, the real time on that system's GPU (check_score's one definition).
struct Entry {
  double score_ms = 0;
  std::optional<double> real_ms;
  bool partial = false, scored = true;  // as the per-system table: a partial score is a lower bound, ">="
};

std::string score_cell(const Entry* e, const Entry* first) {
  if (!e || !e->scored) return "-";
  char b[64];
  const char* bound = e->partial ? ">=" : "";
  // No ratio beside a lower bound, nor against one.
  if (first && first->score_ms > 0 && first->scored && !first->partial && !e->partial)
    std::snprintf(b, sizeof b, "%.4f (%.3fx)", e->score_ms, e->score_ms / first->score_ms);
  else
    std::snprintf(b, sizeof b, "%s%.4f", bound, e->score_ms);
  return b;
}

std::string real_cells(const Entry* e) {
  char b[64];
  if (!e || !e->real_ms || *e->real_ms <= 0) return "        -          -";
  std::snprintf(b, sizeof b, "%9.4f %10.3f", *e->real_ms, e->score_ms / *e->real_ms);
  return b;
}

}  // namespace

std::string side_by_side_text(const std::vector<ScoredSet>& systems) {
  if (systems.size() < 2) return "";
  // Rows in the first system's order, then any the others add.
  std::vector<std::pair<std::string, std::string>> rows;  // name, area ("area" for an area's row)
  std::vector<std::map<std::string, Entry>> entries(systems.size());
  bool any_real = false;
  for (std::size_t i = 0; i < systems.size(); ++i) {
    for (const ModelScore& m : systems[i].report->models) {
      if (!entries[i].count(m.name)) {
        bool seen = false;
        for (const auto& r : rows) seen |= r.first == m.name && r.second != "area";
        if (!seen) rows.emplace_back(m.name, m.area);
      }
      Entry e{m.score_ms, check_whole_score(m, systems[i].gpu()).real_ms, m.partial(), m.covered_calls > 0};
      any_real = any_real || e.real_ms.has_value();
      entries[i][m.name] = e;
    }
  }
  const std::size_t model_rows = rows.size();
  for (std::size_t i = 0; i < systems.size(); ++i)
    for (const AreaScore& a : systems[i].report->areas) {
      bool seen = false;
      for (std::size_t r = model_rows; r < rows.size(); ++r) seen |= rows[r].first == a.name;
      if (!seen) rows.emplace_back(a.name, "area");
      entries[i]["area " + a.name] = Entry{a.score_ms, std::nullopt, a.partial, a.scored};
    }
  std::string out = "\nScores side by side, ms (lower is better; in parentheses, the ratio to the first system)";
  out += any_real ? "\nreal: the model's own time on that GPU (its CUDA-graph replay, or its kernel time where the "
                    "capture failed or is suspect); '-' where its table has none for that GPU\n"
                  : "\n";
  char b[256];
  std::snprintf(b, sizeof b, "%-24s %-16s", "model", "area");
  out += b;
  for (const ScoredSet& s : systems) {
    std::snprintf(b, sizeof b, " %24.24s", s.system().c_str());
    out += b;
    if (any_real) out += "   real ms score/real";
  }
  out += "\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const bool area = r >= model_rows;
    const std::string key = area ? "area " + rows[r].first : rows[r].first;
    std::snprintf(b, sizeof b, "%-24s %-16s", area ? ("area " + rows[r].first).c_str() : rows[r].first.c_str(),
                  area ? "" : rows[r].second.c_str());
    out += b;
    const auto first_it = entries[0].find(key);
    const Entry* first = first_it == entries[0].end() ? nullptr : &first_it->second;
    for (std::size_t i = 0; i < systems.size(); ++i) {
      const auto it = entries[i].find(key);
      const Entry* e = it == entries[i].end() ? nullptr : &it->second;
      std::snprintf(b, sizeof b, " %24s", score_cell(e, i ? first : nullptr).c_str());
      out += b;
      if (any_real) out += " " + real_cells(area ? nullptr : e);
    }
    out += "\n";
  }
  return out;
}

}  // namespace opmark::aggregate
