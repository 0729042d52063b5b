#include "aggregate/spreadsheet.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <variant>

#include "aggregate/files.h"
#include "core/case.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/error.h"
#include "core/file_access.h"
#include "core/rates.h"
#include "core/schema.h"

namespace opmark::aggregate {

namespace counter = core::counter;
namespace {

// A plain decimal number ("-0.25", "1e-05"): written as it is, so a spreadsheet still reads a number.
bool plain_number(const std::string& s) {
  std::size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  const std::size_t digits_from = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == digits_from) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    if (++i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const std::size_t exponent_from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == exponent_from) return false;
  }
  return i == s.size();
}

}  // namespace

std::string csv_field(const std::string& s) {
  // Text a spreadsheet would run as a formula (a submitter's context value "=cmd|' /C calc'!A0"): a leading single
  // quote inside the quoted cell makes it text (OWASP's CSV injection advice). Numbers stay numbers.
  const bool formula = !s.empty() && std::strchr("=+-@\t\r", s[0]) != nullptr && !plain_number(s);
  if (!formula && s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = formula ? "\"'" : "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

// A case's measured time, or why there is none ("not run", "failed", "skipped"). An unstable case has its time.
struct Measured {
  double time_us = 0;  // 0 when there is none
  std::string status;
  const CaseResult* result = nullptr;
  bool ok() const { return status == "ok" || status == "unstable"; }
  bool unstable() const { return status == "unstable"; }
};

Measured measured(const ResultSet& results, const core::Case& c) {
  auto it = results.cases.find(core::make_case_name(c));
  if (it == results.cases.end()) return {0, "not run"};
  if (!it->second.timed()) return {0, it->second.status, &it->second};
  return {it->second.time_us, it->second.status, &it->second};
}

bool any_energy(const ResultSet& results) {
  for (const auto& [name, r] : results.cases)
    if (r.timed() && r.has_counter(counter::joules_per_op)) return true;
  return false;
}

// The same shape in another direction (a conv shape's bwd_data, an RNN's bwd_weights).
core::Case with_direction(const core::Case& c, const std::string& direction) {
  std::map<std::string, core::FieldValue> fields;
  const core::Schema& schema = c.schema();
  for (std::size_t i = 0; i < schema.fields.size(); ++i) fields[schema.fields[i].name] = c.values[i];
  return core::make_case(c.family, direction, c.precision, fields);
}

// A field's cell: integers and fractions (sparsity 0.95) are numbers, choices text.
SheetCell field_cell(const core::FieldSpec& spec, const core::FieldValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return SheetCell::of_integer(*i);
  const std::string text = core::to_string(v);
  if (spec.kind == core::FieldKind::fraction) {
    SheetCell cell = SheetCell::of_number(core::fraction_of(v));
    cell.text = text;  // as the case name spells it
    return cell;
  }
  return SheetCell::of_text(text);
}

// Natural order of two texts: runs of digits compare as numbers ("2" < "10"), the rest as text.
int natural_compare(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (x != y) return x < y ? -1 : 1;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
      ++i;
      ++j;
    }
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  return 0;
}

// Shapes in natural order of their fields, field by field in the schema's order: numbers as numbers (m = 1, 2, 10,
// 1000, 1024), fractions by value, choices as text with their digits as numbers.
struct ShapeOrder {
  bool operator()(const core::Case& a, const core::Case& b) const {
    const core::Schema& schema = a.schema();
    for (std::size_t f = 0; f < a.values.size() && f < b.values.size(); ++f) {
      const core::FieldValue &x = a.values[f], &y = b.values[f];
      const auto *xi = std::get_if<std::int64_t>(&x), *yi = std::get_if<std::int64_t>(&y);
      if (xi && yi) {
        if (*xi != *yi) return *xi < *yi;
        continue;
      }
      if (xi || yi) return xi != nullptr;  // never within one schema; a total order all the same
      if (f < schema.fields.size() && schema.fields[f].kind == core::FieldKind::fraction) {
        const double dx = core::fraction_of(x), dy = core::fraction_of(y);
        if (dx != dy) return dx < dy;
        continue;
      }
      const int c = natural_compare(core::to_string(x), core::to_string(y));
      if (c != 0) return c < 0;
    }
    return a.values.size() < b.values.size();
  }
};

// Context values stored as numbers in the Specs sheet: measurements and counts (clocks, sizes, peaks), never
// versions or ids ("13.0", "9.0", a git hash), which stay as the run wrote them.
bool measurement_key(const std::string& key) {
  const auto ends = [&](const char* suffix) {
    const std::string s = suffix;
    return key.size() > s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
  };
  if (key.rfind("peak_tflops_", 0) == 0) return true;
  if (key == "gpu_count_used" || key == "visible_gpus") return true;
  for (const char* suffix : {"_bytes", "_bits", "_mhz", "_gib", "_count", "_per_s", "_watts"})
    if (ends(suffix)) return true;
  return false;
}

SheetCell context_cell(const std::string& key, const std::string& value) {
  if (measurement_key(key) && !value.empty()) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() + value.size() && std::isfinite(v)) {
      SheetCell cell = SheetCell::of_number(v);
      cell.text = value;  // CSV keeps the run's text
      return cell;
    }
  }
  return SheetCell::of_text(value);
}

// Where the case came from: the shape rows' applications, else their models; "; " between several.
std::string application_of(const std::set<std::string>& applications, const std::set<std::string>& models) {
  const std::set<std::string>& names = applications.empty() ? models : applications;
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "; ") + n;
  return out;
}

}  // namespace

SheetCell SheetCell::of_text(std::string text) {
  SheetCell c;
  c.text = std::move(text);
  return c;
}

SheetCell SheetCell::of_number(double value) {
  SheetCell c;
  c.value = value;
  c.number = true;
  c.text = number_text(value);
  return c;
}

SheetCell SheetCell::of_integer(long long value) {
  SheetCell c;
  c.value = static_cast<double>(value);
  c.number = true;
  c.text = std::to_string(value);
  return c;
}

std::string number_text(double v) {
  if (!std::isfinite(v)) return v != v ? "nan" : v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::clamp(5 - magnitude, 0, 15);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string out = buf;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  if (out == "-0") out = "0";
  return out;
}

std::vector<std::string> row_texts(const std::vector<SheetCell>& row) {
  std::vector<std::string> out;
  for (const auto& c : row) out.push_back(c.text);
  return out;
}

std::vector<Sheet> deepbench_sheets(const ResultSet& results) {
  // Every parsable case, grouped by precision and family; the directions of one shape share a row.
  struct Shape {
    core::Case c;
    std::set<std::string> applications, models;
  };
  std::map<std::string, std::map<std::string, Shape>> shapes;  // sheet -> shape key -> a case of the shape
  std::map<std::string, std::set<std::string>> directions_run;  // sheet -> the directions its cases ran in
  for (const auto& [name, r] : results.cases) {
    core::Case c;
    try {
      c = core::parse_case_name(name);
    } catch (const Error&) {
      continue;  // not an opmark case name (another benchmark in the same file)
    }
    const std::string sheet = c.precision + "_" + c.family;
    directions_run[sheet].insert(c.direction);
    std::string key;
    for (const auto& v : c.values) key += core::to_string(v) + "/";
    Shape& shape = shapes[sheet].emplace(key, Shape{c, {}, {}}).first->second;
    shape.applications.insert(r.applications.begin(), r.applications.end());
    shape.models.insert(r.models.begin(), r.models.end());
  }
  const bool energy = any_energy(results);  // the energy columns on every sheet, or on none
  std::vector<Sheet> sheets;
  for (const auto& [sheet_name, by_key] : shapes) {
    // Natural order of the fields (the map's keys are text: m = 1, 1000, 1024, 2 would sort as strings).
    std::vector<const Shape*> by_shape;
    for (const auto& [key, shape] : by_key) by_shape.push_back(&shape);
    std::stable_sort(by_shape.begin(), by_shape.end(),
                     [](const Shape* a, const Shape* b) { return ShapeOrder{}(a->c, b->c); });
    Sheet s;
    s.name = sheet_name;
    const core::Case& first = by_shape.front()->c;
    s.precision = first.precision;
    s.family = first.family;
    const core::FamilyInfo& info = core::family_info(first.family);
    s.title = info.title;
    const core::Schema& schema = first.schema();
    // Columns for the directions the run has, in the schema's order: a run of forward cases alone gets no empty
    // backward columns, and a family that gains a direction leaves the sheets of runs without it as they were.
    std::vector<std::string> directions;
    for (const auto& d : schema.directions)
      if (directions_run[sheet_name].count(d)) directions.push_back(d);
    const auto column = [&s](const std::string& name, const std::string& format) {
      s.header.push_back(name);
      s.formats.push_back(format);
    };
    column("application", "");
    // A field a family gained later (named only away from its default) gets a column where some row sets it, so
    // the sheets of runs before it stay as they were, as with directions above.
    std::vector<bool> shown;
    for (std::size_t f = 0; f < schema.fields.size(); ++f) {
      bool set = schema.fields[f].named_at_default;
      for (const Shape* shape : by_shape) set = set || !core::field_at_default(shape->c, f);
      shown.push_back(set);
      if (set) column(schema.fields[f].name, "");
    }
    const core::SheetExtras extras = info.sheet_extras;
    const bool sparse = extras == core::SheetExtras::dense_speedup;
    const bool allreduce = extras == core::SheetExtras::bus_bandwidth;
    // Per direction the family has: its time in us and in ms (DeepBench's unit), then the throughput: TFLOPS for a
    // family with FLOPs; for a memory-bound one (none of its cases has FLOPs) GB/s and the share of the copy
    // bandwidth the run measured; an all-reduce has nccl-tests' algbw and busbw (after the directions) instead.
    // With energy, its energy and efficiency after each direction's columns.
    bool compute = false;
    for (const Shape* shape : by_shape)
      for (const auto& d : directions)
        compute = compute || core::work_of(with_direction(shape->c, d)).flops > 0;
    const bool bandwidth = !compute && !allreduce;
    for (const auto& d : directions) {
      column(d + " time (us)", "0.000");
      column(d + " time (ms)", "0.000000");
      if (compute) column(d + " TFLOPS", "0.00");
      if (bandwidth) {
        column(d + " GB/s", "0.0");
        column(d + " % of copy", "0.0");
      }
      if (energy) {
        column(d + " energy (mJ/op)", "");
        column(d + (compute ? " TFLOPS/W" : " GB/s/W"), "0.000");
      }
    }
    if (sparse) {
      column("dense time (us)", "0.000");
      column("speedup over dense", "0.00");
    }
    if (allreduce) {
      column("algbw (GB/s)", "0.00");
      column("busbw (GB/s)", "0.00");
    }
    bool any_unstable = false;
    const SheetCell empty;
    for (const Shape* shape : by_shape) {
      const core::Case& c = shape->c;
      std::vector<SheetCell> row = {SheetCell::of_text(application_of(shape->applications, shape->models))};
      for (std::size_t f = 0; f < c.values.size(); ++f)
        if (shown[f]) row.push_back(field_cell(schema.fields[f], c.values[f]));
      std::string notes;
      for (const auto& d : directions) {
        const core::Case in_direction = with_direction(c, d);
        const Measured m = measured(results, in_direction);
        const core::Work work = core::work_of(in_direction);
        const double flops = work.flops;
        if (m.unstable()) {
          s.unstable_cells.push_back({s.rows.size(), row.size()});
          notes += (notes.empty() ? "" : "; ") + d + " unstable: " + m.result->reason;
        }
        row.push_back(m.ok() ? SheetCell::of_number(m.time_us) : SheetCell::of_text(m.status));
        row.push_back(m.ok() ? SheetCell::of_number(m.time_us / 1e3) : empty);
        if (compute)
          row.push_back(m.ok() && flops > 0 ? SheetCell::of_number(core::tflops(flops, m.time_us * 1e-6)) : empty);
        if (bandwidth) {
          // bytes / time, and its share of the device-to-device copy the run measured (copy_gb_per_s).
          const double gb_per_s = m.ok() ? core::gb_per_s(work.bytes(), m.time_us * 1e-6) : 0;
          const double copy = m.ok() ? m.result->counter(counter::copy_gb_per_s, 0) : 0;
          row.push_back(gb_per_s > 0 ? SheetCell::of_number(gb_per_s) : empty);
          row.push_back(gb_per_s > 0 && copy > 0 ? SheetCell::of_number(core::pct_of(gb_per_s, copy)) : empty);
        }
        if (energy) {
          // mJ per operation, and work per joule (TFLOPS/W or GB/s/W): the run's own counter, else recomputed.
          const double joules = m.ok() ? m.result->counter(counter::joules_per_op, -1) : -1;
          const double per_w = compute ? core::tflops_per_w(flops, joules) : core::gb_per_s_per_w(work.bytes(), joules);
          const double given = m.ok() ? m.result->counter(compute ? counter::tflops_per_w : counter::gb_per_s_per_w, -1) : -1;
          row.push_back(joules > 0 ? SheetCell::of_number(joules * 1e3) : empty);
          row.push_back(given >= 0 ? SheetCell::of_number(given) : per_w > 0 ? SheetCell::of_number(per_w) : empty);
        }
      }
      any_unstable = any_unstable || !notes.empty();
      if (sparse) {
        // DeepBench's dense column: the GEMM family's case of the same shape, where the results hold it.
        std::map<std::string, core::FieldValue> g = {{"m", c.values[0]}, {"n", c.values[1]}, {"k", c.values[2]}};
        const Measured dense = measured(results, core::make_case("gemm", "fwd", c.precision, g));
        const Measured sparse_time = measured(results, c);
        row.push_back(dense.ok() ? SheetCell::of_number(dense.time_us) : empty);
        row.push_back(dense.ok() && sparse_time.ok() ? SheetCell::of_number(dense.time_us / sparse_time.time_us)
                                                     : empty);
      }
      if (allreduce) {  // nccl-tests' algbw and busbw
        const Measured m = measured(results, c);
        const double algbw = m.ok() ? core::gb_per_s(core::work_of(c).bytes(), m.time_us * 1e-6) : 0;
        const std::int64_t ranks = core::allreduce_problem(c).ranks;
        row.push_back(m.ok() ? SheetCell::of_number(algbw) : empty);
        row.push_back(m.ok() ? SheetCell::of_number(algbw * core::busbw_factor(ranks)) : empty);
      }
      row.push_back(SheetCell::of_text(notes));
      s.rows.push_back(row);
    }
    // The notes column only where a case needs one: a run without unstable cases has none.
    if (any_unstable) column("notes", "");
    else
      for (auto& row : s.rows) row.pop_back();
    sheets.push_back(std::move(s));
  }
  Sheet specs;
  specs.name = "specs";
  specs.title = "Specs";
  specs.header = {"key", "value"};
  specs.formats = {"", ""};
  for (const auto& [k, v] : results.context) specs.rows.push_back({SheetCell::of_text(k), context_cell(k, v)});
  sheets.push_back(specs);
  return sheets;
}

std::string csv_text(const Sheet& s) {
  std::string out;
  for (std::size_t i = 0; i < s.header.size(); ++i) out += (i ? "," : "") + csv_field(s.header[i]);
  out += "\n";
  for (const auto& row : s.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_field(row[i].text);
    out += "\n";
  }
  return out;
}

std::vector<std::string> write_csv_sheets(const std::vector<Sheet>& sheets, const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  // One set: a full disk midway leaves the previous sheets, not some of each run's. Never through a symbolic link.
  std::vector<std::pair<std::string, std::string>> texts;
  std::vector<std::string> files;
  for (const auto& s : sheets) {
    files.push_back((fs::path(dir) / (s.name + ".csv")).string());
    texts.emplace_back(files.back(), csv_text(s));
  }
  core::write_files_atomically(texts);
  return files;
}

}  // namespace opmark::aggregate
