#pragma once
// Submission bundles (results/README.md): a run's raw results plus system.yaml and the files derived from the run
// (scores.json, the DeepBench-style CSV spreadsheet). `pack` writes system.yaml and the derived files; `check`
// lists every problem of a bundle, with what to do about it.
#include <map>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/score_report.h"
#include "aggregate/system_description.h"
#include "core/model_table.h"
#include "core/suite.h"

namespace opmark::aggregate {

// What pack and check are given (cli.cpp spells the flags). Rules and shapes left empty are the defaults:
// default_shapes_dir() and its submission.yaml; rules_origin then says where they came from, printed first.
struct BundleOptions {
  std::string bundle, rules, shapes;
  std::string rules_origin;  // set by fill_defaults: "from the source tree this is run in", ...
  void fill_defaults();
};

// opmark-aggregate pack BUNDLE --vendor=V --system-name=S --submitter=W [--division=closed|open]
//   [--modifications=TEXT] [--started=ISO] [--wall-s=N] [--rules=PATH] [--shapes=DIR].
// pack BUNDLE --rederive rewrites only the derived files: after a model table changes (traced times, say), the
// scores it gives change too, while the run and its system.yaml stay what they were. Exit status 0, or 2 on error.
struct PackOptions : BundleOptions {
  Submitter who;
  bool rederive = false;
};
int run_pack(PackOptions options);

// opmark-aggregate check BUNDLE [--rules=PATH] [--shapes=DIR] [--rules-version=N]: exit 0 when the bundle has no
// problem, 1 otherwise, 2 when it could not be checked. The first line names the rules file, where it came from,
// the version applied and why (the newest, or asked for with --rules-version: submission_vN.yaml beside the rules).
struct CheckOptions : BundleOptions {
  int rules_version = 0;  // 0: the newest
};
int run_check(CheckOptions options);

// The rules a run is checked and packed under: those at `rules_path`, unless the run's context names another
// rules_version N and a file submission_vN.yaml lies beside them, which is read instead; `note` (when given) then
// says so, and stays empty otherwise. Throws TableError where the rules read do not load.
core::Suite rules_for_run(const std::string& rules_path, const std::map<std::string, std::string>& context,
                          std::string* note);

// The files of a bundle, relative to its folder.
namespace bundle_path {
inline constexpr const char* system = "system.yaml";
inline constexpr const char* results = "run/results.jsonl";
inline constexpr const char* benchmark_json = "run/benchmark.json";
inline constexpr const char* scores = "scores.json";
inline constexpr const char* spreadsheet = "spreadsheet";
}  // namespace bundle_path

// A raw file of the bundle (run/results.jsonl, run/benchmark.json): DIR/REL, or DIR/REL.gz where the bundle keeps it
// gzip-compressed, as committed bundles do (opmark-submit compresses them). DIR/REL when neither exists.
std::string raw_file(const std::string& dir, const std::string& rel);
// The same, relative to the bundle: REL or REL.gz.
std::string raw_file_rel(const std::string& dir, const std::string& rel);

// A bundle holds its own files: the first of DIR/REL's parts under DIR (its folders, then the file) that is a
// symbolic link, as a path; empty where none is.
std::string symlink_in_bundle(const std::string& dir, const std::string& rel);

// The text of the bundle's file DIR/REL (gzip-inflated where `inflate`), within the read limits (files.h). Throws
// opmark::Error naming the file where it is a symbolic link or lies behind one (a bundle holds its own files: a
// link could point anywhere, into another bundle or at a device), is no regular file, or cannot be read.
std::string bundle_file_text(const std::string& dir, const std::string& rel, const std::string& what, bool inflate,
                             const ReadLimits& limits = ReadLimits{});

// The limits for a bundle's small text files (system.yaml, scores.json, the derived CSV): 16 MiB each.
ReadLimits small_file_limits();

// The limits on a bundle's results file: kMaxBundleResultsBytes decompressed, the others as ReadLimits' defaults.
ReadLimits bundle_results_limits();

// The bundle's run/results.jsonl (or .gz) read as bundle_file_text reads, then parsed (load_results).
ResultSet load_bundle_results(const std::string& dir, Statistic statistic, const LineVisitor& visit = {});

// The scores a bundle's scores.json holds: the rules' models (`models`, as load_models reads rules.model_names) at
// the rules' precision, with the areas of `shapes_dir`. The page scores plain runs and bundles alike with it.
ScoreReport bundle_score_report(const ResultSet& results, const core::Suite& rules,
                                const std::vector<core::ModelTable>& models, const std::string& shapes_dir);

// The derived files (path relative to the bundle -> content) from the run's results: scores.json for the rules'
// models (`models`, as load_models reads rules.model_names) and precision, with the areas of `shapes_dir`, and
// spreadsheet/<sheet>.csv.
std::map<std::string, std::string> derived_files(const ResultSet& results, const core::Suite& rules,
                                                 const std::vector<core::ModelTable>& models,
                                                 const std::string& shapes_dir);

struct Problem {
  std::string what;  // what is wrong, naming the file (and line) or the case
  std::string fix;   // what to do about it
  std::string kind;  // its class ("rules", "power and energy", ...): tests and summaries group by it
};

// A case's noise as the rules measure it: the median absolute deviation of its repetitions over their median.
double relative_mad(const std::vector<double>& times);

// The rules a bundle is checked against are the checker's choice, never the bundle's: those at `rules_path` (the
// newest), unless `asked_version` (> 0) names another version on purpose, then submission_vN.yaml beside them.
// `why` (when given) says which: "newest" or "asked for". Throws opmark::Error where the version asked for is not
// kept, TableError where the rules do not load.
core::Suite rules_to_apply(const std::string& rules_path, int asked_version, std::string* why);

// Every problem of the bundle in `dir` under the rules rules_to_apply picks, with the tables and models of
// `shapes_dir`. A bundle whose context, system.yaml or benchmark.json claims another rules version is rejected.
std::vector<Problem> check_bundle(const std::string& dir, const std::string& rules_path, const std::string& shapes_dir,
                                  int asked_version = 0);

struct CheckReport {
  std::vector<Problem> problems;
  std::vector<std::string> notes;  // what the checker says and is no problem (which rules it applied, and why)
  std::string rules_path;          // the rules the bundle was checked against
  int rules_version = 0;           // their version
  std::string rules_why;           // "newest" or "asked for"
};
CheckReport check_bundle_report(const std::string& dir, const std::string& rules_path, const std::string& shapes_dir,
                                int asked_version = 0);

// The most a bundle's decompressed results file may hold: 256 MiB. A full rules-v4 run is 10 MB; the page and the
// checker hold one parsed copy at a time, several times the text, so this bounds their memory at a few GB.
inline constexpr std::size_t kMaxBundleResultsBytes = std::size_t{256} << 20;

// $OPMARK_SHAPES where set, else the shapes/ folder of the opmark source tree the command is run in (the working
// folder or one above it holding CMakeLists.txt and shapes/submission.yaml), else the installed one beside the
// executable (<bin>/../share/opmark/shapes), else that of the tree this build was made in, else ./shapes.
std::string default_shapes_dir();
// Where a shapes folder default_shapes_dir() gave came from, in words ("from the source tree this is run in").
std::string shapes_dir_origin(const std::string& dir);

}  // namespace opmark::aggregate
