// opmark-aggregate: measured results + model operator tables -> model and area scores (OpBench), with coverage;
// or two result sets -> a comparison with regressions. Runs anywhere: no GPU, no CUDA.
//
//   opmark-aggregate RESULTS [--models=a,b|all|all_train] [--inputs=B=16] [--precision=fp16] [--statistic=median|min|mean]
//                    [--allow-missing] [--format=table|json|csv] [--shapes=DIR]
//   opmark-aggregate --compare BEFORE AFTER [--threshold=0.05] [--format=...]
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "aggregate/bundle.h"
#include "aggregate/compare.h"
#include "aggregate/files.h"
#include "aggregate/page.h"
#include "aggregate/plot_files.h"
#include "aggregate/results.h"
#include "aggregate/plots.h"
#include "aggregate/score_report.h"
#include "aggregate/scores.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/xlsx.h"
#include "core/error.h"
#include "core/expr.h"
#include "core/model_table.h"
#include "core/precision.h"

namespace fs = std::filesystem;
using namespace opmark;
using namespace opmark::aggregate;

namespace {

struct Args {
  std::vector<std::string> files;
  std::string models = "all", precision = "fp16", format = "table", shapes;
  core::Symbols inputs;
  Statistic statistic = Statistic::median;
  bool allow_missing = false, compare = false;
  std::string spreadsheet;  // folder for the DeepBench-style tables
  std::string plots;        // folder for the SVG plots
  double threshold = 0.05;
};

const char* kUsage = R"(usage:
  opmark-aggregate RESULTS [--models=a,b|all|all_train] [--inputs=B=16] [--precision=fp16] [--statistic=median|min|mean]
                   [--allow-missing] [--format=table|json|csv] [--shapes=DIR]
  opmark-aggregate --compare BEFORE AFTER [--threshold=0.05] [--statistic=...] [--format=table|json|csv]
  opmark-aggregate RESULTS --spreadsheet=DIR      DeepBench-style tables as DIR/<precision>_<family>.csv, specs.csv,
                                                  and DIR/opmark.xlsx (a sheet per precision) with libxlsxwriter
  opmark-aggregate RESULTS --plots=DIR [--models=...]   SVG: roofline per precision, each area's operator chart,
                                                        area scores (and PNG beside each where rsvg-convert is found)
  opmark-aggregate RESULTS RESULTS... [--plots=DIR]     several result sets (one per GPU, say): the scores of each,
                                                        and plots with every set on each chart, named in the legend
RESULTS: opmark-bench's results.jsonl or benchmark.json. Scores are milliseconds: lower is better.
)";

// A non-negative number for a flag, or an error naming the flag and the text.
double parse_fraction(const char* flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0))
    throw Error(std::string(flag) + ": expected a non-negative number such as 0.05, got '" + text + "'");
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* flag) -> std::string {
      const std::string prefix = std::string(flag) + "=";
      return arg.rfind(prefix, 0) == 0 ? arg.substr(prefix.size()) : std::string();
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--compare") a.compare = true;
    else if (arg == "--allow-missing") a.allow_missing = true;
    else if (!value("--models").empty()) a.models = value("--models");
    else if (!value("--precision").empty()) a.precision = value("--precision");
    else if (!value("--format").empty()) a.format = value("--format");
    else if (!value("--shapes").empty()) a.shapes = value("--shapes");
    else if (!value("--spreadsheet").empty()) a.spreadsheet = value("--spreadsheet");
    else if (!value("--plots").empty()) a.plots = value("--plots");
    else if (!value("--inputs").empty()) a.inputs = core::parse_symbol_list(value("--inputs"));
    else if (!value("--statistic").empty()) a.statistic = parse_statistic(value("--statistic"));
    else if (!value("--threshold").empty()) a.threshold = parse_fraction("--threshold", value("--threshold"));
    else if (arg.rfind("--", 0) == 0) throw Error("unknown flag " + arg + "\n" + kUsage);
    else a.files.push_back(arg);
  }
  try {
    core::precision_info(a.precision);  // names the known ones
  } catch (const Error& e) {
    throw Error(std::string("--precision: ") + e.what());
  }
  if (a.format != "table" && a.format != "json" && a.format != "csv")
    throw Error("--format: expected table, json or csv, got '" + a.format + "'");
  if (a.compare ? a.files.size() != 2u : a.files.empty())
    throw Error(std::string("expected ") + (a.compare ? "two results files" : "a results file") + "\n" + kUsage);
  if (!a.compare && a.files.size() > 1 && (a.format != "table" || !a.spreadsheet.empty()))
    throw Error("several results files are scored side by side in table form only (--format=table, no "
                "--spreadsheet); give one file for json, csv or a spreadsheet");
  return a;
}

std::string shapes_dir(const Args& a) {
  if (!a.shapes.empty()) return a.shapes;
  return default_shapes_dir();
}

// A results file, its reader's warnings (a torn last line) said on stderr.
ResultSet load(const std::string& file, Statistic statistic) {
  ResultSet results = load_results(file, statistic);
  for (const auto& warning : results.warnings) std::fprintf(stderr, "opmark-aggregate: warning: %s\n", warning.c_str());
  return results;
}

int run_compare(const Args& a) {
  const ResultSet before = load(a.files[0], a.statistic), after = load(a.files[1], a.statistic);
  const Comparison c = compare(before, after, a.threshold);
  if (a.format == "json") {
    nlohmann::json j;
    j["geomean_ratio"] = c.geomean_ratio;
    j["regressions"] = c.regressions;
    j["unstable"] = c.unstable;
    for (const auto& k : c.cases) {
      nlohmann::json one = {{"name", k.name}, {"before_us", k.before_us}, {"after_us", k.after_us},
                            {"ratio", k.ratio}, {"noise_us", k.noise_us}, {"regression", k.regression},
                            {"verdict", k.verdict()}};
      if (!k.unstable.empty()) one["unstable"] = k.unstable;
      j["cases"].push_back(one);
    }
    j["only_before"] = c.only_before;
    j["only_after"] = c.only_after;
    std::cout << j.dump(2) << "\n";
  } else {
    const bool csv = a.format == "csv";
    if (csv) std::printf("case,before_us,after_us,after_over_before,noise_us,regression,verdict\n");
    else std::printf("%-100s %11s %11s %8s\n", "case", "before us", "after us", "ratio");
    for (const auto& k : c.cases) {
      if (csv)
        std::printf("%s,%.4f,%.4f,%.4f,%.4f,%d,%s\n", k.name.c_str(), k.before_us, k.after_us, k.ratio, k.noise_us,
                    static_cast<int>(k.regression), k.verdict().c_str());
      else
        std::printf("%-100s %11.3f %11.3f %8.3f %s\n", k.name.c_str(), k.before_us, k.after_us, k.ratio,
                    k.regression          ? "REGRESSION"
                    : !k.unstable.empty() ? ("UNSURE: unstable " + k.unstable).c_str()
                                          : "");
    }
    if (!csv) {
      std::printf("%zu cases in both; geometric mean of after/before %.4f (above 1: slower); %d regression(s) "
                  "beyond %.0f%% and the measured noise; %zu only before, %zu only after\n",
                  c.cases.size(), c.geomean_ratio, c.regressions, a.threshold * 100, c.only_before.size(),
                  c.only_after.size());
      if (c.unstable)
        std::printf("%d case(s) measured unstable before or after: their ratio is in the geometric mean, but no "
                    "verdict is given on them (UNSURE)\n", c.unstable);
    }
  }
  return c.regressions > 0 ? 3 : 0;
}

// The area scores of every result set scored, labelled for the bar chart; with --plots, what each file's plots
// need (plot_files.h draws every file on each chart).
struct AreaSets {
  std::vector<std::string> names;
  std::vector<std::vector<AreaScore>> scores;
  std::vector<PlotSet> plots;
};

// Scores one results file and prints them; run_scores writes the plots of all files.
int score_set(const Args& a, const std::string& file, AreaSets* sets) {
  const ResultSet results = load(file, a.statistic);
  const std::string dir = shapes_dir(a);
  std::vector<std::string> names;
  std::istringstream list(a.models);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty()) names.push_back(name);
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
  sets->names.push_back(results.context.count("gpu") ? results.context.at("gpu") + " (" + file + ")" : file);
  sets->scores.push_back(areas);
  if (!a.plots.empty()) sets->plots.push_back({sets->names.back(), results, models, report.area_defs, areas});
  if (a.format == "json") {
    std::cout << score_report_json(report, results, file, a.precision).dump(2) << "\n";
    return 0;
  }
  const bool csv = a.format == "csv";
  std::printf(csv ? "kind,name,area,score_ms,calls,coverage_calls,coverage_time,measured_ms\n"
                  : "Scores in ms (sum of calls x measured time per call): lower is better. Precision %s.\n"
                    "%-24s %-15s %12s %8s %10s %10s %12s\n",
              a.precision.c_str(), "model", "area", "score ms", "calls", "cov calls", "cov time", "measured ms");
  for (const auto& s : scores) {
    const std::string cov_time = s.coverage_time() >= 0 ? std::to_string(s.coverage_time()) : "";
    const std::string measured = s.measured_ms ? std::to_string(*s.measured_ms) : "";
    if (csv)
      std::printf("model,%s,%s,%.6f,%lld,%.4f,%s,%s\n", s.name.c_str(), s.area.c_str(), s.score_ms,
                  static_cast<long long>(s.calls), s.coverage_calls(), cov_time.c_str(), measured.c_str());
    else
      std::printf("%-24s %-15s %12.4f %8lld %9.1f%% %10s %12s\n", s.name.c_str(), s.area.c_str(), s.score_ms,
                  static_cast<long long>(s.calls), 100 * s.coverage_calls(),
                  s.coverage_time() >= 0 ? (std::to_string(static_cast<int>(100 * s.coverage_time())) + "%").c_str()
                                         : "-",
                  s.measured_ms ? measured.c_str() : "-");
  }
  for (const auto& ar : areas) {
    if (csv) std::printf("area,%s,,%.6f,,,,\n", ar.name.c_str(), ar.score_ms);
    else std::printf("area %-19s %-15s %12.4f\n", ar.name.c_str(), "", ar.score_ms);
  }
  // Unstable cases count in the scores with their time, but say so: two of their measurements disagreed.
  std::set<std::string> unstable;
  for (const auto& s : scores) unstable.insert(s.unstable.begin(), s.unstable.end());
  if (!csv && !unstable.empty()) {
    std::printf("note: %zu scored case(s) were measured unstable (two measurements disagreed by more than 1.3x); "
                "their time counts in the scores:\n", unstable.size());
    for (const auto& name : unstable)
      std::printf("  %s: %s\n", name.c_str(), results.cases.at(name).reason.c_str());
  }
  return 0;
}

}  // namespace

int run_scores(const Args& a) {
  AreaSets sets;
  for (std::size_t i = 0; i < a.files.size(); ++i) {
    if (a.files.size() > 1) std::printf("%s== %s\n", i ? "\n" : "", a.files[i].c_str());
    score_set(a, a.files[i], &sets);
  }
  if (!a.plots.empty()) write_plots(a.plots, sets.plots, a.inputs, a.precision);
  return 0;
}

int run_spreadsheet(const Args& a) {
  const ResultSet results = load(a.files[0], a.statistic);
  const std::vector<Sheet> sheets = deepbench_sheets(results);
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

int main(int argc, char** argv) {
  try {
    // Subcommands, each in its own file: submission bundles (bundle.cpp) and the results page (page.cpp).
    if (argc > 1) {
      const std::string sub = argv[1];
      if (sub == "pack") return pack_main(argc - 1, argv + 1);
      if (sub == "check") return check_main(argc - 1, argv + 1);
      if (sub == "page") return page_main(argc - 1, argv + 1);
    }
    const Args a = parse(argc, argv);
    if (!a.spreadsheet.empty()) return run_spreadsheet(a);
    return a.compare ? run_compare(a) : run_scores(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark-aggregate: %s\n", e.what());
    return 2;
  }
}
