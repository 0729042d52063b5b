#include "aggregate/system_description.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <functional>

#include "core/error.h"
#include "core/yaml_nodes.h"

namespace opmark::aggregate {

const std::vector<std::pair<std::string, std::string>>& system_fields_from_context() {
  static const std::vector<std::pair<std::string, std::string>> fields = {
      {"gpu.model", "gpu"},
      {"gpu.count", "gpu_count_used"},
      {"gpu.memory_gib", "memory_gib"},
      {"gpu.compute_capability", "compute_capability"},
      {"host.cpu", "host_cpu"},
      {"host.hostname", "host"},
      {"software.driver", "driver_version"},
      {"software.cuda_driver", "cuda_driver_version"},
      {"software.cuda_runtime", "cuda_runtime_version"},
      {"software.cublaslt", "cublaslt_version"},
      {"software.cudnn", "cudnn_version"},
      {"software.cusparse", "cusparse_version"},
      {"software.nccl", "nccl_version"},
      {"opmark.version", "version"},
      {"opmark.git", "git"},
      {"opmark.rules_version", "rules_version"},
      {"run.command", "command"},
  };
  return fields;
}

const std::vector<std::string>& required_system_fields() {
  static const std::vector<std::string> fields = {
      "format", "division", "vendor", "system_name", "submitter", "gpu.model", "gpu.count",
      "software.cuda_runtime", "opmark.version", "opmark.git", "opmark.rules_version", "run.command",
      "run.started", "run.wall_s"};
  return fields;
}

std::string system_value(const std::map<std::string, std::string>& context, const std::string& context_key) {
  auto it = context.find(context_key);
  if (it == context.end()) return "";
  if (context_key != "memory_gib") return it->second;
  try {  // the context's full-precision float, rounded for people
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", std::stod(it->second));
    return buf;
  } catch (const std::exception&) {
    return it->second;
  }
}

std::string system_yaml(const std::map<std::string, std::string>& context, const Submitter& who) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << kBundleFormat;
  out << YAML::Key << "division" << YAML::Value << who.division;
  out << YAML::Key << "vendor" << YAML::Value << who.vendor;
  out << YAML::Key << "system_name" << YAML::Value << who.system_name;
  out << YAML::Key << "submitter" << YAML::Value << who.submitter;
  std::string section;
  for (const auto& [dotted, key] : system_fields_from_context()) {
    const std::string head = dotted.substr(0, dotted.find('.')), tail = dotted.substr(dotted.find('.') + 1);
    if (head != section) {
      if (!section.empty()) out << YAML::EndMap;
      out << YAML::Key << head << YAML::Value << YAML::BeginMap;
      section = head;
    }
    out << YAML::Key << tail << YAML::Value << YAML::DoubleQuoted << system_value(context, key);
  }
  // run: the context's command, then when and how long (the submitter's tool knows those).
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.0f", who.wall_s);
  out << YAML::Key << "started" << YAML::Value << YAML::DoubleQuoted << who.started;
  out << YAML::Key << "wall_s" << YAML::Value << wall;
  out << YAML::EndMap;
  out << YAML::Key << "modifications" << YAML::Value << YAML::DoubleQuoted << who.modifications;
  out << YAML::EndMap;
  return std::string("# A submission bundle's system description (results/README.md): written by opmark-aggregate "
                     "pack from the run's\n# context and the submitter's words; checked by opmark-aggregate check.\n") +
         out.c_str() + "\n";
}

std::vector<std::pair<std::string, SystemField>> read_system_fields(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw Error(path + ":1:1: expected a mapping of fields (format, division, vendor, ...)");
  std::vector<std::pair<std::string, SystemField>> out;
  // A system description has a few dozen fields; YAML's aliases can make a small text name the same map over and
  // over (2^30 fields from 30 lines), so the walk stops at a bound far above any description.
  constexpr std::size_t kMaxFields = 1000;
  std::size_t visited = 0;
  const auto at = [&](const YAML::Node& node) {
    const auto where = core::yaml::where_of(path, node);
    return path + ":" + std::to_string(where.line) + ":" + std::to_string(where.column);
  };
  std::function<void(const YAML::Node&, const std::string&)> walk = [&](const YAML::Node& node,
                                                                        const std::string& prefix) {
    // yaml-cpp keeps both entries of a key given twice and looks up one of them: walked here, both are seen.
    std::map<std::string, std::string> seen;  // key -> where first
    for (const auto& kv : node) {
      if (++visited > kMaxFields)
        throw Error(path + ": more than " + std::to_string(kMaxFields) + " fields: not a system description");
      if (!kv.first.IsScalar()) throw Error(at(kv.first) + ": a key that is no plain word");
      const std::string name = kv.first.Scalar(), key = prefix + name;
      if (name.find('.') != std::string::npos)
        throw Error(at(kv.first) + ": key '" + name + "' holds a dot: write nested fields as nested maps (gpu:\n  "
                    "model: ...), never as a dotted key");
      const auto [first, fresh] = seen.emplace(name, at(kv.first));
      if (!fresh) throw Error(at(kv.first) + ": field '" + key + "' is given twice (first at " + first->second + ")");
      const int line = core::yaml::where_of(path, kv.first).line;
      if (kv.second.IsMap()) walk(kv.second, key + ".");
      else if (kv.second.IsScalar() || kv.second.IsNull())
        out.push_back({key, {kv.second.IsNull() ? std::string() : kv.second.Scalar(), line}});
      else throw Error(at(kv.first) + ": field '" + key + "': expected a single value");
    }
  };
  walk(root, "");
  return out;
}

std::map<std::string, SystemField> read_system_yaml(const std::string& text, const std::string& path) {
  std::map<std::string, SystemField> out;
  for (auto& [key, field] : read_system_fields(text, path)) out.emplace(key, std::move(field));
  return out;
}

}  // namespace opmark::aggregate
