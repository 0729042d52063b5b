#include "bench/app/plan.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "bench/harness/cases/case_filter.h"
#include "core/error.h"
#include "core/families.h"
#include "core/model_table.h"
#include "core/schema.h"
#include "core/shapes_dir.h"

namespace fs = std::filesystem;

namespace opmark::bench::app {
namespace {

// A bare name is a suite of the shapes folder (submission, quick); anything else a rules file's path.
std::string rules_path(const std::string& suite, const std::string& shapes_dir) {
  const bool named = suite.find('/') == std::string::npos && fs::path(suite).extension() != ".yaml";
  if (!named) return suite;
  const std::string rules = (fs::path(shapes_dir) / (suite + ".yaml")).string();
  if (!fs::exists(rules))
    throw Error("--opmark_suite=" + suite + ": no " + rules + " (the suites are submission and quick; or give a "
                "rules file's path)");
  return rules;
}

void load_suite_cases(RunPlan& plan, Options& options, const std::string& filter) {
  const auto& sel = options.selection;
  if (!sel.families.empty() || !sel.sets.empty() || !sel.precisions.empty() || !options.models.empty())
    throw Error("--opmark_suite picks the cases itself: drop --opmark_family, --opmark_set, --opmark_precision "
                "and --opmark_models (use --benchmark_filter to run part of a suite)");
  const std::string rules = rules_path(options.suite, plan.shape_dirs.front());
  plan.suite = core::load_suite(rules);
  plan.cases = core::suite_cases(*plan.suite, plan.tables,
                                 core::load_models(plan.suite->model_names, plan.shape_dirs, plan.suite->model_folder));
  std::fprintf(stderr, "opmark: the suite %s (rules version %d) names %zu distinct cases\n", rules.c_str(),
               plan.suite->rules_version, plan.cases.size());
  // The settings the rules fix or bound (core/run_spec.cpp's table), over those the command line left at defaults.
  core::apply_rules(options, *plan.suite, rules, filter.empty());
  if (options.max_repetitions < options.min_repetitions) options.min_repetitions = options.max_repetitions;
}

// The models' cases, each unique case once across models (Benanza's unique layers).
void load_model_cases(RunPlan& plan, const Options& options) {
  std::vector<core::ModelTable> models;
  try {
    models = core::load_models(options.models, plan.shape_dirs);
  } catch (const TableError&) {
    throw;  // already names the file and line
  } catch (const Error& e) {
    throw Error(std::string("--opmark_models: ") + e.what());
  }
  core::check_inputs(models, options.inputs);
  std::vector<std::string> precisions(options.selection.precisions.begin(), options.selection.precisions.end());
  if (precisions.empty()) precisions = {"fp16"};
  plan.cases = core::model_cases(models, options.inputs, precisions);
  std::fprintf(stderr, "opmark: %zu models need %zu distinct cases\n", models.size(), plan.cases.size());
}

}  // namespace

void check_flags_apply(const Options& o, const core::Symbols& given_symbols) {
  if (!o.suite.empty() && (!given_symbols.empty() || !o.inputs.empty()))
    throw Error("--opmark_suite runs the shapes the rules fix: drop --opmark_symbols and --opmark_inputs");
  if (!o.models.empty() && (!given_symbols.empty() || !o.selection.sets.empty()))
    throw Error("--opmark_models runs the models' cases, not the shape tables' sets: drop --opmark_set and "
                "--opmark_symbols (--opmark_inputs=B=16 sets a model's input sizes)");
  if (o.models.empty() && o.suite.empty() && !o.inputs.empty())
    throw Error("--opmark_inputs sets the input sizes of --opmark_models; the shape tables take --opmark_symbols");
  if (o.profile_graph && o.profile_launches == 0)
    throw Error("--opmark_profile_graph says how --opmark_profile_launches=K profiles: give K too");
}

RunPlan load_plan(Options& options, const core::Symbols& given_symbols, const std::string& filter) {
  RunPlan plan;
  // $OPMARK_SHAPES, the installed tables beside the executable, or the source tree's (core/shapes_dir.h).
  plan.shape_dirs = options.shapes.empty() ? std::vector<std::string>{core::default_shapes_dir().path} : options.shapes;
  plan.tables = core::load_tables(plan.shape_dirs);
  if (!options.suite.empty()) {
    load_suite_cases(plan, options, filter);
  } else if (options.models.empty()) {
    core::Selection asked = options.selection;  // the user's own symbols: the process group's G need not be used
    asked.symbols = given_symbols;
    core::check_selection(plan.tables, asked);
    plan.cases = core::expand_tables(plan.tables, options.selection);
  } else {
    load_model_cases(plan, options);
  }
  return plan;
}

void print_plan(const RunPlan& plan) {
  std::map<std::string, int> by_family_precision;
  for (const auto& c : plan.cases) ++by_family_precision[c.family + " " + c.precision];
  std::size_t rows = 0;
  for (const auto& t : plan.tables)
    for (const auto& s : t.sets) rows += s.rows.size();
  std::printf("opmark: %zu tables, %zu rows, %zu distinct cases\n", plan.tables.size(), rows, plan.cases.size());
  for (const auto& [key, n] : by_family_precision) std::printf("  %-24s %d cases\n", key.c_str(), n);
}

void keep_runnable(RunPlan& plan, const WorkloadRegistry& workloads, const ProcessGroup& group,
                   const std::string& filter) {
  std::vector<core::Case>& cases = plan.cases;
  // Tables can arrive before their family's benchmark: such cases are checked but not registered.
  std::map<std::string, int> not_runnable;
  std::vector<core::Case> runnable;
  for (auto& c : cases) {
    if (workloads.has(c.family)) runnable.push_back(std::move(c));
    else ++not_runnable[c.family];
  }
  cases = std::move(runnable);
  if (group.multi_process()) {  // only a collective spans processes; the rest would run once per rank
    std::vector<core::Case> collective;
    for (auto& c : cases)
      if (core::family_info(c.family).collective) collective.push_back(std::move(c));
    if (collective.size() < cases.size())
      std::fprintf(stderr,
                   "opmark: %zu process(es): running the collective families only (%zu other case(s) left out)\n",
                   static_cast<std::size_t>(group.size()), cases.size() - collective.size());
    cases = std::move(collective);
  }
  for (const auto& [family, n] : not_runnable)
    std::fprintf(stderr, "opmark: %s: %d cases selected, no benchmark for this family in this build yet\n",
                 family.c_str(), n);
  if (cases.empty()) std::fprintf(stderr, "opmark: the selection matches no case that this build can run\n");
  // opmark applies --benchmark_filter to its own case names and registers only what it keeps (case_filter.h).
  std::vector<std::string> names, short_names;
  for (const auto& c : cases) {
    names.push_back(core::make_case_name(c));
    short_names.push_back(core::short_case_name(c));
  }
  const std::vector<std::size_t> selected = select_cases(names, filter, short_names);
  check_filter_selects(names, filter, selected);
  std::vector<core::Case> kept;
  for (std::size_t i : selected) kept.push_back(std::move(cases[i]));
  cases = std::move(kept);
}

}  // namespace opmark::bench::app
