// opmark-aggregate page RESULTS_DIR [--out=FILE]: one static HTML page over every submission bundle under
// RESULTS_DIR (results/README.md): the systems, area and model scores side by side, and per family every case's
// time on every bundle with ratios, charts, a roofline and each case's details. This file reads the bundles and
// gathers the page's data; page_html.cpp writes the page, whose script (aggregate/page/) draws tables and charts.
#include "aggregate/page.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregate/bundle.h"
#include "aggregate/files.h"
#include "aggregate/page_history.h"
#include "aggregate/page_html.h"
#include "aggregate/page_runs.h"
#include "aggregate/page_speedup.h"
#include "aggregate/plots.h"  // escape
#include "aggregate/results.h"
#include "aggregate/system_description.h"
#include "aggregate/verdict.h"
#include "core/case.h"
#include "core/counters.h"
#include "core/error.h"
#include "core/precision.h"
#include "core/result_record.h"
#include "core/schema.h"
#include "core/table.h"
#include "core/text.h"

namespace opmark::aggregate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every bundle is one column of the page, bundle 0 the reference of the ratios.
struct Bundle {
  std::string id;  // its folder, relative to RESULTS_DIR
  std::string system_name, gpu;
  json system;     // system.yaml flattened: [[field, text], ...] in the file's order
  ResultSet results;                   // times by the median, as the scores take them
  std::map<std::string, json> details;  // per case: repetitions, aggregates, counters, verification, sets
  json scores;                          // scores.json, the fields the page shows
  std::string label() const { return system_name + " / " + gpu; }
};

// A folder holding system.yaml is a bundle; its own subfolders (run/, spreadsheet/) are not searched. A symbolic link
// to a folder is not followed: a bundle is what lies under RESULTS_DIR, not what a link there points to (a bundle
// from anywhere, shown as if submitted here); one that would be a bundle is named in `warnings`.
// A folder holding part of a bundle (scores.json, spreadsheet/, run/) and no system.yaml is an incomplete bundle:
// rejected, whatever else it holds, so that deleting a rejected bundle's system.yaml does not turn it into a run.
// A folder holding results.jsonl and nothing of a bundle is a plain run (--opmark_out).
struct FoundFolders {
  std::vector<fs::path> bundles, incomplete, runs;
};

FoundFolders find_bundles(const fs::path& root, std::vector<std::string>* warnings) {
  if (!fs::is_directory(root)) throw Error(root.string() + ": not a folder of result bundles");
  const auto holds = [](const fs::path& dir, const char* name) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(dir / name, ec));
  };
  const auto holds_system = [&](const fs::path& dir) { return holds(dir, "system.yaml"); };
  const auto holds_part = [&](const fs::path& dir) {
    return holds(dir, "scores.json") || holds(dir, "spreadsheet") || holds(dir, "run");
  };
  const auto holds_run = [&](const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(fs::symlink_status(dir / "results.jsonl", ec));
  };
  FoundFolders found;
  const auto classify = [&](const fs::path& dir) {  // true where dir is a bundle or part of one: not searched further
    if (holds_system(dir)) {
      found.bundles.push_back(dir);
    } else if (holds_part(dir)) {
      found.incomplete.push_back(dir);
    } else {
      if (holds_run(dir)) found.runs.push_back(dir);
      return false;
    }
    return true;
  };
  if (classify(root) || !found.runs.empty()) return found;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_symlink()) {
      std::error_code ec;
      if (fs::is_directory(it->path(), ec) && fs::exists(it->path() / "system.yaml", ec))
        warnings->push_back("skipped " + it->path().string() + ": a symbolic link (to " +
                            fs::read_symlink(it->path(), ec).string() + "); the page shows only the bundles inside " +
                            root.string());
      continue;
    }
    if (!it->is_directory()) continue;
    if (it->path().filename().string().rfind('.', 0) == 0 || classify(it->path())) it.disable_recursion_pending();
  }
  for (auto* list : {&found.bundles, &found.incomplete, &found.runs}) std::sort(list->begin(), list->end());
  return found;
}

// system.yaml through the checker's own reader (system_description.h): the page shows what the checker judged.
void read_system(const fs::path& dir, Bundle& b) {
  const std::string path = (dir / "system.yaml").string();
  const auto fields = read_system_fields(
      bundle_file_text(dir.string(), "system.yaml", "the system description", false, small_file_limits()), path);
  b.system = json::array();
  for (const auto& [key, field] : fields) {
    b.system.push_back({key, field.value});
    if (key == "system_name") b.system_name = field.value;
    if (key == "gpu.model") b.gpu = field.value;
  }
  // The page labels a bundle's column with these two; the checker requires the rest.
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"system_name", &b.system_name},
                                   {"gpu.model", &b.gpu}})
    if (value->empty())
      throw Error(path + ":1:1: field '" + key + "' is missing or empty (results/README.md lists the fields)");
}

// What the drill-down shows and ResultSet does not keep: every repetition, the median and mean lines with their
// counters (and a recheck line's over them), verification, and the sets and models a case belongs to. Called by
// parse_results with each case line once it has checked it (types, status, time; see results.h).
void add_details(const core::ResultRecord& line, Bundle& b) {
  json& d = b.details[line.name];
  if (d.is_null()) d = {{"reps", json::array()}, {"counters", json::object()}};
  const json written = core::to_json(line);  // the case's fields as the log has them
  for (const char* key : {"family", "direction", "precision", "sets", "models", "applications"})
    if (written.contains(key)) d[key] = written[key];
  if (line.verification && !line.verification->empty()) d["verification"] = *line.verification;
  if (line.label && !line.label->empty()) d["label"] = *line.label;
  if (!line.timed()) return;  // a case that did not run: one line with the reason
  const double t = *line.time_us;
  const json counters = line.counters ? json(*line.counters) : json::object();
  if (line.kind == core::RecordKind::run) {
    json rep = {{"time_us", t}};
    if (line.iterations) rep["iterations"] = *line.iterations;
    d["reps"].push_back(rep);
    if (d["counters"].empty()) d["counters"] = counters;  // until a median line brings its own
  } else {
    if (line.aggregate == "median" || line.aggregate == "mean") d[line.aggregate] = t;
    if (line.aggregate == "median") d["counters"] = counters;
    if (line.aggregate == "recheck")  // the end-of-run re-time's counters, over the median line's
      for (const auto& [k, v] : counters.items()) d["counters"][k] = v;
  }
}

void read_scores(const fs::path& dir, Bundle& b) {
  const std::string path = (dir / "scores.json").string();
  const json j = parse_json_document(bundle_file_text(dir.string(), "scores.json", "scores", false, small_file_limits()),
                                     path);
  const auto need = [&](const json& o, const char* key, const std::string& where, bool number, bool may_be_null) {
    if (!o.is_object() || !o.contains(key)) throw Error(path + ": " + where + ": missing '" + key + "'");
    const json& v = o.at(key);
    if ((number ? !v.is_number() : !v.is_string()) && !(may_be_null && v.is_null()))
      throw Error(path + ": " + where + "." + key + ": expected " + (number ? "a number" : "text") + ", got " +
                  v.dump());
    return v;
  };
  if (!j.is_object() || !j.contains("models") || !j["models"].is_array() || !j.contains("areas") ||
      !j["areas"].is_array())
    throw Error(path + ": expected opmark-aggregate's JSON scores (models[] and areas[])");
  if (j.contains("precision") && !j["precision"].is_string())
    throw Error(path + ": precision: expected text, got " + j["precision"].dump());
  b.scores = {{"precision", j.value("precision", std::string())}, {"models", json::array()}, {"areas", json::array()}};
  for (std::size_t i = 0; i < j["models"].size(); ++i) {
    const json& m = j["models"][i];
    const std::string where = "models[" + std::to_string(i) + "]";
    b.scores["models"].push_back({{"name", need(m, "name", where, false, false)},
                                  {"area", need(m, "area", where, false, false)},
                                  {"score_ms", need(m, "score_ms", where, true, false)},
                                  {"coverage_calls", need(m, "coverage_calls", where, true, false)},
                                  {"coverage_time", need(m, "coverage_time", where, true, true)}});
  }
  for (std::size_t i = 0; i < j["areas"].size(); ++i) {
    const json& a = j["areas"][i];
    const std::string where = "areas[" + std::to_string(i) + "]";
    const json models = a.contains("models") ? a["models"] : json::array();
    if (!models.is_array() || !std::all_of(models.begin(), models.end(), [](const json& m) { return m.is_string(); }))
      throw Error(path + ": " + where + ".models: expected a list of model names, got " + models.dump());
    b.scores["areas"].push_back({{"name", need(a, "name", where, false, false)},
                                 {"score_ms", need(a, "score_ms", where, true, false)},
                                 {"models", models}});
  }
}

// A bundle's or run's name on the page: its folder, relative to RESULTS_DIR. RESULTS_DIR may itself be the one bundle
// or run (then named by its folder, whatever spelling of it was given).
std::string folder_id(const fs::path& root, const fs::path& dir) {
  return dir == root ? fs::weakly_canonical(dir).filename().string() : fs::relative(dir, root).generic_string();
}

Bundle load_bundle(const fs::path& root, const fs::path& dir) {
  Bundle b;
  b.id = folder_id(root, dir);
  read_system(dir, b);
  // Read (and decompress) once: the scores' times and the drill-down's details come from the same lines. Every file
  // is the bundle's own (no symbolic links), within the read limits.
  b.results = load_bundle_results(dir.string(), Statistic::median, [&](int, const core::ResultRecord& line) { add_details(line, b); });
  read_scores(dir, b);
  // The run's context says how it was timed (results format 2: graph or eager, the noise target, NVML's state and the
// GPU's power limit, ECC and MIG) and which peaks its percentages and roofs use.
  for (const auto& [key, value] : b.results.context)
    if (key == "timing" || key == "peaks" || key.rfind("peak_", 0) == 0 || key == "results_format" ||
        key == "timing_mode" || key == "noise_target" || key == "nvml" || key == "power_limit_w" || key == "ecc" ||
        key == "mig")
      b.system.push_back({"context." + key, value});
  return b;
}

std::string family_of(const std::string& name, const json& detail) {
  if (detail.contains("family") && detail["family"].is_string()) return detail["family"].get<std::string>();
  return name.substr(0, name.find('/'));
}

// A family's section id on the page: "family-NAME" where the name is plain (letters, digits, '_'), else
// "family-N" by its place: the HTML parser changes a CR or NUL in an id, and the script would not find the section.
std::string family_id(const std::string& name, std::size_t index) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  return "family-" + (plain ? name : std::to_string(index));
}

std::string precision_of(const std::string& name, const json& detail) {
  if (detail.contains("precision") && detail["precision"].is_string()) return detail["precision"].get<std::string>();
  try {
    return core::parse_case_name(name).precision;
  } catch (const Error&) {
    return "";
  }
}

// The case's name without its family and without the fields at their default (core's schema knows each field's
// default), so a table's rows are short: "conv/fwd/fp16/n=16/c=3/d=1/h=224/.../layout=NCHW" -> "fwd/fp16/n=16/c=3/
// h=224/...". The full name stays on the page (on hover and in the drill-down). A name core cannot read stays whole,
// less its family.
std::string short_case_name(const std::string& name) {
  core::Case c;
  try {
    c = core::parse_case_name(name);
  } catch (const Error&) {
    return name.substr(name.find('/') + 1);
  }
  const core::Schema& schema = c.schema();
  std::string out = c.direction + "/" + c.precision;
  for (std::size_t i = 0; i < schema.fields.size() && i < c.values.size(); ++i) {
    const core::FieldSpec& field = schema.fields[i];
    if (field.default_value && c.values[i] == *field.default_value) continue;
    if (!field.default_from.empty()) {
      const int from = schema.index_of(field.default_from);
      if (from >= 0 && c.values[static_cast<std::size_t>(from)] == c.values[i]) continue;
    }
    out += "/" + field.name + "=" + core::to_string(c.values[i]);
  }
  return out;
}

// The roofs of a bundle's rooflines, from its run's context: memory bandwidth and each precision's compute peak
// (under the precision's name: fp16 -> peak_tflops_fp16, tf32 -> peak_tflops_tf32, ...). Missing ones are left out.
json bundle_peaks(const ResultSet& results) {
  const auto number = [&](const std::string& key) {
    auto it = results.context.find(key);
    return it == results.context.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
  };
  json peaks = {{"tflops", json::object()}};
  if (number("peak_gb_per_s") > 0) peaks["gb_per_s"] = number("peak_gb_per_s");
  for (const auto& p : core::all_precisions()) {
    const double peak = number("peak_tflops_" + std::string(p.peak_key));
    if (peak > 0) peaks["tflops"][p.name] = peak;
  }
  return peaks;
}

// The case's verdict (verdict.h, as `compare` gives it) of every bundle against every other: verdicts[ref][i] judges
// bundle i (after) against the reference ref (before), so the script shows whichever reference the reader picks
// without a rule of its own. {"verdict", "detail"}; null on the diagonal and where either bundle has no time.
json case_verdicts(const std::string& name, const std::vector<Bundle>& bundles) {
  json matrix = json::array();
  for (const auto& ref : bundles) {
    json row = json::array();
    const auto b = ref.results.cases.find(name);
    for (const auto& other : bundles) {
      const auto a = other.results.cases.find(name);
      if (&ref == &other || b == ref.results.cases.end() || a == other.results.cases.end() || !b->second.timed() ||
          !a->second.timed()) {
        row.push_back(nullptr);
        continue;
      }
      const CaseVerdict v = case_verdict(b->second, a->second);
      row.push_back({{"verdict", name_of(v.verdict)}, {"detail", v.detail}});
    }
    matrix.push_back(row);
  }
  return matrix;
}

// One case on every bundle: what the tables and the drill-down show (null where a bundle lacks it).
json case_entry(const std::string& name, const std::vector<Bundle>& bundles) {
  json per = json::array();
  std::string family;
  for (const auto& b : bundles) {
    auto r = b.results.cases.find(name);
    if (r == b.results.cases.end()) {
      per.push_back(nullptr);
      continue;
    }
    json d = b.details.count(name) ? b.details.at(name) : json{{"reps", json::array()}, {"counters", json::object()}};
    if (family.empty()) family = family_of(name, d);
    if (!d.contains("precision")) d["precision"] = precision_of(name, d);
    d["status"] = r->second.status;
    if (!r->second.reason.empty()) d["reason"] = r->second.reason;
    if (r->second.timed()) d["time_us"] = r->second.time_us;  // unstable too: shown, and marked by the script
    const double default_us = default_time_us(r->second);
    if (default_us >= 0) d[core::counter::default_us] = default_us;
    per.push_back(d);
  }
  json entry = {{"name", name}, {"short", short_case_name(name)}, {"family", family}, {"r", per}};
  if (bundles.size() > 1) entry["verdicts"] = case_verdicts(name, bundles);
  return entry;
}

constexpr std::size_t kReasonsShown = 5;  // per rejected bundle on the page; check lists them all

}  // namespace

int run_page(PageFlags args) {
  if (args.unchecked && (!args.check.rules.empty() || args.check.rules_version > 0))
    throw Error("page: --unchecked checks nothing: it takes no --rules or --rules-version");
  if (args.out.empty()) args.out = (fs::path(args.dir) / "index.html").string();
  args.check.fill_defaults();
  const fs::path root(args.dir);
  std::vector<Bundle> bundles;
  std::vector<std::string> warnings;
  json skipped = json::array();  // the bundles left out, named on the page too
  const FoundFolders found = find_bundles(root, &warnings);
  const std::vector<fs::path>& dirs = found.bundles;
  for (const auto& warning : warnings)
    std::fprintf(stderr, "opmark-aggregate page: warning: %s\n", core::terminal_text(warning).c_str());
  // Only what passes the checker is published. A bundle that fails, or does not load, is left out, named with the
  // checker's reasons: the others still make the page. One bundle at a time: the check's copy of a run is gone
  // before the page reads it, so memory stays that of one bundle (kMaxBundleResultsBytes bounds its text).
  if (args.unchecked)
    std::fprintf(stderr, "opmark-aggregate page: warning: --unchecked: no bundle is checked; the page says so\n");
  else
    std::printf("rules: %s (%s)\n", args.check.rules.c_str(), args.check.rules_origin.c_str());
  for (const auto& dir : dirs) {
    try {
      const CheckReport report = args.unchecked ? CheckReport{} :
          check_bundle_report(dir.string(), args.check.rules, args.check.shapes, args.check.rules_version);
      if (!report.problems.empty()) {
        std::string reasons;
        for (std::size_t i = 0; i < report.problems.size() && i < kReasonsShown; ++i)
          reasons += (i ? "; " : "") + report.problems[i].what;
        if (report.problems.size() > kReasonsShown)
          reasons += "; and " + std::to_string(report.problems.size() - kReasonsShown) + " more (opmark-aggregate check " +
                     dir.string() + " lists them)";
        std::fprintf(stderr, "opmark-aggregate page: rejected the bundle %s: %zu problem(s) under rules version %d\n",
                     core::terminal_text(dir.string()).c_str(), report.problems.size(), report.rules_version);
        skipped.push_back({{"id", dir.string()},
                           {"reason", "rejected by the checker (rules version " + std::to_string(report.rules_version) +
                                          ", " + report.rules_why + "): " + reasons}});
        continue;
      }
      bundles.push_back(load_bundle(root, dir));
      for (const auto& warning : bundles.back().results.warnings)
        std::fprintf(stderr, "opmark-aggregate page: warning: %s\n", core::terminal_text(warning).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "opmark-aggregate page: warning: skipped the bundle %s: %s\n",
                   core::terminal_text(dir.string()).c_str(), core::terminal_text(e.what()).c_str());
      skipped.push_back({{"id", dir.string()}, {"reason", e.what()}});
    }
  }
  // A bundle with files missing is rejected as a bundle, never read as a run.
  for (const auto& dir : found.incomplete) {
    std::fprintf(stderr, "opmark-aggregate page: rejected the bundle %s: it has no system.yaml\n",
                 core::terminal_text(dir.string()).c_str());
    skipped.push_back({{"id", dir.string()},
                       {"reason", "an incomplete bundle: it holds part of one (scores.json, spreadsheet/ or run/) but "
                                  "no system.yaml, so no checker can pass it (results/README.md lists a bundle's "
                                  "files)"}});
  }
  // Plain runs apart from the bundles, with --runs only: never checked (they are no submissions), each read, turned
  // into its part of the page and let go before the next.
  std::string runs_html;
  std::size_t runs_shown = 0;
  for (const auto& dir : args.runs ? found.runs : std::vector<fs::path>{}) {
    try {
      runs_html += plain_run_html(folder_id(root, dir), dir);
      ++runs_shown;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "opmark-aggregate page: warning: skipped the run %s: %s\n",
                   core::terminal_text(dir.string()).c_str(), core::terminal_text(e.what()).c_str());
      runs_html += "<p class=\"note\">skipped the run <code>" + escape(dir.string()) + "</code>: " + escape(e.what()) +
                   "</p>\n";
    }
  }
  if (!args.runs && !found.runs.empty())
    std::printf("%zu plain run(s) not shown: runs are not checked; --runs shows them apart from the bundles\n",
                found.runs.size());
  const std::size_t bundle_folders = dirs.size() + found.incomplete.size();
  if (bundles.empty() && runs_shown == 0 && bundle_folders > 0)
    throw Error(args.dir + ": none of its " + std::to_string(bundle_folders) + " bundle(s) passed the checker or "
                "could be read (see the warnings above)");
  if (bundles.empty() && runs_shown == 0)
    throw Error(args.dir + ": no result bundle (a folder holding system.yaml, see results/README.md) under it" +
                (found.runs.empty() ? std::string(" and no run (a folder holding results.jsonl)")
                                    : "; its " + std::to_string(found.runs.size()) +
                                          " plain run(s) are shown only with --runs, not checked"));
  // Every case of every bundle, grouped by family in core's order (unknown families after, by name).
  std::set<std::string> names;
  for (const auto& b : bundles)
    for (const auto& [name, r] : b.results.cases) names.insert(name);
  const std::vector<std::string> known = core::known_families();
  const auto family_rank = [&](const std::string& f) {
    return static_cast<std::size_t>(std::find(known.begin(), known.end(), f) - known.begin());
  };
  std::vector<json> cases;
  for (const auto& name : names) cases.push_back(case_entry(name, bundles));
  std::sort(cases.begin(), cases.end(), [&](const json& a, const json& b) {
    const std::string fa = a["family"].get<std::string>(), fb = b["family"].get<std::string>();
    if (fa != fb) return family_rank(fa) != family_rank(fb) ? family_rank(fa) < family_rank(fb) : fa < fb;
    return core::natural_less(a["name"].get<std::string>(), b["name"].get<std::string>());
  });

  json data = {{"source", args.dir}, {"bundles", json::array()}, {"runs", runs_shown},
               {"runs_hidden", args.runs ? 0 : found.runs.size()},
               {"families", json::array()}, {"cases", cases},
               {"skipped", skipped}, {"unchecked", args.unchecked}};
  for (const auto& b : bundles) {
    std::map<std::string, int> summary = {{"ok", 0}, {"unstable", 0}, {"skipped", 0}, {"failed", 0}};
    for (const auto& [name, r] : b.results.cases) ++summary[r.status];
    data["bundles"].push_back({{"id", b.id}, {"system_name", b.system_name}, {"gpu", b.gpu}, {"system", b.system},
                               {"summary", summary}, {"scores", b.scores},
                               {"peaks", bundle_peaks(b.results)}});
  }
  // The headline's predicted against measured speedup, every system against every other (the script shows the
  // pairs of the reference the reader picks).
  if (bundles.size() > 1) {
    std::vector<PageSystem> systems;
    for (const auto& b : bundles) systems.push_back({b.id, &b.results});
    data["speedups"] = page_speedups(systems, args.check.rules, args.check.shapes);
  }
  // The families in the cases' order; the script draws their tables and charts into the sections of their ids.
  for (const auto& k : cases)
    if (data["families"].empty() || data["families"].back()["name"] != k["family"])
      data["families"].push_back(
          {{"name", k["family"]}, {"id", family_id(k["family"].get<std::string>(), data["families"].size())}});
  const std::size_t n_families = data["families"].size();

  // Never through a symbolic link: a link planted at index.html would have the page overwrite what it points to.
  std::string history_html;
  if (!args.db.empty()) {
#ifdef OPMARK_HAVE_SQLITE
    history_html = page_history_html(args.db);
#else
    throw Error("--db: this opmark-aggregate was built without SQLite (install libsqlite3-dev and build again)");
#endif
  }
  write_output_file(args.out, page_html(data, runs_html, history_html));
  std::printf("wrote %s: %zu bundle%s, %zu cases in %zu families%s%s\n", args.out.c_str(), bundles.size(),
              bundles.size() == 1 ? "" : "s", cases.size(), n_families,
              skipped.empty() ? "" : ("; " + std::to_string(skipped.size()) + " bundle(s) skipped").c_str(),
              runs_shown == 0 ? "" : ("; " + std::to_string(runs_shown) + " plain run(s) apart, not checked").c_str());
  return 0;
}

}  // namespace opmark::aggregate
