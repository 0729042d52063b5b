#pragma once
// Shape tables: YAML files, one per family, DeepBench style.
//
//   family: gemm
//   description: ...
//   sets:
//     train:                         # a named set: train, inference_server, inference_device, or our own
//       description: ...
//       precisions: [fp32, fp16]     # the precisions that apply to the set
//       directions: [fwd]            # optional, default: every direction of the family
//       symbols: {B: 32}             # optional defaults for expression symbols
//       rows:
//         - {m: 1760, n: 16, k: 1760, application: DeepSpeech}
//         - {m: B*128, n: 4096, k: 1024, model: BERT-large}
//
// A field value is a constant or an integer expression over symbols (core/expr.h). Every problem is reported
// as "file:line:column: field 'name': what is wrong"; unknown or repeated keys, keys that are not plain names,
// empty lists and values past a field's range (core/schema.h) are errors.
#include <set>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/error.h"
#include "core/expr.h"

namespace opmark::core {

struct Cell {
  std::string text;  // the value as written
  SourceLocation where;
};

struct Row {
  SourceLocation where;
  std::map<std::string, Cell> fields;  // schema fields given in the row
  std::string application;             // DeepBench's application column
  std::string model;                   // the model the shape comes from
  std::string note;
};

struct ShapeSet {
  std::string name;
  std::string description;
  SourceLocation where;
  std::vector<std::string> precisions;
  std::vector<std::string> directions;
  Symbols symbols;
  std::vector<Row> rows;
};

struct Table {
  std::string path;
  std::string family;
  std::string description;
  std::vector<ShapeSet> sets;
};

// A cell's value for a field: choice and fraction text as written, integers evaluated over `symbols` (null: the
// syntax is checked and 1 returned). Throws TableError pointing at the cell (and at the column of the offending
// symbol) when it does not evaluate; an unknown symbol names `symbol_flag` as the way to give it a value.
FieldValue evaluate_cell(const FieldSpec& spec, const Cell& cell, const Symbols* symbols,
                         const char* symbol_flag = "--opmark_symbols");

// Reads and validates a table. Throws TableError (file:line:column, field) or opmark::Error.
Table load_table(const std::string& path);
// The same from text; `path` is used in messages only.
Table parse_table(const std::string& yaml_text, const std::string& path);

// The shape tables in `dir`: every *.yaml directly in it with a `family:` key, sorted by name.
std::vector<std::string> find_table_files(const std::string& dir);

// The shape tables of each path: a folder's tables (find_table_files), or a table file itself.
std::vector<Table> load_tables(const std::vector<std::string>& paths);

// Every *.yaml directly in `dir` with a line starting with `top_key` (e.g. "model:"), sorted by name; `what`
// names the kind of file in the error for a missing folder. Shared by the shape and model tables.
std::vector<std::string> find_yaml_files(const std::string& dir, const std::string& top_key, const std::string& what);

// A whole text file (a table, model table, rules or areas file): a regular file of at most kMaxTextFileBytes
// (core/file_access.h); throws opmark::Error "PATH: cannot open WHAT (reason)", or naming a device, pipe or folder,
// or the size over the limit.
std::string read_text_file(const std::string& path, const std::string& what);

// Which cases to make. Empty sets mean "all".
struct Selection {
  std::set<std::string> families;
  std::set<std::string> sets;
  std::set<std::string> precisions;
  Symbols symbols;  // override the sets' own symbol defaults
};

// Checks that every set, precision and symbol the selection names (--opmark_set, --opmark_precision,
// --opmark_symbols) is in the tables it selects: a name that matches nothing would shrink the run, or leave a value
// unused, without a word. Throws opmark::Error naming the flag and listing what the selected tables have.
void check_selection(const std::vector<Table>& tables, const Selection& selection);

// Every (row, direction, precision) the selection keeps, as cases. A case named by several rows, sets or
// tables appears once, carrying all their sets, applications, models and source locations.
std::vector<Case> expand_tables(const std::vector<Table>& tables, const Selection& selection);

}  // namespace opmark::core
