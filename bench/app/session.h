#pragma once
// The session: the output folder this run holds until it ends (taken before anything is read, so a second run on it
// is refused at once), what a resumed run keeps of the results already there, and where the results go.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/harness/options.h"
#include "bench/harness/output/output_folder.h"
#include "bench/harness/process_group.h"
#include "core/resume.h"

namespace opmark::bench::app {

struct Session {
  std::optional<OutputFolderLock> lock;   // held by rank 0 alone, which alone writes files
  // --opmark_resume: the log's context line, read first; then, once this run's context matches it (check_resume),
  // the log, whose cases held in full are not run again.
  std::optional<nlohmann::json> resumed_context;
  std::optional<core::ResumeState> resumed;
  std::string created_root;  // the outermost folder of the output path this run created ("" where it created none)
  std::string log_path;   // results.jsonl in the folder held, or "" where this process writes no files
  std::string json_path;  // opmark's benchmark.json, or "" (no files, or the user named Google Benchmark's own)
};

// One process per GPU (MPI): rank 0 alone prints and writes files; the all-reduce's ranks default to the process
// count (the symbol G); each process takes the GPU of its rank on its host.
void join_process_group(Options& options, const ProcessGroup& group);

// `listing`: --benchmark_list_tests, which writes nothing and so takes no folder.
Session open_session(const Options& options, const ProcessGroup& group, bool listing);

// Where opmark's benchmark.json goes, where this process holds the output folder. `user_json`: --benchmark_out given
// (Google Benchmark writes that file itself).
void choose_json_output(Session& session, const Options& options, bool user_json);

// A run that measures nothing (no GPU) leaves no folder it made: the lock goes, then the folder where it is empty.
void discard_unused_folder(Session& session, const Options& options);

// A resumed run must be the same run: throws, naming each setting that differs, where `context` (this run's) does not
// match the log's context line; reads the log only then.
void check_resume(Session& session, const nlohmann::json& context);
// Before the resumed run measures: the log as the kill left it, less what is measured again (replaced whole, so a
// crash here loses nothing), and benchmark.json with the entries of the cases kept.
void keep_resumed(const Session& session);
// After a resumed run: its benchmark.resumed.json joined to benchmark.json, one file as an unbroken run writes.
void finish_resumed_json(const Session& session);

}  // namespace opmark::bench::app
