#include "aggregate/scores.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/run_context.h"
#include "core/table.h"
#include "core/yaml_nodes.h"

namespace opmark::aggregate {

int fused_calls(const std::string& source_op) {
  const auto open = source_op.find(" (");
  return open == std::string::npos
             ? 1
             : 1 + static_cast<int>(std::count(source_op.begin() + static_cast<long>(open), source_op.end(), '+'));
}

// The case's longest kernel by its traced times (kernel0_us, kernel1_us, ... in the kernels' order), else its first.
std::string longest_kernel(const std::vector<std::string>& kernels, const CaseResult& r) {
  std::size_t best = 0;
  double best_us = -1;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const double us = r.counter("kernel" + std::to_string(i) + "_us", -1);
    if (us > best_us) best = i, best_us = us;
  }
  return kernels[best];
}

ModelScore score_model(const core::ModelTable& model, const core::Symbols& inputs, const std::string& precision,
                       const ResultSet& results) {
  ModelScore s;
  s.name = model.name;
  s.area = model.area;
  s.memory_format = model.memory_format;
  s.framework_config = model.framework_config;
  const auto gpu = results.context.find("gpu");
  const core::ModelMeasurement* mine =
      core::find_measurement(model, gpu == results.context.end() ? "" : gpu->second, precision);
  for (const auto& mm : model.measured)
    if (&mm != mine) s.other_measurements.push_back(mm);
  if (!model.measured.empty()) s.traced_device = model.measured.front().device;
  if (mine) {
    s.measured_ms = mine->gpu_time_ms;
    s.measured_device = mine->device;
    s.measured_precision = mine->precision;
    s.graph_ms = mine->graph_ms;
    s.kernel_ms = mine->kernel_ms;
    s.graph_suspect = mine->graph_suspect;
  }
  std::vector<double> per_call_ms(model.ops.size(), 0.0);  // by op row: the critical path's weights
  for (const auto& call : core::model_calls(model, inputs, precision)) {
    s.calls += call.calls;
    const double traced = call.op->traced_us * static_cast<double>(call.calls);
    s.traced_us += traced;
    FamilyTime& family = s.families[call.op->family];
    family.calls += call.calls;
    family.traced_ms += traced * 1e-3;
    if (!call.c) continue;  // family other, or a precision the family does not run: not covered
    const std::string name = core::make_case_name(*call.c);
    auto it = results.cases.find(name);
    if (it == results.cases.end() || !it->second.timed()) {
      s.missing.push_back(name);
      continue;
    }
    if (it->second.unstable() && std::find(s.unstable.begin(), s.unstable.end(), name) == s.unstable.end())
      s.unstable.push_back(name);
    s.covered_calls += call.calls;
    s.covered_traced_us += traced;
    const double ms = static_cast<double>(call.calls) * it->second.time_us * 1e-3;
    per_call_ms[static_cast<std::size_t>(call.op - model.ops.data())] = it->second.time_us * 1e-3;
    s.score_ms += ms;
    family.score_ms += ms;
    family.traced_scored_ms += traced * 1e-3;
    family.scored_calls += call.calls;
    const int layout = call.c->schema().index_of("layout");
    if (layout >= 0 && core::to_string(call.c->values[static_cast<std::size_t>(layout)]) == "NCHW")
      family.nchw_scored_calls += call.calls;
    if (!call.op->kernels.empty()) family.traced_kernels_ms[call.op->kernels.front()] += traced * 1e-3;
    for (const auto& line : it->second.lines)
      if (line.kernels && !line.kernels->empty()) {
        family.our_kernels_ms[longest_kernel(*line.kernels, it->second)] += ms;
        break;
      }
    if (fused_calls(call.op->source_op) > 1) {
      if (family.fused_source_op.empty()) family.fused_source_op = call.op->source_op;
      family.fused_traced_ms += traced * 1e-3;
    }
  }
  if (!model.graph.empty()) s.parallel_ms = core::critical_path_ms(model, per_call_ms);
  return s;
}

bool ModelScore::has_real_times() const {
  if (graph_ms || kernel_ms) return true;
  return std::any_of(other_measurements.begin(), other_measurements.end(),
                     [](const core::ModelMeasurement& m) { return m.graph_ms || m.kernel_ms; });
}

ScoreCheck check_score(const ModelScore& score, const std::string& run_gpu) {
  ScoreCheck c;
  c.model = score.name;
  c.score_ms = score.score_ms;
  // A suspect graph time is no real time: the check goes on as if the capture had failed.
  const std::optional<double> graph_ms = score.graph_suspect ? std::nullopt : score.graph_ms;
  if (score.measured_device.empty() && !score.other_measurements.empty()) {
    std::string devices;
    for (const auto& m : score.other_measurements)
      devices += (devices.empty() ? "" : ", ") + (m.device.empty() ? std::string("an unnamed GPU") : m.device) +
                 (m.precision.empty() ? "" : " " + m.precision);
    c.why_not = "the table has no measured time on " + (run_gpu.empty() ? std::string("an unnamed GPU") : run_gpu) +
                " (it has " + devices + ")";
  } else if (!graph_ms && !score.kernel_ms) {
    c.why_not = score.graph_suspect ? "the table's graph_ms is suspect and it has no kernel_ms (retrace it on a GPU)"
                                    : "the table has no graph_ms or kernel_ms (retrace it on a GPU)";
  } else if (score.measured_device.empty() || run_gpu.empty() || score.measured_device != run_gpu) {
    c.why_not = "traced on " + (score.measured_device.empty() ? std::string("an unnamed GPU") : score.measured_device) +
                ", run on " + (run_gpu.empty() ? std::string("an unnamed GPU") : run_gpu);
  } else if (graph_ms) {
    c.real_ms = graph_ms;
    c.real_kind = "graph";
  } else {
    c.real_ms = score.kernel_ms;  // the graph capture failed where the table was traced, or its time is suspect
    c.real_kind = "kernel";
  }
  return c;
}

std::optional<core::L2Mode> l2_mode(const std::map<std::string, std::string>& context) {
  return core::run_parameters_of(context).l2;
}

std::string hot_cold_verdict(double hot_ms, double cold_ms, double real_ms) {
  const double low = std::min(hot_ms, cold_ms), high = std::max(hot_ms, cold_ms);
  if (real_ms < low) return "below hot";
  if (real_ms > high) return "above cold";
  return "between";
}

std::vector<Area> load_areas(const std::string& path) {
  const YAML::Node root = core::yaml::parse(core::read_text_file(path, "areas file"), path);
  const auto where = [&](const YAML::Node& n) { return core::yaml::where_of(path, n); };
  const YAML::Node areas = root["areas"];
  if (!areas || !areas.IsMap()) throw TableError({path, 1, 1}, "areas", "missing: a map of named areas");
  // The models the areas may name: the tables of the models folder beside the areas file, where there is one.
  std::set<std::string> known;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path() / "models";
  if (std::filesystem::is_directory(folder))
    for (const auto& file : core::find_model_files(folder.string())) known.insert(core::load_model_table(file).name);
  const auto text = [&](const YAML::Node& n, const char* field) {  // a scalar, or an error naming the file and line
    if (!n.IsScalar()) throw TableError(where(n), field, "expected a name, got a list or a map");
    return n.Scalar();
  };
  std::vector<Area> out;
  for (const auto& kv : areas) {
    Area a;
    a.name = text(kv.first, "areas");
    if (!kv.second.IsMap() || !kv.second["models"] || !kv.second["models"].IsSequence())
      throw TableError(where(kv.second), "models", "area '" + a.name + "' must list its models");
    if (kv.second["description"]) a.description = text(kv.second["description"], "description");
    for (const auto& m : kv.second["models"]) {
      const std::string name = text(m, "models");
      if (std::find(a.models.begin(), a.models.end(), name) != a.models.end())
        throw TableError(where(m), "models", "area '" + a.name + "' names model '" + name + "' twice");
      if (!known.empty() && !known.count(name))
        throw TableError(where(m), "models", "area '" + a.name + "' names model '" + name + "', which has no table in " +
                                                 folder.string());
      a.models.push_back(name);
    }
    out.push_back(a);
  }
  return out;
}

AreaScore score_area(const Area& area, const std::vector<ModelScore>& scores) {
  AreaScore a;
  a.name = area.name;
  // sum_i (N_i / N_models) C_i = (sum over the models of their sums of calls x time) / N_models
  double total = 0;
  for (const auto& s : scores)
    for (const auto& m : area.models)
      if (s.name == m) {
        total += s.score_ms;
        a.models.push_back(m);
        a.partial = a.partial || s.partial();
        a.scored = a.scored || s.covered_calls > 0;
      }
  a.score_ms = a.models.empty() ? 0.0 : total / static_cast<double>(a.models.size());
  return a;
}

}  // namespace opmark::aggregate
