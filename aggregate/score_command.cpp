#include "aggregate/score_command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aggregate/bundle.h"
#include "aggregate/files.h"
#include "aggregate/plot_files.h"
#include "aggregate/plots.h"
#include "aggregate/score_report.h"
#include "aggregate/scores.h"
#include "aggregate/side_by_side.h"
#include "aggregate/speedup.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/systems_sheets.h"
#include "aggregate/xlsx.h"
#include "core/error.h"
#include "core/model_table.h"
#include "core/precision.h"
#include "core/text.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {

void ScoreOptions::validate() {
  try {
    core::precision_info(precision);  // names the known ones
  } catch (const Error& e) {
    throw Error(std::string("--precision: ") + e.what());
  }
  statistic = parse_statistic(statistic_name);
  inputs = inputs_text.empty() ? core::Symbols{} : core::parse_symbol_list(inputs_text);
  if (format != "table" && format != "json" && format != "csv")
    throw Error("--format: expected table, json or csv, got '" + format + "'");
  if (files.empty()) throw Error("expected a results file");
  if (files.size() > 1 && format != "table")
    throw Error("several results files are scored side by side in table form only (--format=table); give one "
                "file for json or csv");
}

ResultSet load_results_or_bundle(const std::string& path, Statistic statistic) {
  // A folder is a bundle (run/results.jsonl inside), or a plain run's --opmark_out folder (results.jsonl itself,
  // or compressed as a run kept in docs/runs/ is).
  const bool bundle = fs::is_directory(path) && fs::exists(fs::path(path) / "run");
  ResultSet results = bundle ? load_bundle_results(path, statistic) : load_results(results_log_of(path), statistic);
  require_one_run(results);
  require_each_case_once(results);
  for (const auto& warning : results.warnings) std::fprintf(stderr, "opmark-aggregate: warning: %s\n", warning.c_str());
  return results;
}

namespace {

std::string shapes_dir(const ScoreOptions& a) { return a.shapes.empty() ? default_shapes_dir() : a.shapes; }

ResultSet load(const std::string& file, Statistic statistic) { return load_results_or_bundle(file, statistic); }

// One scored file, kept for what run_scores does over all files: the check of the scores against the models' real
// time (table form) and the plots (--plots, every file on each chart).
struct ScoredFile {
  std::string file, legend;  // legend: the GPU and the file
  ResultSet results;
  ScoreReport report;
  std::vector<core::ModelTable> models;
};

// Scores one results file and prints them (its own table where print_table); run_scores writes the plots of all
// files.
int score_set(const ScoreOptions& a, const std::string& file, std::vector<ScoredFile>* kept, bool print_table) {
  const ResultSet results = load(file, a.statistic);
  const std::string dir = shapes_dir(a);
  const std::vector<std::string> names = core::split(a.models, ',', false);
  std::vector<core::ModelTable> models;
  try {
    models = core::load_models(names, {dir});
  } catch (const TableError&) {
    throw;
  } catch (const Error& e) {
    throw Error(std::string("--models: ") + e.what());
  }
  if (models.empty()) throw Error("no model table matches --models=" + a.models + " in " + dir + "/models");
  const ScoreReport report =
      score_report(results, models, (fs::path(dir) / "areas.yaml").string(), a.inputs, a.precision);
  const std::vector<ModelScore>& scores = report.models;
  // Missing cases are an error unless allowed: a score over part of a model would read as a faster GPU.
  std::size_t missing = 0;
  for (const auto& s : scores) missing += s.missing.size();
  if (missing && !a.allow_missing) {
    std::string list;
    std::set<std::string> names;
    for (const auto& s : scores) names.insert(s.missing.begin(), s.missing.end());
    for (const auto& n : names) list += "\n  " + n;
    std::string model_list;
    for (const auto& m : models) model_list += (model_list.empty() ? "" : ",") + m.name;
    throw Error(std::to_string(names.size()) + " case(s) the models need are not in " + file + ":" + list +
                "\nmeasure them with: opmark-bench --opmark_models=" + model_list + " --opmark_precision=" +
                a.precision + "\nor score what is there with --allow-missing (coverage then says what is left out)");
  }
  const std::vector<AreaScore>& areas = report.areas;
  if (a.format == "table" || !a.plots.empty())
    kept->push_back({file, results.context.count("gpu") ? results.context.at("gpu") + " (" + file + ")" : file,
                     results, report, models});
  if (a.format == "json") {
    std::cout << score_report_json(report, results, file, a.precision).dump(2) << "\n";
    return 0;
  }
  const bool csv = a.format == "csv";
  const std::string gpu = results.context.count("gpu") ? results.context.at("gpu") : "";
  if (print_table) {
    // A partial score (--allow-missing) is a lower bound: ">=" before it, "-" where nothing of it was measured; the
    // CSV leaves such a score empty and says partial.
    const auto score_text = [](double ms, bool partial, bool scored) {
      if (!scored) return std::string("-");
      char text[32];
      std::snprintf(text, sizeof text, "%s%.4f", partial ? ">=" : "", ms);
      return std::string(text);
    };
    std::printf(csv ? "kind,name,area,score_ms,calls,coverage_calls,coverage_time,real_ms,parallel_ms,partial\n"
                    : "Scores in ms (sum of calls x measured time per call): lower is better. Precision %s.\n"
                      "%-24s %-15s %12s %8s %10s %10s %12s\n",
                a.precision.c_str(), "model", "area", "score ms", "calls", "cov calls", "cov time", "real ms");
    for (const auto& s : scores) {
      const std::string cov_time = s.coverage_time() >= 0 ? std::to_string(s.coverage_time()) : "";
      // The real time's one definition: the CUDA-graph replay on this GPU, or its kernel time where the capture
      // failed or is suspect; none for a partial score.
      const std::optional<double> real = check_whole_score(s, gpu).real_ms;
      char real_text[32] = "";
      if (real) std::snprintf(real_text, sizeof real_text, csv ? "%f" : "%.4f", *real);
      const bool scored = s.covered_calls > 0;
      if (csv)
        std::printf("model,%s,%s,%s,%lld,%.4f,%s,%s,%s,%d\n", csv_field(s.name).c_str(), csv_field(s.area).c_str(),
                    scored ? std::to_string(s.score_ms).c_str() : "", static_cast<long long>(s.calls),
                    s.coverage_calls(), cov_time.c_str(), real_text,
                    s.parallel_ms ? std::to_string(*s.parallel_ms).c_str() : "", s.partial() ? 1 : 0);
      else
        std::printf("%-24s %-15s %12s %8lld %9.1f%% %10s %12s\n", s.name.c_str(), s.area.c_str(),
                    score_text(s.score_ms, s.partial(), scored).c_str(),
                    static_cast<long long>(s.calls), 100 * s.coverage_calls(),
                    s.coverage_time() >= 0 ? (std::to_string(static_cast<int>(100 * s.coverage_time())) + "%").c_str()
                                           : "-",
                    real ? real_text : "-");
    }
    // The parallel lower bound, for the tables that record their dependency graph (imported from ONNX).
    for (const auto& s : scores)
      if (!csv && s.parallel_ms)
        std::printf("%-24s parallel lower bound %.4f ms (data-independent calls overlapped; sequential %.4f ms)\n",
                    s.name.c_str(), *s.parallel_ms, s.score_ms);
    for (const auto& ar : areas) {
      if (csv)
        std::printf("area,%s,,%s,,,,,,%d\n", csv_field(ar.name).c_str(),
                    ar.scored ? std::to_string(ar.score_ms).c_str() : "", ar.partial ? 1 : 0);
      else
        std::printf("area %-19s %-15s %12s\n", ar.name.c_str(), "",
                    score_text(ar.score_ms, ar.partial, ar.scored).c_str());
    }
  }
  // Unstable cases count in the scores with their time, but say so: two of their measurements disagreed.
  std::set<std::string> unstable;
  for (const auto& s : scores) unstable.insert(s.unstable.begin(), s.unstable.end());
  if (!csv && !unstable.empty()) {
    std::printf("note: %s%zu scored case(s) were measured unstable (two measurements disagreed by more than 1.3x); "
                "their time counts in the scores:\n",
                a.files.size() > 1 ? (core::terminal_text(file) + ": ").c_str() : "", unstable.size());
    for (const auto& name : unstable)
      std::printf("  %s: %s\n", core::terminal_text(name).c_str(),
                  core::terminal_text(results.cases.at(name).reason).c_str());
  }
  return 0;
}

}  // namespace

int run_scores(const ScoreOptions& a) {
  std::vector<ScoredFile> kept;
  // With several systems the side-by-side table is the report; each one's own table is behind --detail.
  const bool several = a.files.size() > 1, own_tables = !several || a.detail;
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    if (several && own_tables) std::printf("%s== %s\n", i ? "\n" : "", core::terminal_text(a.files[i]).c_str());
    score_set(a, a.files[i], &kept, own_tables);
  }
  if (a.format == "table") {
    std::vector<ScoredSet> scored;
    for (const auto& f : kept) scored.push_back({f.file, &f.results, &f.report});
    // The reports quote the results files' own text (GPU names, reasons): no control character of theirs reaches
    // the terminal.
    std::fputs(core::terminal_text(side_by_side_text(scored), true).c_str(), stdout);
    std::fputs(core::terminal_text(score_validation_text(scored, own_tables), true).c_str(), stdout);
    const std::string breakdown = score_breakdown_text(scored);
    if (a.detail) std::fputs(core::terminal_text(breakdown, true).c_str(), stdout);
    // Each later system against the first: the speedup the scores predict beside the real models' one.
    for (std::size_t i = 1; i < scored.size(); ++i)
      std::fputs(core::terminal_text(speedup_text(speedup_report(scored[0], scored[i])), true).c_str(), stdout);
    if (!a.detail && (several || !breakdown.empty()))
      std::printf("\n(--detail: %seach model's time by family beside the framework's kernels, and its headroom)\n",
                  several ? "each system's own table, " : "");
  }
  if (a.plots.empty()) return 0;
  std::vector<PlotSet> plots;
  for (auto& f : kept)
    plots.push_back({f.legend, std::move(f.results), std::move(f.models), f.report.area_defs, f.report.areas});
  write_plots(a.plots, plots, a.inputs, a.precision);
  return 0;
}

int run_spreadsheet(const ScoreOptions& a) {
  std::vector<ResultSet> loaded;
  for (const auto& f : a.files) loaded.push_back(load(f, a.statistic));
  std::vector<Sheet> sheets;
  if (loaded.size() == 1) {
    sheets = deepbench_sheets(loaded[0]);
  } else {  // several systems: one table per precision and family, the systems side by side
    std::vector<NamedSystem> systems;
    for (const auto& r : loaded) {
      const std::string gpu = r.context.count("gpu") ? r.context.at("gpu") : "";
      std::string label = gpu.empty() ? r.path : gpu;
      for (const auto& s : systems)
        if (s.label == label) label += " (" + r.path + ")";  // two runs of one GPU: told apart by file
      systems.push_back({label, &r});
    }
    sheets = systems_sheets(systems);
  }
  for (const auto& f : write_csv_sheets(sheets, a.spreadsheet)) std::printf("wrote %s\n", f.c_str());
  const std::string book = (std::filesystem::path(a.spreadsheet) / "opmark.xlsx").string();
  if (xlsx_available()) {
    write_xlsx(sheets, book);
    std::printf("wrote %s\n", book.c_str());
  } else {
    std::printf("no %s: this build has no libxlsxwriter (install libxlsxwriter-dev and re-run cmake)\n",
                book.c_str());
  }
  return 0;
}

}  // namespace opmark::aggregate
