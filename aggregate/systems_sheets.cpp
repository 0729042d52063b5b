#include "aggregate/systems_sheets.h"

#include <map>
#include <set>
#include <utility>

#include "core/case.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

// A case's (precision, family), read by core's parser of case names; a name from another tool is ("", "other").
std::pair<std::string, std::string> precision_and_family(const std::string& name) {
  try {
    const core::Case c = core::parse_case_name(name);
    return {c.precision, c.family};
  } catch (const Error&) {
    return {"", "other"};
  }
}

SheetCell time_cell(const CaseResult* r) {
  if (!r) return SheetCell::of_text("not run");
  if (!r->timed()) return SheetCell::of_text(r->status);
  return SheetCell::of_number(r->time_us);
}

}  // namespace

std::vector<Sheet> systems_sheets(const std::vector<NamedSystem>& systems) {
  // (precision, family) -> case names, in name order (the sheets' row order).
  std::map<std::pair<std::string, std::string>, std::set<std::string>> groups;
  for (const auto& s : systems)
    for (const auto& [name, r] : s.results->cases) {
      groups[precision_and_family(name)].insert(name);
    }
  std::vector<Sheet> out;
  for (const auto& [key, names] : groups) {
    Sheet sheet;
    sheet.precision = key.first;
    sheet.family = key.second;
    sheet.name = key.first.empty() ? key.second : key.first + "_" + key.second;
    sheet.title = key.first.empty() ? "cases of no opmark family" : key.second + ", " + key.first + ", side by side";
    sheet.header = {"case"};
    sheet.formats = {""};
    for (std::size_t i = 0; i < systems.size(); ++i) {
      sheet.header.push_back(systems[i].label + " time (us)");
      sheet.formats.push_back("0.000");
      if (i > 0) {
        sheet.header.push_back(systems[i].label + " / " + systems[0].label);
        sheet.formats.push_back("0.000");
      }
    }
    for (const auto& name : names) {
      std::vector<SheetCell> row = {SheetCell::of_text(name)};
      const CaseResult* first = nullptr;
      for (std::size_t i = 0; i < systems.size(); ++i) {
        auto it = systems[i].results->cases.find(name);
        const CaseResult* r = it == systems[i].results->cases.end() ? nullptr : &it->second;
        if (i == 0) first = r;
        row.push_back(time_cell(r));
        if (r && r->unstable()) sheet.unstable_cells.emplace_back(sheet.rows.size(), row.size() - 1);
        if (i > 0) {
          const bool both = first && r && first->timed() && r->timed() && first->time_us > 0;
          row.push_back(both ? SheetCell::of_number(r->time_us / first->time_us) : SheetCell::of_text(""));
        }
      }
      sheet.rows.push_back(std::move(row));
    }
    out.push_back(std::move(sheet));
  }
  Sheet specs;
  specs.name = "systems";
  specs.title = "Systems";
  specs.header = {"system", "gpu", "driver", "file"};
  specs.formats = {"", "", "", ""};
  for (const auto& s : systems) {
    const auto& c = s.results->context;
    const auto get = [&](const char* k) { return c.count(k) ? c.at(k) : std::string(); };
    specs.rows.push_back({SheetCell::of_text(s.label), SheetCell::of_text(get("gpu")),
                          SheetCell::of_text(get("driver_version")), SheetCell::of_text(s.results->path)});
  }
  out.push_back(std::move(specs));
  return out;
}

}  // namespace opmark::aggregate
