#include "aggregate/command_line.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "aggregate/db_command.h"
#include "core/text.h"

namespace opmark::aggregate {

namespace {

const std::set<std::string> kCommands = {"scores", "spreadsheet", "compare", "pack", "check", "page", "counters", "db"};

void add_score_options(CLI::App& cmd, ScoreOptions& o) {
  cmd.add_option("--models", o.models, "model tables to score: names in shapes/models, all (the forward-pass tables), "
                                       "all_train, or paths")->capture_default_str();
  cmd.add_option("--precision", o.precision, "precision the models run in")->capture_default_str();
  cmd.add_option("--inputs", o.inputs_text, "model input sizes, e.g. B=16,S=128 (default: the tables' own)");
  cmd.add_option("--statistic", o.statistic_name, "time of a case over its repetitions: median, min or mean")
      ->capture_default_str();
  cmd.add_flag("--allow-missing", o.allow_missing,
               "score what was measured when cases the models need are missing (coverage says what is left out)");
  cmd.add_option("--format", o.format, "table, json (models[], areas[]) or csv")->capture_default_str();
  cmd.add_flag("--detail", o.detail, "also each model's time by family beside the framework's kernel time and its "
                                     "headroom, and with several results files each one's own table");
  cmd.add_option("--shapes", o.shapes, "the shapes folder (default: that of the opmark tree this is run in)");
  cmd.add_option("--plots", o.plots, "also write SVG plots to this folder: roofline per precision, each area's "
                                     "operator chart and the area scores, every RESULTS file on each chart");
  cmd.add_option("--spreadsheet", o.spreadsheet, "write the DeepBench-style tables to this folder instead "
                                                 "(as the spreadsheet command)");
}

void add_compare_options(CLI::App& cmd, CompareOptions& o) {
  cmd.add_option("BEFORE", o.before, "results.jsonl, benchmark.json or a bundle folder")->required();
  cmd.add_option("AFTER", o.after, "the same, measured after")->required();
  cmd.add_option("--threshold", o.threshold, "the least change called: a smaller one in after/before is `same` (0.02: 2%; the page uses 0.02); a larger one "
                 "is called only beyond the runs' noise too (aggregate/README.md)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--format", o.format, "md (aligned markdown), csv (one row per case) or json (everything)")
      ->check(CLI::IsMember({"md", "csv", "json", "table"}))
      ->capture_default_str();
  cmd.add_flag("--all", o.all, "list the cases whose verdict is `same` too, and the cases only one run has");
  cmd.add_option("--statistic", o.statistic_name, "time of a case over its repetitions: median, min or mean")
      ->capture_default_str();
  cmd.add_option("--shapes", o.shapes, "the shapes folder whose model tables give the areas (default: that of the "
                                       "opmark tree this is run in)");
}

void add_bundle_options(CLI::App& cmd, BundleOptions& o) {
  cmd.add_option("BUNDLE", o.bundle, "the bundle folder (results/<system>/)")->required();
  cmd.add_option("--rules", o.rules, "the submission rules (default: SHAPES/submission.yaml; the first line of the "
                                     "output names the file used)");
  cmd.add_option("--shapes", o.shapes, "the shapes folder (default: that of the opmark tree this is run in)");
}

void add_pack_options(CLI::App& cmd, PackOptions& o) {
  add_bundle_options(cmd, o);
  cmd.add_option("--vendor", o.who.vendor, "who makes the system (required unless --rederive)");
  cmd.add_option("--system-name", o.who.system_name, "the system's name (required unless --rederive)");
  cmd.add_option("--submitter", o.who.submitter, "who ran it (required unless --rederive)");
  cmd.add_option("--division", o.who.division, "closed (opmark unmodified) or open")
      ->check(CLI::IsMember({"closed", "open"}))
      ->capture_default_str();
  cmd.add_option("--modifications", o.who.modifications, "what differs from opmark unmodified (open division)");
  cmd.add_option("--started", o.who.started, "when the run began, ISO 8601");
  cmd.add_option("--wall-s", o.who.wall_s, "the whole submission run, seconds")->check(CLI::NonNegativeNumber);
  cmd.add_flag("--rederive", o.rederive, "rewrite only the derived files (scores.json, spreadsheet/); "
                                         "system.yaml stays");
}

// The flag spelling before compare was a subcommand, and a results file with no command (scores), as the
// subcommand they mean.
std::vector<std::string> with_command(std::vector<std::string> words) {
  // CLI11 (2.1) reads `--name=` as a name without its value and takes the next word as the value: opmark-submit's
  // `--modifications= --started=...` packed a bundle with "--started=..." as its modifications and no start time.
  // An empty value given with '=' is an empty value: split it into the name and an empty word.
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() > 3 && w.compare(0, 2, "--") == 0 && w.back() == '=' && w.find('=') == w.size() - 1) {
      words[i] = w.substr(0, w.size() - 1);
      words.insert(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::string());
      ++i;
    }
  }
  const auto old_compare = std::find(words.begin(), words.end(), "--compare");
  if (old_compare != words.end()) {
    std::fprintf(stderr, "opmark-aggregate: --compare is deprecated: use `opmark-aggregate compare BEFORE AFTER`\n");
    words.erase(old_compare);
    words.insert(words.begin(), "compare");
  } else if (!words.empty() && !kCommands.count(words[0]) && words[0] != "--help" && words[0] != "-h" &&
             words[0] != "--version") {
    words.insert(words.begin(), "scores");
  }
  return words;
}

// Why the words cannot be run, before CLI11 reads them: none at all, or a first word that is neither a command, a
// flag nor a path (a misspelt command was read as a results file, and scores then failed to open it). "" when fine.
std::string misread_command(const std::vector<std::string>& words) {
  std::string commands;
  for (const auto& c : kCommands) commands += (commands.empty() ? "" : ", ") + c;
  if (words.empty()) return "give a command (" + commands + ") or a results file; --help says more";
  const std::string& first = words[0];
  std::error_code ec;
  if (kCommands.count(first) || first.rfind("-", 0) == 0 || std::filesystem::exists(first, ec)) return "";
  std::string nearest;
  std::size_t best = 3;  // at most two edits away
  for (const auto& c : kCommands)
    if (const std::size_t d = core::edit_distance(first, c); d < best) {
      best = d;
      nearest = c;
    }
  return "'" + first + "' is neither a command (" + commands + ") nor a results file" +
         (nearest.empty() ? std::string() : "; did you mean '" + nearest + "'?");
}

}  // namespace

CommandLine parse_command_line(std::vector<std::string> words, const std::string& version, std::ostream& out,
                               std::ostream& err) {
  CommandLine line;
  CLI::App app{"opmark-aggregate: measured results -> model and area scores, spreadsheets, comparisons, submission "
               "bundles and the results page. Runs anywhere: no GPU, no CUDA.",
               "opmark-aggregate"};
  app.set_version_flag("--version", version);
  app.require_subcommand(1);

  auto* scores = app.add_subcommand("scores", "model and area scores (OpBench) with coverage, in ms: lower is better");
  scores->add_option("RESULTS", line.scores.files, "results.jsonl, benchmark.json or bundle folders; several "
                                                      "are scored side by side")->required();
  add_score_options(*scores, line.scores);

  auto* spreadsheet = app.add_subcommand("spreadsheet", "DeepBench-style tables: DIR/<precision>_<family>.csv, "
                                                        "specs.csv and DIR/opmark.xlsx where built with libxlsxwriter");
  spreadsheet->add_option("RESULTS", line.spreadsheet.files,
                          "results.jsonl, benchmark.json or a bundle folder; several: their times side by side, "
                          "one table per precision and family")
      ->required();
  spreadsheet->add_option("--out", line.spreadsheet.spreadsheet, "the folder to write")->required();

  auto* compare = app.add_subcommand("compare", "what changed between two runs, a verdict per case (same, faster, "
                                                "slower, unclear), per family and area, and how the runs differ");
  add_compare_options(*compare, line.compare);

  auto* pack = app.add_subcommand("pack", "write a bundle's system.yaml and derived files (scores.json, "
                                          "spreadsheet/) from its run/results.jsonl");
  add_pack_options(*pack, line.pack);

  auto* check = app.add_subcommand("check", "list every problem of a submission bundle (exit 1 when there is any)");
  add_bundle_options(*check, line.check);
  check->add_option("--rules-version", line.check.rules_version,
                    "apply this older rules version on purpose (submission_vN.yaml beside the rules); default: the "
                    "newest, whatever the bundle claims")
      ->check(CLI::PositiveNumber);

  auto* page = app.add_subcommand("page", "one static HTML page over every bundle under a folder (no network "
                                          "needed to view it)");
  page->add_option("RESULTS_DIR", line.page.dir, "the folder of bundles (results/)")->required();
  page->add_option("--out", line.page.out, "the page to write (default: RESULTS_DIR/index.html)");
  page->add_option("--rules", line.page.check.rules, "the rules every bundle is checked against (default: the newest, "
                                                     "SHAPES/submission.yaml)");
  page->add_option("--shapes", line.page.check.shapes, "the shapes folder (default: that of the opmark tree this is run in)");
  page->add_option("--rules-version", line.page.check.rules_version, "check every bundle against this older rules version")
      ->check(CLI::PositiveNumber);
  page->add_flag("--unchecked", line.page.unchecked, "show bundles without checking them, the page labelled NOT CHECKED "
                                                "(display fixtures, drafts; never for publishing)");
  page->add_flag("--runs", line.page.runs, "show plain runs (results.jsonl, not checked) too, in a part of their own "
                                          "after the bundles, every time marked not checked");
  page->add_option("--db", line.page.db, "also a History section from this results database (opmark-aggregate db): "
                                         "each family's time over its checked bundles per GPU, the changes between "
                                         "them and a chart of each case they name");
  page->footer(
      "Every folder under RESULTS_DIR holding system.yaml, run/results.jsonl and scores.json is a bundle\n"
      "(results/README.md), checked first as opmark-aggregate check does: only bundles that pass are shown, the\n"
      "others listed as rejected with the checker's reasons. A folder holding part of a bundle (scores.json,\n"
      "spreadsheet/ or run/) but no system.yaml is a rejected bundle too. A plain run's folder (results.jsonl, as\n"
      "--opmark_out writes it) is never checked: it is counted, and shown only with --runs, in a part of its own,\n"
      "every time marked \"not checked\"; it joins no score, speedup or case table. The page needs no network:\n"
      "styles, script, charts and data are all inside it. Memory holds the shown bundles (each at most 256 MiB of\n"
      "results, and only the rules' cases) and one plain run at a time.\n\nExit status: 0 done, 2 an error.");

  auto* counters = app.add_subcommand("counters", "the counters a case's record carries: name, unit, families, meaning");
  counters->add_flag("--json", line.counters_json, "the schema as JSON (what bench/compare/counters.json holds)");

  auto* db = add_db_command(app, line.db);

  // Set last: a subcommand takes its parent's footer when it is added.
  app.footer("With no command, RESULTS... [flags] runs scores (and --compare BEFORE AFTER, deprecated, runs compare).\n"
             "Exit status: 0 done; 1 check found problems; 2 an error; 3 compare found a case slower beyond the "
             "threshold and the noise.\nRun opmark-aggregate COMMAND --help for a command's flags.");
  for (auto* cmd : {scores, spreadsheet, pack, counters}) cmd->footer("Exit status: 0 done, 2 an error.");
  compare->footer("Exit status: 0 no case slower; 3 a case slower beyond --threshold and the noise the runs measured "
                  "(for CI); 2 an error.");
  check->footer("Exit status: 0 the bundle has no problem; 1 it has problems (listed, each with what to do); 2 it "
                "could not be checked.");

  if (const std::string why = misread_command(words); !why.empty()) {
    err << "opmark-aggregate: " << core::terminal_text(why) << "\n";
    line.exit_status = 2;
    return line;
  }
  words = with_command(std::move(words));
  std::string program = "opmark-aggregate";
  std::vector<char*> args = {program.data()};
  for (auto& word : words) args.push_back(word.data());
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // Help and version are exit 0; a wrong flag is an error like any other (2).
    line.exit_status = app.exit(e, out, err) == 0 ? 0 : 2;
    return line;
  }
  db->footer("Exit status: 0 done; 1 regressions found a case slower; 2 an error.");
  for (const auto* cmd : {scores, spreadsheet, compare, pack, check, page, counters, db})
    if (cmd->parsed()) line.command = cmd->get_name();
  return line;
}

}  // namespace opmark::aggregate
