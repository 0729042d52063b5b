#include "core/model_table.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "core/precision.h"
#include "core/yaml_nodes.h"

namespace opmark::core {
namespace {

const std::set<std::string> kTopKeys = {"model",    "area",          "task",             "source",   "mode",
                                        "inputs",   "memory_format", "framework_config", "measured", "ops",
                                        "graph"};
const std::set<std::string> kOpKeys = {"family", "direction", "calls", "source_op", "traced_us", "kernels"};
const std::set<std::string> kMemoryFormats = {"contiguous", "channels_last"};
// The framework configurations the tracer writes (extract_models.py --fused-rmsnorm): a misspelt one would read as
// a configuration no run had.
const std::set<std::string> kFrameworkConfigs = {"fused_rmsnorm"};
const std::set<std::string> kMeasuredKeys = {"device",    "precision",     "gpu_time_ms", "graph_ms", "eager_ms",
                                             "kernel_ms", "graph_suspect", "date",        "software"};
const std::string kOther = "other";
const Symbols kNoInputs;
const char* const kInputsFlag = "--opmark_inputs";  // how a user gives a model's input a value

using yaml::boolean;
using yaml::check_keys;
using yaml::join;
using yaml::number;
using yaml::one_of;
using yaml::scalar;
using yaml::where_of;

// Calls per pass: at most kMaxDimension (the default bound), far past any model's, so sums over a model's ops stay
// inside int64.
const FieldSpec kCallsSpec{"calls", FieldKind::positive_int, std::nullopt, {}, "", ""};

ModelOp parse_op(const std::string& path, const YAML::Node& node) {
  if (!node.IsMap()) throw TableError(where_of(path, node), "", "an op must be a map such as {family: gemm, ...}");
  ModelOp op;
  op.where = where_of(path, node);
  if (!node["family"]) throw TableError(op.where, "family", "required field is missing");
  op.family = scalar(path, node["family"], "family");
  const Schema* schema = nullptr;
  if (op.family != kOther) {
    if (!is_family(op.family)) {
      std::string known;
      for (const auto& f : known_families()) known += (known.empty() ? "" : ", ") + f;
      throw TableError(where_of(path, node["family"]), "family",
                       "unknown family '" + op.family + "' (known: " + known + ", and other)");
    }
    schema = &schema_for(op.family);
  }
  if (!node["calls"]) throw TableError(op.where, "calls", "required field is missing");
  op.calls = {scalar(path, node["calls"], "calls"), where_of(path, node["calls"])};
  evaluate_cell(kCallsSpec, op.calls, nullptr);  // syntax now; the value at expansion (it may use the inputs)
  if (node["source_op"]) op.source_op = scalar(path, node["source_op"], "source_op");
  if (node["traced_us"]) op.traced_us = number(path, node["traced_us"], "traced_us");
  if (const YAML::Node kernels = node["kernels"]) {
    if (!kernels.IsSequence())
      throw TableError(where_of(path, kernels), "kernels", "expected a list of kernel names, such as [\"name\"]");
    for (const auto& k : kernels) op.kernels.push_back(scalar(path, k, "kernels"));
  }
  if (node["direction"]) {
    op.direction = scalar(path, node["direction"], "direction");
    if (schema && !schema->has_direction(op.direction))
      throw TableError(where_of(path, node["direction"]), "direction",
                       "family '" + op.family + "' has no direction '" + op.direction + "'");
  } else if (schema) {
    op.direction = schema->directions.front();
  }
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (kOpKeys.count(key)) continue;
    if (!schema)
      throw TableError(where_of(path, kv.first), key, "an op of family 'other' has only " + join(kOpKeys));
    if (!schema->find_field(key))
      throw TableError(where_of(path, kv.first), key,
                       "unknown field for family '" + op.family + "' (fields: " + schema->field_list() +
                           "; op keys: " + join(kOpKeys) + ")");
    op.fields[key] = {scalar(path, kv.second, key), where_of(path, kv.second)};
  }
  if (schema)
    for (const auto& f : schema->fields)
      if (f.is_required() && !op.fields.count(f.name)) throw TableError(op.where, f.name, "required field is missing");
  return op;
}

// YYYY-MM-DD with a month 01-12 and a day 01-31 (no calendar check: the date is a label).
bool is_date(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (text[i] < '0' || text[i] > '9') return false;
  const int month = std::stoi(text.substr(5, 2)), day = std::stoi(text.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

ModelMeasurement parse_measurement(const std::string& path, const YAML::Node& measured) {
  if (!measured.IsMap())
    throw TableError(where_of(path, measured), "measured", "an entry must be a map such as {device: ..., graph_ms: ...}");
  check_keys(path, measured, kMeasuredKeys, "measured");
  ModelMeasurement mm;
  if (measured["device"]) mm.device = scalar(path, measured["device"], "device");
  if (measured["precision"]) mm.precision = scalar(path, measured["precision"], "precision");
  if (measured["gpu_time_ms"]) mm.gpu_time_ms = number(path, measured["gpu_time_ms"], "gpu_time_ms");
  // The newer times are positive where given (a score is divided by them).
  const auto time = [&](const char* key) -> std::optional<double> {
    if (!measured[key]) return std::nullopt;
    return number(path, measured[key], key, /*positive=*/true);
  };
  mm.graph_ms = time("graph_ms");
  mm.eager_ms = time("eager_ms");
  mm.kernel_ms = time("kernel_ms");
  if (measured["graph_suspect"]) mm.graph_suspect = boolean(path, measured["graph_suspect"], "graph_suspect");
  if (mm.eager_ms) mm.gpu_time_ms = *mm.eager_ms;
  if (measured["date"]) {
    mm.date = scalar(path, measured["date"], "date");
    if (!is_date(mm.date))
      throw TableError(where_of(path, measured["date"]), "date", "expected YYYY-MM-DD, got '" + mm.date + "'");
  }
  if (measured["software"]) mm.software = scalar(path, measured["software"], "software");
  return mm;
}

}  // namespace

bool is_variant(const ModelTable& model) {
  return model.memory_format != "contiguous" || !model.framework_config.empty();
}

const ModelMeasurement* find_measurement(const ModelTable& model, const std::string& device,
                                         const std::string& precision) {
  if (device.empty()) return nullptr;  // an unnamed GPU matches no entry
  for (const auto& mm : model.measured)
    if (mm.device == device && mm.precision == precision) return &mm;
  return nullptr;
}

namespace {

// graph: one list a call, [op row, the calls it waits on...], in the model's order: each waited-on call earlier, and
// each op row called as often as its `calls` says where that is a number.
std::vector<GraphCall> parse_graph(const std::string& path, const YAML::Node& graph, const std::vector<ModelOp>& ops) {
  if (!graph.IsSequence())
    throw TableError(where_of(path, graph), "graph", "expected a list of calls, each [op row, calls it waits on...]");
  std::vector<GraphCall> out;
  std::vector<std::int64_t> seen(ops.size(), 0);
  for (const auto& entry : graph) {
    const SourceLocation where = where_of(path, entry);
    if (!entry.IsSequence() || entry.size() == 0)
      throw TableError(where, "graph", "expected [op row, calls it waits on...], e.g. [3, 0, 2]");
    std::vector<std::size_t> numbers;
    for (const auto& n : entry) {
      std::int64_t v = -1;
      try {
        v = n.as<std::int64_t>();
      } catch (const YAML::Exception&) {
      }
      if (v < 0)
        throw TableError(where_of(path, n), "graph",
                         "expected a non-negative index, got '" + (n.IsScalar() ? n.Scalar() : std::string("a list")) +
                             "'");
      numbers.push_back(static_cast<std::size_t>(v));
    }
    GraphCall call{numbers.front(), {numbers.begin() + 1, numbers.end()}};
    if (call.op >= ops.size())
      throw TableError(where, "graph", "op row " + std::to_string(call.op) + " past the " +
                                           std::to_string(ops.size()) + " rows of ops");
    for (const std::size_t before : call.after)
      if (before >= out.size())
        throw TableError(where, "graph", "call " + std::to_string(out.size()) + " waits on call " +
                                             std::to_string(before) + ", which is not an earlier one");
    ++seen[call.op];
    out.push_back(std::move(call));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::int64_t calls = 0;
    const std::string& text = ops[i].calls.text;
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) calls = std::stoll(text);
    else continue;  // calls that depend on the inputs: not checked here
    if (seen[i] != calls)
      throw TableError(ops[i].calls.where, "calls",
                       std::to_string(calls) + " calls, but the graph calls op row " + std::to_string(i) + " " +
                           std::to_string(seen[i]) + " time(s)");
  }
  return out;
}

}  // namespace

ModelTable parse_model_table(const std::string& yaml_text, const std::string& path) {
  const YAML::Node root = yaml::parse(yaml_text, path);
  if (!root.IsMap()) throw TableError({path, 1, 1}, "", "a model table is a map with 'model', 'inputs' and 'ops'");
  check_keys(path, root, kTopKeys, "a model table");
  ModelTable m;
  m.path = path;
  if (!root["model"]) throw TableError({path, 1, 1}, "model", "missing: the model's name");
  m.name = scalar(path, root["model"], "model");
  if (root["area"]) m.area = scalar(path, root["area"], "area");
  if (root["task"]) m.task = scalar(path, root["task"], "task");
  if (root["source"]) m.source = scalar(path, root["source"], "source");
  m.mode = root["mode"] ? scalar(path, root["mode"], "mode") : "inference";
  if (const YAML::Node format = root["memory_format"])
    m.memory_format = one_of(path, format, "memory_format", kMemoryFormats);
  if (const YAML::Node config = root["framework_config"])
    m.framework_config = one_of(path, config, "framework_config", kFrameworkConfigs);
  if (const YAML::Node inputs = root["inputs"]) {
    if (!inputs.IsMap()) throw TableError(where_of(path, inputs), "inputs", "expected a map such as {B: 32}");
    for (const auto& kv : inputs) {
      // Each input is a size (symbol_spec): a negative or zero default is an error where it is written.
      const std::string sym = kv.first.as<std::string>();
      const FieldSpec spec = symbol_spec(sym);
      const Cell cell{scalar(path, kv.second, sym), where_of(path, kv.second)};
      const FieldValue v = evaluate_cell(spec, cell, &kNoInputs);
      const std::string problem = check_value(spec, v);
      if (!problem.empty()) throw TableError(cell.where, sym, problem);
      m.inputs[sym] = std::get<std::int64_t>(v);
    }
  }
  if (const YAML::Node measured = root["measured"]) {
    // A list of entries, one per GPU; an older table's single map is a list of one.
    if (measured.IsMap()) {
      m.measured.push_back(parse_measurement(path, measured));
    } else if (measured.IsSequence()) {
      for (const auto& entry : measured) {
        ModelMeasurement mm = parse_measurement(path, entry);
        for (const auto& seen : m.measured)
          if (seen.device == mm.device && seen.precision == mm.precision)
            throw TableError(where_of(path, entry), "measured",
                             "a second entry for device '" + mm.device + "' in " + mm.precision);
        m.measured.push_back(std::move(mm));
      }
    } else {
      throw TableError(where_of(path, measured), "measured", "expected a list of maps, one per device");
    }
  }
  const YAML::Node ops = root["ops"];
  if (!ops || !ops.IsSequence()) throw TableError({path, 1, 1}, "ops", "missing: the list of operator calls");
  if (ops.size() == 0) throw TableError(where_of(path, ops), "ops", "empty: a model needs at least one operator call");
  for (const auto& op : ops) m.ops.push_back(parse_op(path, op));
  if (const YAML::Node graph = root["graph"]) m.graph = parse_graph(path, graph, m.ops);
  return m;
}

double critical_path_ms(const ModelTable& model, const std::vector<double>& per_call_ms) {
  std::vector<double> finish(model.graph.size(), 0.0);
  double longest = 0;
  for (std::size_t i = 0; i < model.graph.size(); ++i) {
    const GraphCall& call = model.graph[i];
    double start = 0;
    for (const std::size_t before : call.after) start = std::max(start, finish[before]);
    finish[i] = start + (call.op < per_call_ms.size() ? per_call_ms[call.op] : 0.0);
    longest = std::max(longest, finish[i]);
  }
  return longest;
}

ModelTable load_model_table(const std::string& path) {
  return parse_model_table(read_text_file(path, "model table"), path);
}

std::vector<std::string> find_model_files(const std::string& dir) { return find_yaml_files(dir, "model:", "model tables"); }

std::vector<ModelTable> load_models(const std::vector<std::string>& names, const std::vector<std::string>& shape_dirs,
                                   const std::string& tables_folder) {
  namespace fs = std::filesystem;
  std::vector<ModelTable> known;
  bool found_folder = false;
  for (const auto& dir : shape_dirs) {
    const fs::path folder = fs::path(dir) / tables_folder;
    if (!fs::is_directory(folder)) continue;
    found_folder = true;
    for (const auto& file : find_model_files(folder.string())) known.push_back(load_model_table(file));
  }
  std::vector<ModelTable> out;
  for (const auto& name : names) {
    // A folder that is not there would make "all" mean none: rules naming it would silently require no model case.
    if (!found_folder && !fs::is_regular_file(name)) {
      std::string dirs;
      for (const auto& dir : shape_dirs) dirs += (dirs.empty() ? "" : ", ") + dir;
      throw Error("no model tables folder '" + tables_folder + "' in " + (dirs.empty() ? "no shapes folder" : dirs));
    }
    // "all": every forward-pass table of the framework as configured by default (what the areas score; a variant
    // is asked for by name); "all_train": every such training-step table.
    if (name == "all" || name == "all_train") {
      for (const auto& m : known)
        if ((m.mode == "train") == (name == "all_train") && !is_variant(m)) out.push_back(m);
      continue;
    }
    if (fs::is_regular_file(name)) {
      out.push_back(load_model_table(name));
      continue;
    }
    auto it = std::find_if(known.begin(), known.end(), [&](const ModelTable& m) { return m.name == name; });
    if (it == known.end()) {
      std::string list;
      for (const auto& m : known) list += (list.empty() ? "" : ", ") + m.name;
      throw Error("no model '" + name + "' (known: " + (list.empty() ? "none" : list) +
                  "; or give a path to a model table)");
    }
    out.push_back(*it);
  }
  return out;
}

namespace {

// The inputs a model knows: its defaults and the symbols its calls and integer fields use.
void add_model_inputs(const ModelTable& model, std::set<std::string>* out) {
  for (const auto& [name, value] : model.inputs) out->insert(name);
  for (const auto& op : model.ops) {
    for (const auto& sym : symbols_in(op.calls.text)) out->insert(sym);
    if (op.family == kOther) continue;
    const Schema& schema = schema_for(op.family);
    for (const auto& [name, cell] : op.fields) {
      const FieldKind kind = schema.find_field(name)->kind;
      if (kind == FieldKind::positive_int || kind == FieldKind::count)
        for (const auto& sym : symbols_in(cell.text)) out->insert(sym);
    }
  }
}

}  // namespace

void check_inputs(const std::vector<ModelTable>& models, const Symbols& inputs) {
  std::set<std::string> known;
  for (const auto& m : models) add_model_inputs(m, &known);
  for (const auto& [name, value] : inputs)
    if (!known.count(name))
      throw Error("--opmark_inputs: the selected models have no input '" + name + "' (their inputs: " +
                  (known.empty() ? std::string("none") : join(known)) + ")");
}

std::vector<ModelCall> model_calls(const ModelTable& model, const Symbols& inputs, const std::string& precision) {
  Symbols symbols = model.inputs;
  for (const auto& [k, v] : inputs) symbols[k] = v;
  std::vector<ModelCall> out;
  for (const auto& op : model.ops) {
    ModelCall call{&op, std::nullopt, 0};
    const FieldValue calls = evaluate_cell(kCallsSpec, op.calls, &symbols, kInputsFlag);
    const std::string problem = check_value(kCallsSpec, calls);
    if (!problem.empty()) throw TableError(op.calls.where, "calls", problem + " (with " + op.calls.text + ")");
    call.calls = std::get<std::int64_t>(calls);
    if (op.family != kOther && !schema_for(op.family).has_precision(precision)) {
      call.precision_not_run = true;
    } else if (op.family != kOther) {
      const Schema& schema = schema_for(op.family);
      std::map<std::string, FieldValue> given;
      for (const auto& [name, cell] : op.fields) {
        const FieldSpec& spec = *schema.find_field(name);
        FieldValue v = evaluate_cell(spec, cell, &symbols, kInputsFlag);
        const std::string bad = check_value(spec, v);
        if (!bad.empty()) throw TableError(cell.where, name, bad + " (with " + cell.text + ")");
        given[name] = v;
      }
      try {
        call.c = make_case(op.family, op.direction, precision, given);
      } catch (const Error& e) {
        throw TableError(op.where, "", std::string(e.what()) + " (model " + model.name + ", " + precision + ")");
      }
      call.c->models.insert(model.name);
      call.c->sources.push_back(op.where);
    }
    out.push_back(std::move(call));
  }
  return out;
}

std::vector<Case> model_cases(const std::vector<ModelTable>& models, const Symbols& inputs,
                              const std::vector<std::string>& precisions) {
  std::vector<Case> cases;
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& model : models) {
    for (const auto& precision : precisions) {
      for (auto& call : model_calls(model, inputs, precision)) {
        if (!call.c) continue;  // family "other", or a precision the family does not run
        const std::string name = make_case_name(*call.c);
        auto [it, inserted] = index.emplace(name, cases.size());
        if (inserted) {
          cases.push_back(std::move(*call.c));
          continue;
        }
        Case& kept = cases[it->second];
        kept.models.insert(model.name);
        kept.sources.push_back(call.op->where);
      }
    }
  }
  return cases;
}

}  // namespace opmark::core
