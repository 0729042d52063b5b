#include "aggregate/bundle.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "aggregate/score_report.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/system_description.h"
#include "core/error.h"
#include "core/model_table.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {

std::string default_shapes_dir() {
  if (fs::is_directory(OPMARK_DEFAULT_SHAPES_DIR)) return OPMARK_DEFAULT_SHAPES_DIR;
  return "shapes";
}

std::string raw_file(const std::string& dir, const std::string& rel) {
  const fs::path plain = fs::path(dir) / rel, packed = fs::path(dir) / (rel + ".gz");
  return (!fs::exists(plain) && fs::exists(packed) ? packed : plain).string();
}

core::Suite rules_for_run(const std::string& rules_path, const std::map<std::string, std::string>& context,
                          std::string* note) {
  core::Suite rules = core::load_suite(rules_path);
  const auto it = context.find("rules_version");
  if (it == context.end() || it->second == std::to_string(rules.rules_version)) return rules;
  // Only a plain version number names a file: the context is the run's text, not a path to follow.
  const std::string& version = it->second;
  if (version.empty() || version.size() > 6 || version.find_first_not_of("0123456789") != std::string::npos)
    return rules;
  const fs::path earlier = fs::path(rules_path).parent_path() / ("submission_v" + version + ".yaml");
  if (!fs::is_regular_file(earlier)) return rules;
  core::Suite kept = core::load_suite(earlier.string());
  if (std::to_string(kept.rules_version) != version) return rules;  // a misnamed file: the mismatch is reported
  if (note)
    *note = "the run was made under rules version " + version + ": using its rules " + earlier.string() +
            " (" + rules_path + " are version " + std::to_string(rules.rules_version) + ")";
  return kept;
}

std::map<std::string, std::string> derived_files(const ResultSet& results, const core::Suite& rules,
                                                 const std::vector<core::ModelTable>& models,
                                                 const std::string& shapes_dir) {
  std::map<std::string, std::string> files;
  const ScoreReport report =
      score_report(results, models, (fs::path(shapes_dir) / "areas.yaml").string(), {}, rules.model_precision);
  // The label is the path inside the bundle, so the file is the same wherever the bundle lives.
  files[bundle_path::scores] = score_report_json(report, results, bundle_path::results, rules.model_precision).dump(2) + "\n";
  for (const auto& sheet : deepbench_sheets(results))
    files[std::string(bundle_path::spreadsheet) + "/" + sheet.name + ".csv"] = csv_text(sheet);
  return files;
}

namespace {

struct Flags {
  std::string bundle, rules, shapes;
  Submitter who;
  bool rederive = false;  // pack: rewrite only the derived files (system.yaml stays)
};

Flags parse_flags(int argc, char** argv, bool pack) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (arg.rfind("--", 0) != 0) {
      if (!f.bundle.empty()) throw Error("one bundle folder expected, got '" + f.bundle + "' and '" + arg + "'");
      f.bundle = arg;
    } else if (key == "--rules") f.rules = value;
    else if (key == "--shapes") f.shapes = value;
    else if (pack && arg == "--rederive") f.rederive = true;
    else if (pack && key == "--division") f.who.division = value;
    else if (pack && key == "--vendor") f.who.vendor = value;
    else if (pack && key == "--system-name") f.who.system_name = value;
    else if (pack && key == "--submitter") f.who.submitter = value;
    else if (pack && key == "--modifications") f.who.modifications = value;
    else if (pack && key == "--started") f.who.started = value;
    else if (pack && key == "--wall-s") {
      char* end = nullptr;
      f.who.wall_s = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || f.who.wall_s < 0) throw Error("--wall-s: expected seconds, got '" + value + "'");
    } else {
      throw Error("unknown flag " + key + (pack ? " (pack takes --vendor, --system-name, --submitter, --division, "
                                                  "--modifications, --started, --wall-s, --rederive, --rules, --shapes)"
                                                : " (check takes --rules and --shapes)"));
    }
  }
  if (f.bundle.empty()) throw Error(std::string("usage: opmark-aggregate ") + (pack ? "pack" : "check") + " BUNDLE ...");
  if (f.shapes.empty()) f.shapes = default_shapes_dir();
  if (f.rules.empty()) f.rules = (fs::path(f.shapes) / "submission.yaml").string();
  return f;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) throw Error(path.string() + ": cannot write");
}

void validate_submitter(const Submitter& who) {
  if (who.division != "closed" && who.division != "open")
    throw Error("--division: expected closed or open, got '" + who.division + "'");
  for (const auto& [flag, value] : {std::pair<const char*, std::string>{"--vendor", who.vendor},
                                    {"--system-name", who.system_name}, {"--submitter", who.submitter}})
    if (value.empty()) throw Error(std::string(flag) + " is required: system.yaml names who ran what");
  if (who.division == "open" && who.modifications.empty())
    throw Error("--modifications is required in the open division: say what differs from opmark unmodified");
}

}  // namespace

int pack_main(int argc, char** argv) {
  try {
    const Flags f = parse_flags(argc, argv, true);
    const fs::path dir = f.bundle;
    if (!f.rederive) validate_submitter(f.who);
    const ResultSet results = load_results(raw_file(f.bundle, bundle_path::results), Statistic::median);
    // The run's own rules version where it is kept beside the rules (submission_vN.yaml), as check reads it.
    std::string note;
    const core::Suite rules = rules_for_run(f.rules, results.context, &note);
    if (!note.empty()) std::printf("%s\n", note.c_str());
    if (!f.rederive) {
      write_file(dir / bundle_path::system, system_yaml(results.context, f.who));
      std::printf("wrote %s\n", (dir / bundle_path::system).string().c_str());
    }
    // A stale sheet from an earlier pack would be a file no run explains.
    fs::remove_all(dir / bundle_path::spreadsheet);
    for (const auto& [rel, text] : derived_files(results, rules, core::load_models(rules.model_names, {f.shapes}), f.shapes)) {
      write_file(dir / rel, text);
      std::printf("wrote %s\n", (dir / rel).string().c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate pack: %s\n", e.what());
    return 2;
  }
}

int check_main(int argc, char** argv) {
  try {
    const Flags f = parse_flags(argc, argv, false);
    const CheckReport report = check_bundle_report(f.bundle, f.rules, f.shapes);
    const std::vector<Problem>& problems = report.problems;
    for (const auto& note : report.notes) std::printf("%s: %s\n", f.bundle.c_str(), note.c_str());
    if (problems.empty()) {
      std::printf("%s: bundle OK under the rules %s\n", f.bundle.c_str(), report.rules_path.c_str());
      return 0;
    }
    std::printf("%s: %zu problem(s):\n", f.bundle.c_str(), problems.size());
    for (std::size_t i = 0; i < problems.size(); ++i)
      std::printf("%3zu. %s\n     -> %s\n", i + 1, problems[i].what.c_str(), problems[i].fix.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate check: %s\n", e.what());
    return 2;
  }
}

}  // namespace opmark::aggregate
