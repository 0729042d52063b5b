#include "aggregate/spreadsheet.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "aggregate/files.h"
#include "core/case.h"
#include "core/families.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

std::string num(double v, const char* fmt = "%.3f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

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
    if (r.timed() && r.has_counter("joules_per_op")) return true;
  return false;
}

// The same shape in another direction (a conv shape's bwd_data, an RNN's bwd_weights).
core::Case with_direction(const core::Case& c, const std::string& direction) {
  std::map<std::string, core::FieldValue> fields;
  const core::Schema& schema = c.schema();
  for (std::size_t i = 0; i < schema.fields.size(); ++i) fields[schema.fields[i].name] = c.values[i];
  return core::make_case(c.family, direction, c.precision, fields);
}

std::vector<std::string> field_texts(const core::Case& c) {
  std::vector<std::string> out;
  for (const auto& v : c.values) out.push_back(core::to_string(v));
  return out;
}

}  // namespace

std::vector<Sheet> deepbench_sheets(const ResultSet& results) {
  // Every parsable case, grouped by precision and family; the directions of one shape share a row.
  std::map<std::string, std::map<std::string, core::Case>> shapes;  // sheet -> shape key -> a case of the shape
  for (const auto& [name, r] : results.cases) {
    core::Case c;
    try {
      c = core::parse_case_name(name);
    } catch (const Error&) {
      continue;  // not an opmark case name (another benchmark in the same file)
    }
    const std::string sheet = c.precision + "_" + c.family;
    std::string key;
    for (const auto& v : c.values) key += core::to_string(v) + "/";
    shapes[sheet].emplace(key, c);
  }
  const bool energy = any_energy(results);  // the energy columns on every sheet, or on none
  std::vector<Sheet> sheets;
  for (const auto& [sheet_name, by_shape] : shapes) {
    Sheet s;
    s.name = sheet_name;
    const core::Case& first = by_shape.begin()->second;
    s.precision = first.precision;
    s.family = first.family;
    const core::Schema& schema = first.schema();
    for (const auto& f : schema.fields) s.header.push_back(f.name);
    // One pair of columns (time, TFLOPS) per direction the family has, DeepBench's layout; with energy, its
    // energy and efficiency after each pair. A family none of whose cases has FLOPs is memory bound: GB/s per watt.
    bool compute = false;
    for (const auto& [key, c] : by_shape)
      for (const auto& d : schema.directions) compute = compute || core::work_of(with_direction(c, d)).flops > 0;
    for (const auto& d : schema.directions) {
      s.header.push_back(d + " time (us)");
      s.header.push_back(d + " TFLOPS");
      if (energy) {
        s.header.push_back(d + " energy (mJ/op)");
        s.header.push_back(d + (compute ? " TFLOPS/W" : " GB/s/W"));
      }
    }
    const core::SheetExtras extras = core::family_info(first.family).sheet_extras;
    const bool sparse = extras == core::SheetExtras::dense_speedup, allreduce = extras == core::SheetExtras::bus_bandwidth;
    if (sparse) s.header.insert(s.header.end(), {"dense time (us)", "speedup over dense"});
    if (allreduce) s.header.insert(s.header.end(), {"algbw (GB/s)", "busbw (GB/s)"});
    bool any_unstable = false;
    for (const auto& [key, c] : by_shape) {
      std::vector<std::string> row = field_texts(c);
      std::string notes;
      for (const auto& d : schema.directions) {
        const core::Case in_direction = with_direction(c, d);
        const Measured m = measured(results, in_direction);
        const core::Work work = core::work_of(in_direction);
        const double flops = work.flops;
        if (m.unstable()) {
          s.unstable_cells.push_back({s.rows.size(), row.size()});
          notes += (notes.empty() ? "" : "; ") + d + " unstable: " + m.result->reason;
        }
        row.push_back(m.ok() ? num(m.time_us) : m.status);
        row.push_back(m.ok() && flops > 0 ? num(flops / (m.time_us * 1e-6) / 1e12, "%.2f") : "");
        if (energy) {
          // mJ per operation, and work per joule: TFLOPS/W is FLOPs per J / 1e12, GB/s/W bytes per J / 1e9.
          const double joules = m.ok() ? m.result->counter("joules_per_op", -1) : -1;
          const double per_j = compute ? flops / 1e12 : work.bytes() / 1e9;
          const double given = m.ok() ? m.result->counter(compute ? "tflops_per_w" : "gb_per_s_per_w", -1) : -1;
          row.push_back(joules > 0 ? num(joules * 1e3, "%.4g") : "");
          row.push_back(given >= 0 ? num(given, "%.4g") : joules > 0 && per_j > 0 ? num(per_j / joules, "%.4g") : "");
        }
      }
      any_unstable = any_unstable || !notes.empty();
      if (sparse) {
        // DeepBench's dense column: the GEMM family's case of the same shape, where the results hold it.
        std::map<std::string, core::FieldValue> g = {{"m", c.values[0]}, {"n", c.values[1]}, {"k", c.values[2]}};
        const Measured dense = measured(results, core::make_case("gemm", "fwd", c.precision, g));
        const Measured sparse_time = measured(results, c);
        row.push_back(dense.ok() ? num(dense.time_us) : "");
        row.push_back(dense.ok() && sparse_time.ok() ? num(dense.time_us / sparse_time.time_us, "%.2f") : "");
      }
      if (allreduce) {  // nccl-tests' algbw and busbw
        const Measured m = measured(results, c);
        const double algbw = m.ok() ? core::work_of(c).bytes() / (m.time_us * 1e-6) / 1e9 : 0;
        const std::int64_t ranks = core::allreduce_problem(c).ranks;
        row.push_back(m.ok() ? num(algbw, "%.2f") : "");
        row.push_back(m.ok() ? num(algbw * core::busbw_factor(ranks), "%.2f") : "");
      }
      row.push_back(notes);
      s.rows.push_back(row);
    }
    // The notes column only where a case needs one: a run without unstable cases keeps its columns.
    if (any_unstable) s.header.push_back("notes");
    else
      for (auto& row : s.rows) row.pop_back();
    sheets.push_back(std::move(s));
  }
  Sheet specs;
  specs.name = "specs";
  specs.header = {"key", "value"};
  for (const auto& [k, v] : results.context) specs.rows.push_back({k, v});
  sheets.push_back(specs);
  return sheets;
}

std::string csv_text(const Sheet& s) {
  std::string out;
  for (std::size_t i = 0; i < s.header.size(); ++i) out += (i ? "," : "") + csv_field(s.header[i]);
  out += "\n";
  for (const auto& row : s.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_field(row[i]);
    out += "\n";
  }
  return out;
}

std::vector<std::string> write_csv_sheets(const std::vector<Sheet>& sheets, const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  std::vector<std::string> files;
  for (const auto& s : sheets) {
    const std::string path = (fs::path(dir) / (s.name + ".csv")).string();
    write_output_file(path, csv_text(s));  // never through a symbolic link
    files.push_back(path);
  }
  return files;
}

}  // namespace opmark::aggregate
