#include "core/table.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "core/file_access.h"
#include "core/precision.h"
#include "core/yaml_nodes.h"

namespace opmark::core {
namespace {

const std::set<std::string> kRowNotes = {"application", "model", "note"};
const std::set<std::string> kSetKeys = {"description", "precisions", "directions", "symbols", "rows"};
const std::set<std::string> kTopKeys = {"family", "description", "sets"};
const Symbols kNoSymbols;

using yaml::join;
using yaml::scalar;
using yaml::where_of;

// A non-empty list of plain values: an empty one would give no cases without a word.
std::vector<std::string> scalar_list(const std::string& path, const YAML::Node& node, const std::string& field) {
  if (!node.IsSequence()) throw TableError(where_of(path, node), field, "expected a list such as [a, b]");
  if (node.size() == 0) throw TableError(where_of(path, node), field, "empty: list at least one");
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(scalar(path, item, field));
  return out;
}

// A set's symbols: each a size (symbol_spec), so a negative or zero default is an error where it is written.
Symbols parse_symbols(const std::string& path, const YAML::Node& node) {
  if (!node.IsMap()) throw TableError(where_of(path, node), "symbols", "expected a map such as {B: 32}");
  Symbols out;
  for (const auto& kv : node) {
    const std::string sym = kv.first.as<std::string>();
    const FieldSpec spec = symbol_spec(sym);
    const Cell cell{scalar(path, kv.second, sym), where_of(path, kv.second)};
    const FieldValue v = evaluate_cell(spec, cell, &kNoSymbols);
    const std::string problem = check_value(spec, v);
    if (!problem.empty()) throw TableError(cell.where, sym, problem);
    out[sym] = std::get<std::int64_t>(v);
  }
  return out;
}

Row parse_row(const std::string& path, const Schema& schema, const YAML::Node& node) {
  if (!node.IsMap()) throw TableError(where_of(path, node), "", "a row must be a map such as {m: 1, n: 2}");
  Row row;
  row.where = where_of(path, node);
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& value = kv.second;
    if (kRowNotes.count(key)) {
      std::string text = scalar(path, value, key);
      (key == "application" ? row.application : key == "model" ? row.model : row.note) = text;
      continue;
    }
    const FieldSpec* spec = schema.find_field(key);
    if (!spec)
      throw TableError(where_of(path, kv.first), key,
                       "unknown field for family '" + schema.family + "' (fields: " + schema.field_list() +
                           "; notes: " + join(kRowNotes) + ")");
    Cell cell{scalar(path, value, key), where_of(path, value)};
    // Constants are checked now, so a bad value is reported at load time even if no case uses it.
    FieldValue v = evaluate_cell(*spec, cell, nullptr);
    bool constant = spec->kind == FieldKind::choice || spec->kind == FieldKind::fraction || symbols_in(cell.text).empty();
    if (constant) {
      v = evaluate_cell(*spec, cell, &kNoSymbols);
      std::string problem = check_value(*spec, v);
      if (!problem.empty()) throw TableError(cell.where, key, problem);
    }
    row.fields[key] = cell;
  }
  for (const auto& f : schema.fields)
    if (f.is_required() && !row.fields.count(f.name))
      throw TableError(row.where, f.name, "required field is missing");
  return row;
}

ShapeSet parse_set(const std::string& path, const Schema& schema, const std::string& name, const YAML::Node& node) {
  ShapeSet set;
  set.name = name;
  set.where = where_of(path, node);
  if (!node.IsMap()) throw TableError(set.where, "", "set '" + name + "' must be a map with precisions and rows");
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!kSetKeys.count(key))
      throw TableError(where_of(path, kv.first), key, "unknown key in set '" + name + "' (keys: " + join(kSetKeys) + ")");
  }
  if (node["description"]) set.description = scalar(path, node["description"], "description");
  if (!node["precisions"]) throw TableError(set.where, "precisions", "set '" + name + "' must list its precisions");
  set.precisions = scalar_list(path, node["precisions"], "precisions");
  for (std::size_t i = 0; i < set.precisions.size(); ++i)
    if (!schema.has_precision(set.precisions[i]))
      throw TableError(where_of(path, node["precisions"][i]), "precisions",
                       "family '" + schema.family + "' has no precision '" + set.precisions[i] + "'");
  if (node["directions"]) {
    set.directions = scalar_list(path, node["directions"], "directions");
    for (std::size_t i = 0; i < set.directions.size(); ++i)
      if (!schema.has_direction(set.directions[i]))
        throw TableError(where_of(path, node["directions"][i]), "directions",
                         "family '" + schema.family + "' has no direction '" + set.directions[i] + "'");
  } else {
    set.directions = schema.directions;
  }
  if (const YAML::Node symbols = node["symbols"]) set.symbols = parse_symbols(path, symbols);
  const YAML::Node rows = node["rows"];
  if (!rows || !rows.IsSequence()) throw TableError(set.where, "rows", "set '" + name + "' must have a list of rows");
  if (rows.size() == 0) throw TableError(where_of(path, rows), "rows", "empty: set '" + name + "' has no rows");
  for (const auto& r : rows) set.rows.push_back(parse_row(path, schema, r));
  return set;
}

}  // namespace

FieldValue evaluate_cell(const FieldSpec& spec, const Cell& cell, const Symbols* symbols, const char* symbol_flag) {
  if (spec.kind == FieldKind::choice || spec.kind == FieldKind::fraction) return cell.text;
  try {
    if (!symbols) {
      symbols_in(cell.text);
      return std::int64_t{1};
    }
    return evaluate(cell.text, *symbols);
  } catch (const ExprError& e) {
    SourceLocation at = cell.where;
    at.column += static_cast<int>(e.offset());
    std::string what = e.what();
    if (what.rfind("unknown symbol", 0) == 0) what += std::string(" (give it a value with ") + symbol_flag + "=NAME=VALUE)";
    throw TableError(at, spec.name, what);
  }
}

Table parse_table(const std::string& yaml_text, const std::string& path) {
  const YAML::Node root = yaml::parse(yaml_text, path);
  if (!root.IsMap()) throw TableError({path, 1, 1}, "", "a shape table is a map with 'family' and 'sets'");
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (!kTopKeys.count(key))
      throw TableError(where_of(path, kv.first), key, "unknown key (keys: " + join(kTopKeys) + ")");
  }
  Table table;
  table.path = path;
  if (!root["family"]) throw TableError({path, 1, 1}, "family", "missing: which family the table is for");
  table.family = scalar(path, root["family"], "family");
  if (!is_family(table.family)) {
    std::string known;
    for (const auto& f : known_families()) known += (known.empty() ? "" : ", ") + f;
    throw TableError(where_of(path, root["family"]), "family",
                     "unknown family '" + table.family + "' (known: " + known + ")");
  }
  if (root["description"]) table.description = scalar(path, root["description"], "description");
  const YAML::Node sets = root["sets"];
  if (!sets || !sets.IsMap()) throw TableError({path, 1, 1}, "sets", "missing: a map of named sets");
  if (sets.size() == 0) throw TableError(where_of(path, sets), "sets", "empty: a table needs at least one set");
  const Schema& schema = schema_for(table.family);
  for (const auto& kv : sets) table.sets.push_back(parse_set(path, schema, kv.first.as<std::string>(), kv.second));
  return table;
}

Table load_table(const std::string& path) { return parse_table(read_text_file(path, "shape table"), path); }

std::string read_text_file(const std::string& path, const std::string& what) {
  return read_regular_file(path, what, kMaxTextFileBytes);
}

std::vector<std::string> find_yaml_files(const std::string& dir, const std::string& top_key, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a folder of " + what);
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    // A FIFO or a device named *.yaml would block the read or be skipped without a word: either way a table the user
    // meant to give would be missing from the run.
    if (!entry.is_regular_file(ec) && !entry.is_directory(ec))
      throw Error(entry.path().string() + ": a .yaml entry that is no regular file (a FIFO, socket or device) among " +
                  "the " + what + ": remove it");
    if (!entry.is_regular_file(ec)) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(top_key, 0) == 0) {
        files.push_back(entry.path().string());
        break;
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A shape table says which family it is for; other YAML (areas, model lists) is not one.
std::vector<std::string> find_table_files(const std::string& dir) { return find_yaml_files(dir, "family:", "shape tables"); }

std::vector<Table> load_tables(const std::vector<std::string>& paths) {
  std::vector<Table> tables;
  for (const auto& path : paths) {
    if (std::filesystem::is_directory(path)) {
      for (const auto& file : find_table_files(path)) tables.push_back(load_table(file));
    } else {
      tables.push_back(load_table(path));
    }
  }
  return tables;
}

std::vector<Case> expand_tables(const std::vector<Table>& tables, const Selection& selection) {
  std::vector<Case> cases;
  std::unordered_map<std::string, std::size_t> index;  // name -> position in `cases`
  for (const auto& table : tables) {
    if (!selection.families.empty() && !selection.families.count(table.family)) continue;
    const Schema& schema = schema_for(table.family);
    for (const auto& set : table.sets) {
      if (!selection.sets.empty() && !selection.sets.count(set.name)) continue;
      Symbols symbols = set.symbols;
      for (const auto& [k, v] : selection.symbols) symbols[k] = v;
      for (const auto& row : set.rows) {
        std::map<std::string, FieldValue> given;
        for (const auto& [name, cell] : row.fields) {
          const FieldSpec& spec = *schema.find_field(name);
          FieldValue v = evaluate_cell(spec, cell, &symbols);
          std::string problem = check_value(spec, v);
          if (!problem.empty()) throw TableError(cell.where, name, problem + " (with " + cell.text + ")");
          given[name] = v;
        }
        for (const auto& direction : set.directions) {
          for (const auto& precision : set.precisions) {
            if (!selection.precisions.empty() && !selection.precisions.count(precision)) continue;
            Case c;
            try {
              c = make_case(table.family, direction, precision, given);
            } catch (const Error& e) {  // a check across fields: point at the row
              throw TableError(row.where, "", std::string(e.what()) + " (" + direction + ", " + precision + ")");
            }
            std::string name = make_case_name(c);
            auto [it, inserted] = index.emplace(name, cases.size());
            if (inserted) cases.push_back(std::move(c));
            Case& kept = cases[it->second];
            kept.sets.insert(set.name);
            if (!row.application.empty()) kept.applications.insert(row.application);
            if (!row.model.empty()) kept.models.insert(row.model);
            kept.sources.push_back(row.where);
          }
        }
      }
    }
  }
  return cases;
}

namespace {

bool is_integer_kind(FieldKind kind) { return kind == FieldKind::positive_int || kind == FieldKind::count; }

// The symbols a set knows: its own defaults and those its rows' expressions use.
void add_set_symbols(const Schema& schema, const ShapeSet& set, std::set<std::string>* out) {
  for (const auto& [name, value] : set.symbols) out->insert(name);
  for (const auto& row : set.rows)
    for (const auto& [name, cell] : row.fields)
      if (is_integer_kind(schema.find_field(name)->kind))
        for (const auto& sym : symbols_in(cell.text)) out->insert(sym);
}

std::string listing(const std::set<std::string>& items) { return items.empty() ? "none" : join(items); }

}  // namespace

void check_selection(const std::vector<Table>& tables, const Selection& selection) {
  std::set<std::string> sets, precisions, symbols;  // what the selected tables, and then sets, have
  for (const auto& table : tables) {
    if (!selection.families.empty() && !selection.families.count(table.family)) continue;
    for (const auto& set : table.sets) {
      sets.insert(set.name);
      if (!selection.sets.empty() && !selection.sets.count(set.name)) continue;
      precisions.insert(set.precisions.begin(), set.precisions.end());
      add_set_symbols(schema_for(table.family), set, &symbols);
    }
  }
  for (const auto& name : selection.sets)
    if (!sets.count(name))
      throw Error("--opmark_set: the selected tables have no set '" + name + "' (their sets: " + listing(sets) + ")");
  for (const auto& name : selection.precisions)
    if (!precisions.count(name))
      throw Error("--opmark_precision: the selected sets have no precision '" + name + "' (their precisions: " +
                  listing(precisions) + ")");
  for (const auto& [name, value] : selection.symbols)
    if (!symbols.count(name))
      throw Error("--opmark_symbols: the selected sets use no symbol '" + name + "' (their symbols: " +
                  listing(symbols) + ")");
}

}  // namespace opmark::core
