#include "aggregate/bundle.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "aggregate/files.h"
#include "aggregate/score_report.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/system_description.h"
#include "core/error.h"
#include "core/file_access.h"
#include "core/text.h"
#include "core/model_table.h"
#include "core/shapes_dir.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {

namespace {

// The opmark source tree holding the working folder (it, or a folder above it): its shapes/, or "" where none does.
std::string shapes_of_working_tree() {
  std::error_code ec;
  fs::path dir = fs::current_path(ec);
  for (; !ec && !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "CMakeLists.txt", ec) && fs::is_regular_file(dir / "shapes" / "submission.yaml", ec) &&
        fs::is_regular_file(dir / "shapes" / "areas.yaml", ec))
      return (dir / "shapes").string();
    if (dir == dir.parent_path()) break;
  }
  return "";
}

}  // namespace

std::string default_shapes_dir() {
  // $OPMARK_SHAPES first: named by the user. Then the tree the command is run in: a build made in another checkout
  // must not judge by that checkout's tables. Then the installed tables beside the executable, then the source
  // tree this build was made in (core/shapes_dir.h).
  const core::ShapesDir d = core::default_shapes_dir();
  if (d.origin == core::ShapesOrigin::kEnvironment) return d.path;
  const std::string here = shapes_of_working_tree();
  return here.empty() ? d.path : here;
}

std::string shapes_dir_origin(const std::string& dir) {
  const core::ShapesDir d = core::default_shapes_dir();
  if (d.origin == core::ShapesOrigin::kEnvironment && dir == d.path) return core::describe(d.origin);
  if (dir == shapes_of_working_tree()) return "from the source tree this is run in";
  if (dir == d.path && d.origin == core::ShapesOrigin::kInstalled)
    return core::describe(d.origin) + ", as no opmark tree holds the working folder; --rules picks others";
  if (dir == d.path && d.origin == core::ShapesOrigin::kSourceTree)
    return "from the source tree this build was made in, as no opmark tree holds the working folder; --rules picks "
           "others";
  return "from ./" + dir;
}

namespace {

// Whether something is at the path, a link (even a dangling one) included.
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

}  // namespace

std::string raw_file_rel(const std::string& dir, const std::string& rel) {
  return !present(fs::path(dir) / rel) && present(fs::path(dir) / (rel + ".gz")) ? rel + ".gz" : rel;
}

std::string raw_file(const std::string& dir, const std::string& rel) {
  return (fs::path(dir) / raw_file_rel(dir, rel)).string();
}

std::string symlink_in_bundle(const std::string& dir, const std::string& rel) {
  fs::path at = dir;
  for (const auto& part : fs::path(rel)) {
    at /= part;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(at, ec))) return at.string();
  }
  return "";
}

ReadLimits small_file_limits() {
  ReadLimits limits;
  limits.max_bytes = std::size_t{16} << 20;
  return limits;
}

std::string bundle_file_text(const std::string& dir, const std::string& rel, const std::string& what, bool inflate,
                             const ReadLimits& limits) {
  const std::string link = symlink_in_bundle(dir, rel);
  if (!link.empty())
    throw Error(link + ": a symbolic link, not read: a bundle holds its own files (copy the file in, not a link to it)");
  return read_input_file((fs::path(dir) / rel).string(), what, inflate, Links::refuse, limits);
}

ReadLimits bundle_results_limits() {
  ReadLimits limits;
  limits.max_bytes = kMaxBundleResultsBytes;
  return limits;
}

ResultSet load_bundle_results(const std::string& dir, Statistic statistic, const LineVisitor& visit) {
  const std::string rel = raw_file_rel(dir, bundle_path::results);
  const ReadLimits limits = bundle_results_limits();
  return parse_results(bundle_file_text(dir, rel, "results file", true, limits), (fs::path(dir) / rel).string(),
                       statistic, limits, visit);
}

core::Suite rules_to_apply(const std::string& rules_path, int asked_version, std::string* why) {
  core::Suite newest = core::load_suite(rules_path);
  if (asked_version <= 0 || asked_version == newest.rules_version) {
    if (why) *why = asked_version <= 0 ? "newest" : "asked for";
    return newest;
  }
  const fs::path kept = fs::path(rules_path).parent_path() / ("submission_v" + std::to_string(asked_version) + ".yaml");
  if (!fs::is_regular_file(kept))
    throw Error("--rules-version " + std::to_string(asked_version) + ": no such rules kept (" + kept.string() +
                " does not exist; " + rules_path + " are version " + std::to_string(newest.rules_version) + ")");
  core::Suite older = core::load_suite(kept.string());
  if (older.rules_version != asked_version)
    throw Error(kept.string() + ": says rules_version " + std::to_string(older.rules_version) + ", not " +
                std::to_string(asked_version) + " as its name does");
  if (why) *why = "asked for";
  return older;
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

ScoreReport bundle_score_report(const ResultSet& results, const core::Suite& rules,
                                const std::vector<core::ModelTable>& models, const std::string& shapes_dir) {
  return score_report(results, models, (fs::path(shapes_dir) / "areas.yaml").string(), {}, rules.model_precision);
}

std::map<std::string, std::string> derived_files(const ResultSet& results, const core::Suite& rules,
                                                 const std::vector<core::ModelTable>& models,
                                                 const std::string& shapes_dir) {
  std::map<std::string, std::string> files;
  const ScoreReport report = bundle_score_report(results, rules, models, shapes_dir);
  // The label is the path inside the bundle, so the file is the same wherever the bundle lives.
  files[bundle_path::scores] = score_report_json(report, results, bundle_path::results, rules.model_precision).dump(2) + "\n";
  for (const auto& sheet : deepbench_sheets(results))
    files[std::string(bundle_path::spreadsheet) + "/" + sheet.name + ".csv"] = csv_text(sheet);
  return files;
}

namespace {

// Never through a symbolic link: a link planted at scores.json would have pack overwrite whatever it points to.
void write_file(const fs::path& path, const std::string& text) { write_output_file(path.string(), text); }

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

void BundleOptions::fill_defaults() {
  const bool shapes_given = !shapes.empty();
  if (!shapes_given) shapes = default_shapes_dir();
  if (!rules.empty()) rules_origin = "given with --rules";
  else rules_origin = shapes_given ? "in the --shapes folder" : shapes_dir_origin(shapes);
  if (rules.empty()) rules = (fs::path(shapes) / "submission.yaml").string();
}

int run_pack(PackOptions f) {
  try {
    f.fill_defaults();
    std::printf("rules: %s (%s)\n", f.rules.c_str(), f.rules_origin.c_str());
    const fs::path dir = f.bundle;
    if (!f.rederive) validate_submitter(f.who);
    const ResultSet results = load_bundle_results(f.bundle, Statistic::median);
    for (const auto& warning : results.warnings) std::fprintf(stderr, "opmark-aggregate pack: warning: %s\n", warning.c_str());
    // The run's own rules version where it is kept beside the rules (submission_vN.yaml), as check reads it.
    std::string note;
    const core::Suite rules = rules_for_run(f.rules, results.context, &note);
    if (!note.empty()) std::printf("%s\n", note.c_str());
    // Refused before anything is written (write_file refuses too, one file at a time): a link planted where pack
    // writes would have it overwrite whatever the link points to.
    std::vector<std::string> outputs = {bundle_path::scores, bundle_path::spreadsheet};
    if (!f.rederive) outputs.push_back(bundle_path::system);
    for (const auto& rel : outputs) {
      const std::string link = symlink_in_bundle(f.bundle, rel);
      if (!link.empty())
        throw Error(link + ": a symbolic link, not written through (it would overwrite whatever it points to): "
                           "remove the link");
    }
    if (!f.rederive) {
      write_file(dir / bundle_path::system, system_yaml(results.context, f.who));
      std::printf("wrote %s\n", (dir / bundle_path::system).string().c_str());
    }
    // The sheets replace the folder as one set (a stale sheet from an earlier pack would be a file no run explains,
    // and a pack killed midway must not leave a bundle with some sheets, or none).
    core::remove_stale_folder_temps((dir / bundle_path::spreadsheet).string());
    const std::string sheets_prefix = std::string(bundle_path::spreadsheet) + "/";
    std::map<std::string, std::string> sheets;
    const auto models = core::load_models(rules.model_names, {f.shapes}, rules.model_folder);
    for (const auto& [rel, text] : derived_files(results, rules, models, f.shapes)) {
      if (rel.rfind(sheets_prefix, 0) == 0) {
        sheets[rel.substr(sheets_prefix.size())] = text;
        continue;
      }
      write_file(dir / rel, text);
      std::printf("wrote %s\n", (dir / rel).string().c_str());
    }
    core::replace_folder_atomically((dir / bundle_path::spreadsheet).string(), sheets);
    std::printf("wrote %s (%zu sheets)\n", (dir / bundle_path::spreadsheet).string().c_str(), sheets.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate pack: %s\n", core::terminal_text(e.what(), true).c_str());
    return 2;
  }
}

int run_check(CheckOptions f) {
  try {
    f.fill_defaults();
    // First, which rules: a build made in one checkout and run in another once checked against the wrong ones.
    std::printf("rules: %s (%s)\n", f.rules.c_str(), f.rules_origin.c_str());
    const CheckReport report = check_bundle_report(f.bundle, f.rules, f.shapes, f.rules_version);
    const std::vector<Problem>& problems = report.problems;
    // Every problem quotes the bundle's own text (case names, reasons): printed with its control characters escaped.
    for (const auto& note : report.notes) std::printf("%s: %s\n", f.bundle.c_str(), core::terminal_text(note).c_str());
    if (problems.empty()) {
      std::printf("%s: bundle OK under the rules %s\n", f.bundle.c_str(), report.rules_path.c_str());
      return 0;
    }
    std::printf("%s: %zu problem(s):\n", f.bundle.c_str(), problems.size());
    for (std::size_t i = 0; i < problems.size(); ++i)
      std::printf("%3zu. %s\n     -> %s\n", i + 1, core::terminal_text(problems[i].what).c_str(),
                  core::terminal_text(problems[i].fix).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate check: %s\n", core::terminal_text(e.what(), true).c_str());
    return 2;
  }
}

}  // namespace opmark::aggregate
