// opmark-aggregate check: every problem of a submission bundle, each with what to do about it. Nothing here
// trusts a file the run did not write: the system description is compared with the run's context, the derived
// files are recomputed from the raw results, and the two raw files must agree with each other.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "aggregate/bundle.h"
#include "aggregate/system_description.h"
#include "core/error.h"
#include "core/model_table.h"
#include "core/table.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {

namespace {

constexpr std::size_t kListedPerKind = 25;  // a wholly broken bundle should not print a thousand lines

class Problems {
 public:
  void add(const std::string& kind, std::string what, std::string fix) {
    if (++count_[kind] <= kListedPerKind) list_.push_back({std::move(what), std::move(fix)});
  }
  std::vector<Problem> done() {
    for (const auto& [kind, n] : count_)
      if (n > kListedPerKind)
        list_.push_back({std::to_string(n - kListedPerKind) + " more: " + kind, "as for the ones listed above"});
    return list_;
  }

 private:
  std::vector<Problem> list_;
  std::map<std::string, std::size_t> count_;
};

// The first line (1-based) where two texts differ.
int first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string lx, ly;
  for (int line = 1;; ++line) {
    const bool gx = static_cast<bool>(std::getline(x, lx)), gy = static_cast<bool>(std::getline(y, ly));
    if (!gx && !gy) return 0;
    if (gx != gy || lx != ly) return line;
  }
}

void check_system(const fs::path& dir, const ResultSet& results, Problems& p) {
  const std::string path = (dir / bundle_path::system).string();
  std::map<std::string, SystemField> sys;
  try {
    sys = read_system_yaml(core::read_text_file(path, "system description"), path);
  } catch (const Error& e) {
    p.add("system.yaml", e.what(), "fix the YAML (opmark-aggregate pack writes a valid system.yaml)");
    return;
  }
  const auto at = [&](const std::string& key) {
    auto it = sys.find(key);
    return path + ":" + std::to_string(it == sys.end() ? 1 : it->second.line);
  };
  const auto value = [&](const std::string& key) {
    auto it = sys.find(key);
    return it == sys.end() ? std::string() : it->second.value;
  };
  std::set<std::string> known = {"format", "division", "vendor", "system_name", "submitter", "modifications",
                                 "run.started", "run.wall_s"};
  for (const auto& [dotted, ctx] : system_fields_from_context()) known.insert(dotted);
  for (const auto& [key, field] : sys)
    if (!known.count(key))
      p.add("system.yaml", path + ":" + std::to_string(field.line) + ": unknown field '" + key + "'",
            "remove it (results/README.md lists the fields)");
  for (const auto& key : required_system_fields())
    if (value(key).empty())
      p.add("system.yaml", at(key) + ": field '" + key + "' is " + (sys.count(key) ? "empty" : "missing"),
            "give it (opmark-aggregate pack --vendor, --system-name, --submitter fill the submitter's fields)");
  if (sys.count("format") && value("format") != kBundleFormat)
    p.add("system.yaml", at("format") + ": format '" + value("format") + "' is not " + kBundleFormat,
          "re-pack the bundle with this opmark");
  const std::string division = value("division");
  if (sys.count("division") && division != "closed" && division != "open")
    p.add("system.yaml", at("division") + ": division '" + division + "' is neither closed nor open",
          "say closed (opmark unmodified) or open (with modifications described)");
  if (division == "open" && value("modifications").empty())
    p.add("system.yaml", at("modifications") + ": the open division needs 'modifications'",
          "describe the libraries or kernels that differ from opmark unmodified");
  // The description must be what the run's context says, field by field.
  for (const auto& [dotted, ctx_key] : system_fields_from_context()) {
    const std::string expected = system_value(results.context, ctx_key);
    if (value(dotted) != expected)
      p.add("system.yaml", at(dotted) + ": " + dotted + " says '" + value(dotted) + "' but the run's context (" +
                               std::string(bundle_path::results) + " line 1) says '" + expected + "'",
            "describe the system that ran (opmark-aggregate pack copies these from the context)");
  }
  if (division == "closed") {
    const std::string git = results.context.count("git") ? results.context.at("git") : "";
    if (git.empty() || git == "unknown" || git.find("-dirty") != std::string::npos)
      p.add("division", "closed division, but opmark's version is '" + git + "' (modified or unknown)",
            "run an unmodified, committed opmark (its git hash is recorded), or submit in the open division");
  }
}

}  // namespace

double relative_mad(const std::vector<double>& times) {
  const double med = statistic_of(times, Statistic::median);
  std::vector<double> dev;
  for (double t : times) dev.push_back(std::abs(t - med));
  return med > 0 ? statistic_of(dev, Statistic::median) / med : 0;
}

namespace {

void check_cases(const ResultSet& results, const core::Suite& rules, const std::vector<core::Case>& required,
                 Problems& p) {
  std::vector<double> run_noise;  // every measured case's, for the run's median
  const std::string log = bundle_path::results;
  for (const auto& c : required) {
    const std::string name = core::make_case_name(c);
    auto it = results.cases.find(name);
    if (it == results.cases.end())
      p.add("required cases missing", "required case missing from " + log + ": " + name,
            "run the whole suite (opmark-submit), or this case: opmark-bench --opmark_suite=submission "
            "--benchmark_filter='^" + name + "/'");
    else if (it->second.status == "skipped")
      p.add("required cases skipped", "required case skipped: " + name + ": " + it->second.reason,
            "a closed or open submission needs every required case measured; fix what the reason says");
  }
  for (const auto& [name, r] : results.cases) {
    if (r.status == "failed") {
      p.add("failed cases", "case failed: " + name + ": " + r.reason,
            "a failed case (wrong result or error) invalidates the run: fix the cause and run again");
      continue;
    }
    // Two measurements of the case disagreed by more than 1.3x even after measuring again: its time is in doubt.
    // Required or extra, every measured case is checked alike.
    if (r.unstable()) {
      p.add("unstable cases", "unstable: " + name + ": " + (r.reason.empty() ? "no reason given" : r.reason),
            "measure it again on an idle GPU (opmark-bench --opmark_suite=submission --benchmark_filter='^" + name +
                "/'), or run the suite again");
      continue;
    }
    if (r.status != "ok") continue;
    if (r.verification.empty())
      p.add("unverified cases", "case has no verification record in " + log + ": " + name,
            "every time must come from a verified case: run it with opmark-bench unmodified");
    if (r.reps_us.size() < static_cast<std::size_t>(rules.repetitions)) {
      p.add("too few repetitions", "case has " + std::to_string(r.reps_us.size()) + " repetition(s), the rules need " +
                                       std::to_string(rules.repetitions) + ": " + name,
            "run with --opmark_repetitions=" + std::to_string(rules.repetitions) + " or more (opmark-submit does)");
      continue;
    }
    const double noise = relative_mad(r.reps_us);
    run_noise.push_back(noise);
    if (noise > rules.max_noise) {
      char text[128];
      std::snprintf(text, sizeof text, "noise %.3f (median absolute deviation over median) over the limit %.3f", noise,
                    rules.max_noise);
      p.add("noisy cases", std::string(text) + ": " + name,
            "measure it again on an idle GPU (more repetitions or a longer --opmark_min_time steady it)");
    }
  }
  const double median_noise = statistic_of(run_noise, Statistic::median);
  if (median_noise > rules.max_median_noise) {
    char text[160];
    std::snprintf(text, sizeof text, "the run's median noise %.4f over its %zu measured cases is over the limit %.4f",
                  median_noise, run_noise.size(), rules.max_median_noise);
    p.add("noisy run", text, "run the whole suite again on an idle GPU: the system was busy or unsteady");
  }
}

// The Google Benchmark JSON must hold the same medians as the results log: both are written by the one run.
void check_raw_agree(const fs::path& dir, const ResultSet& results, Problems& p) {
  const std::string path = raw_file(dir.string(), bundle_path::benchmark_json);
  ResultSet raw;
  try {
    raw = load_results(path, Statistic::median);
  } catch (const Error& e) {
    p.add("benchmark.json", e.what(), "keep the run's own benchmark.json in the bundle");
    return;
  }
  for (const auto& [name, r] : results.cases) {
    if (r.status != "ok") continue;
    auto it = raw.cases.find(name);
    if (it == raw.cases.end() || it->second.status != "ok")
      p.add("raw files disagree", std::string(bundle_path::benchmark_json) + " has no measured " + name,
            "keep both raw files of the same run, unedited");
    else if (std::abs(it->second.time_us - r.time_us) > 1e-6 * std::max(1.0, std::abs(r.time_us)))
      p.add("raw files disagree", name + ": median " + std::to_string(r.time_us) + " us in " + bundle_path::results +
                                      " but " + std::to_string(it->second.time_us) + " us in " + bundle_path::benchmark_json,
            "keep both raw files of the same run, unedited");
  }
}

void check_derived(const fs::path& dir, const ResultSet& results, const core::Suite& rules,
                   const std::vector<core::ModelTable>& models, const std::string& shapes_dir, Problems& p) {
  const std::map<std::string, std::string> expected = derived_files(results, rules, models, shapes_dir);
  const std::string repack = "don't edit derived files: opmark-aggregate pack " + dir.string() +
                             " --rederive rewrites them (expected after a model table changed)";
  for (const auto& [rel, text] : expected) {
    const fs::path file = dir / rel;
    if (!fs::exists(file)) {
      p.add("derived files", rel + " is missing", repack);
      continue;
    }
    const std::string have = core::read_text_file(file.string(), "derived file");
    if (have != text)
      p.add("derived files", rel + " differs from what " + bundle_path::results + " gives (first at line " +
                                 std::to_string(first_difference(have, text)) + ")",
            repack);
  }
  const fs::path sheets = dir / bundle_path::spreadsheet;
  if (fs::is_directory(sheets))
    for (const auto& entry : fs::directory_iterator(sheets)) {
      const std::string rel = std::string(bundle_path::spreadsheet) + "/" + entry.path().filename().string();
      if (!expected.count(rel))
        p.add("derived files", rel + " is not a file the run gives",
              "remove it (a workbook, opmark.xlsx, is not part of a bundle: it cannot be checked)");
    }
}

}  // namespace

std::vector<Problem> check_bundle(const std::string& bundle, const std::string& rules_path, const std::string& shapes_dir) {
  return check_bundle_report(bundle, rules_path, shapes_dir).problems;
}

CheckReport check_bundle_report(const std::string& bundle, const std::string& rules_path, const std::string& shapes_dir) {
  CheckReport report;
  report.rules_path = rules_path;
  Problems p;
  const auto done = [&]() {
    report.problems = p.done();
    return report;
  };
  const fs::path dir = bundle;
  if (!fs::is_directory(dir)) throw Error(bundle + ": no such bundle folder");
  core::Suite rules = core::load_suite(rules_path);  // read first: rules that do not load are no check at all
  for (const char* rel : {bundle_path::system, bundle_path::scores})
    if (!fs::exists(dir / rel))
      p.add("files", (dir / rel).string() + " is missing", "a bundle is what opmark-submit writes (results/README.md)");
  for (const char* rel : {bundle_path::results, bundle_path::benchmark_json})
    if (!fs::exists(raw_file(bundle, rel)))
      p.add("files", (dir / rel).string() + " (or .gz) is missing", "a bundle is what opmark-submit writes (results/README.md)");
  if (!fs::exists(raw_file(bundle, bundle_path::results))) return done();
  ResultSet results;
  try {
    results = load_results(raw_file(bundle, bundle_path::results), Statistic::median);
  } catch (const Error& e) {
    p.add("files", e.what(), "keep the run's own results log, unedited");
    return done();
  }
  // A run made under an earlier version is checked against that version's rules where they are kept beside these.
  std::string note;
  rules = rules_for_run(rules_path, results.context, &note);
  report.rules_path = rules.path;
  if (!note.empty()) report.notes.push_back(note);
  if (fs::exists(dir / bundle_path::system)) check_system(dir, results, p);
  const std::string run_rules = results.context.count("rules_version") ? results.context.at("rules_version") : "";
  if (run_rules != std::to_string(rules.rules_version))
    p.add("rules", "the run was made under rules version '" + run_rules + "', these are version " +
                       std::to_string(rules.rules_version) + " (" + rules.path + ")",
          "run the suite with opmark-submit (opmark-bench --opmark_suite=submission), or check with its rules (--rules)");
  // Rules that name a timing want every time taken that way (version 2: graph, the GPU's own time).
  if (!rules.timing.empty()) {
    const auto it = results.context.find("timing_mode");
    if (it == results.context.end())
      p.add("rules", "the run's context (" + std::string(bundle_path::results) + " line 1) has no timing_mode (a "
                         "results format 1 run), and the rules (" + rules.path + ") require timing " + rules.timing,
            "run the suite with this opmark-bench (--opmark_timing=" + rules.timing + ", opmark-submit's default)");
    else if (it->second != rules.timing)
      p.add("rules", "the run timed '" + it->second + "' (timing_mode in " + bundle_path::results +
                         " line 1), the rules (" + rules.path + ") require " + rules.timing,
            "run the suite again with --opmark_timing=" + rules.timing + " (opmark-submit's default)");
  }
  // The tables and models are read once: the required cases and the derived scores both come from them.
  const std::vector<core::ModelTable> models = core::load_models(rules.model_names, {shapes_dir});
  check_cases(results, rules, core::suite_cases(rules, core::load_tables({shapes_dir}), models), p);
  if (fs::exists(raw_file(bundle, bundle_path::benchmark_json))) check_raw_agree(dir, results, p);
  check_derived(dir, results, rules, models, shapes_dir, p);
  return done();
}

}  // namespace opmark::aggregate
