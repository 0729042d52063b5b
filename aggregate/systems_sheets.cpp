#include "aggregate/systems_sheets.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/text.h"

namespace opmark::aggregate {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The columns of a system's own sheet that join the side-by-side one: each direction's time and throughput (nccl-tests'
// bandwidths for an all-reduce), DeepBench's pair; its ms, energy and notes stay in the system's own sheet.
bool compared_column(const std::string& head) {
  return ends_with(head, " time (us)") || ends_with(head, " TFLOPS") || ends_with(head, " GB/s") ||
         head.rfind("algbw", 0) == 0 || head.rfind("busbw", 0) == 0;
}

// The columns that name a row's shape: those before the first direction's time.
std::size_t shape_columns(const Sheet& s) {
  std::size_t n = 0;
  while (n < s.header.size() && !ends_with(s.header[n], " time (us)")) ++n;
  return n;
}

using Shape = std::vector<std::string>;

// Rows in natural order, column by column (m = 1, 2, 10, 1000, not as text).
bool shape_less(const Shape& a, const Shape& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i]) return core::natural_less(a[i], b[i]);
  return a.size() < b.size();
}

// One system's sheet of a (precision, family): its rows by shape, and the compared columns' index and head.
struct SystemSheet {
  const Sheet* sheet = nullptr;
  std::map<Shape, std::size_t> row_of;
  std::vector<std::pair<std::size_t, std::string>> columns;
};

SystemSheet index_sheet(const Sheet& s) {
  SystemSheet out;
  out.sheet = &s;
  const std::size_t keys = shape_columns(s);
  for (std::size_t c = keys; c < s.header.size(); ++c)
    if (compared_column(s.header[c])) out.columns.emplace_back(c, s.header[c]);
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    const auto texts = row_texts(s.rows[r]);
    out.row_of.emplace(Shape(texts.begin(), texts.begin() + static_cast<std::ptrdiff_t>(keys)), r);
  }
  return out;
}

Sheet side_by_side(const std::vector<NamedSystem>& systems, const std::vector<const Sheet*>& own) {
  const Sheet* any = nullptr;
  for (const Sheet* s : own) any = any ? any : s;
  Sheet out;
  out.name = any->name;
  out.precision = any->precision;
  out.family = any->family;
  out.title = any->title;  // DeepBench's, as a system's own workbook names it
  const std::size_t keys = shape_columns(*any);
  out.header.assign(any->header.begin(), any->header.begin() + static_cast<std::ptrdiff_t>(keys));
  out.formats.assign(any->formats.begin(), any->formats.begin() + static_cast<std::ptrdiff_t>(keys));
  std::vector<SystemSheet> indexed(systems.size());
  std::set<Shape> every_shape;
  std::vector<std::string> columns;  // the union of the compared columns' heads, in the order first seen
  for (std::size_t i = 0; i < systems.size(); ++i) {
    if (!own[i]) continue;
    indexed[i] = index_sheet(*own[i]);
    for (const auto& [shape, row] : indexed[i].row_of) every_shape.insert(shape);
    for (const auto& [index, head] : indexed[i].columns)
      if (std::find(columns.begin(), columns.end(), head) == columns.end()) columns.push_back(head);
  }
  std::vector<Shape> shapes(every_shape.begin(), every_shape.end());
  std::stable_sort(shapes.begin(), shapes.end(), shape_less);
  // Per system its compared columns; then per direction each later system's time over the first's.
  std::vector<std::string> directions;
  for (const auto& head : columns)
    if (ends_with(head, " time (us)")) directions.push_back(head.substr(0, head.size() - 10));
  for (const auto& s : systems) {
    for (const auto& head : columns) {
      out.header.push_back(s.label + ": " + head);
      out.formats.push_back("0.000");
    }
    out.header.push_back(s.label + ": status");
    out.formats.push_back("");
  }
  for (std::size_t i = 1; i < systems.size(); ++i)
    for (const auto& d : directions) {
      out.header.push_back(d + ": " + systems[i].label + " / " + systems[0].label);
      out.formats.push_back("0.000");
    }
  const auto cell_of = [&](std::size_t system, const Shape& shape, const std::string& head) -> const SheetCell* {
    if (!own[system]) return nullptr;
    const auto row = indexed[system].row_of.find(shape);
    if (row == indexed[system].row_of.end()) return nullptr;
    const auto& cols = indexed[system].columns;
    const auto col = std::find_if(cols.begin(), cols.end(), [&](const auto& c) { return c.second == head; });
    return col == cols.end() ? nullptr : &own[system]->rows[row->second][col->first];
  };
  for (const Shape& shape : shapes) {
    std::vector<SheetCell> row(shape.begin(), shape.end());
    for (std::size_t i = 0; i < systems.size(); ++i) {
      // The system's status of the shape: ok, unstable, the first direction's status that has no time (failed,
      // skipped, ...), or not run.
      std::string status = indexed[i].row_of.count(shape) ? "ok" : "not run";
      for (const auto& head : columns) {
        const SheetCell* c = cell_of(i, shape, head);
        if (c) {
          const auto r = indexed[i].row_of.at(shape);
          for (const auto& [ur, uc] : own[i]->unstable_cells)
            if (ur == r && own[i]->header[uc] == head) {
              out.unstable_cells.emplace_back(out.rows.size(), row.size());
              if (status == "ok") status = "unstable";
            }
          if (ends_with(head, " time (us)") && !c->number && status == "ok") status = c->text;
        } else if (ends_with(head, " time (us)") && status == "ok") {
          status = head.substr(0, head.size() - 10) + " not run";
        }
        row.push_back(c ? *c : SheetCell::of_text(ends_with(head, " time (us)") ? "not run" : ""));
      }
      row.push_back(SheetCell::of_text(status));
    }
    for (std::size_t i = 1; i < systems.size(); ++i)
      for (const auto& d : directions) {
        const SheetCell* first = cell_of(0, shape, d + " time (us)");
        const SheetCell* later = cell_of(i, shape, d + " time (us)");
        const bool both = first && later && first->number && later->number && first->value > 0;
        row.push_back(both ? SheetCell::of_number(later->value / first->value) : SheetCell::of_text(""));
      }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

std::vector<Sheet> systems_sheets(const std::vector<NamedSystem>& systems) {
  // Each system's own DeepBench sheets, then one side-by-side sheet per (precision, family) any of them has.
  std::vector<std::vector<Sheet>> own(systems.size());
  std::map<std::pair<std::string, std::string>, std::vector<const Sheet*>> groups;
  for (std::size_t i = 0; i < systems.size(); ++i) {
    own[i] = deepbench_sheets(*systems[i].results);
    for (const Sheet& s : own[i]) {
      if (s.family.empty()) continue;  // the specs: one "systems" table below instead
      auto& group = groups[{s.precision, s.family}];
      group.resize(systems.size(), nullptr);
      group[i] = &s;
    }
  }
  std::vector<Sheet> out;
  for (const auto& [key, sheets] : groups) out.push_back(side_by_side(systems, sheets));
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
