#pragma once
// The results database (opmark-aggregate db): every run ingested once into SQLite (one file, opmark.db by default)
// or PostgreSQL (a server a team shares), so a case's history across runs, GPUs and software versions can be asked
// for, and the runs where a case changed beyond its noise found. One versioned schema, migrated forward when opened;
// writers take turns (aggregate/db_connection.h), so two ingests at once are both kept. Each ingest is one transaction: a failed or killed one leaves the database as it
// was. A run is recognised by its content (a hash of its results log), so ingesting it again adds nothing.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/verdict.h"

namespace opmark::aggregate {

class DbConnection;

// The schema this build writes; a database of a newer one is refused, an older one migrated.
inline constexpr int kResultsDbSchema = 2;

struct DbRun {
  std::int64_t id = 0;
  std::string gpu, driver, cuda, cudnn, cublaslt, nccl, opmark_git, regime, started_at, source;
  int checked = -1;  // 1: a bundle that passed check; 0: one that did not; -1: a plain run (not checked)
  std::int64_t cases = 0;
};

struct DbPoint {
  DbRun run;
  std::string status;
  double time_us = 0;
  bool timed() const { return status == "ok" || status == "unstable"; }  // else a gap in a chart's line
};

struct DbSeries {
  std::string case_name;
  std::vector<DbPoint> points;  // by run start
};

// A case that changed between two consecutive runs on one GPU model, by compare's verdict, and what software
// changed between them ("cudnn 9.14.0 -> 9.19.0"; empty where none recorded did).
struct DbChange {
  std::string case_name, gpu;
  DbRun before, after;
  CaseVerdict verdict;
  std::string software;
  std::string candidate_change;  // "X -> Y" where the tuner chose another candidate between the two runs
};

class ResultsDb {
 public:
  // Opens (creating where missing) the SQLite database at `db`, or the PostgreSQL database a postgresql:// URL
  // names. Throws opmark::Error naming the file or the URL (its password left out) where it cannot be opened or
  // reached, is no SQLite database, another program's, or of a newer schema than kResultsDbSchema.
  explicit ResultsDb(const std::string& db);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  int schema_version();

  struct Ingested {
    std::int64_t run_id = 0;
    bool added = false;  // false: the same run was there already
    std::size_t cases = 0;
  };
  // A run read and checked, ready to store: reading is the slow part of an ingest, and needs no database, so several
  // runs may be read at once on several threads and stored one after another.
  struct ReadRun {
    std::string log, hash;
    std::string legacy_hash;  // the older hash of the same log, where asked for (has_legacy_hashes)
    ResultSet results;
    int checked = -1;
  };
  // A results.jsonl (gzip-compressed or not), a run folder or a bundle folder (its run/results.jsonl.gz; `checked`
  // says whether the bundle passed check, -1 for a plain run). Thread-safe: touches no database.
  // `legacy_hash`: the run also carries the hash opmark named runs by before 2026-11-29, by which a database that
  // has_legacy_hashes() recognises a run it stored then.
  static ReadRun read_run(const std::string& path, int checked = -1, bool legacy_hash = false);
  bool has_legacy_hashes();
  Ingested store(const ReadRun& run);
  Ingested ingest(const std::string& path, int checked = -1) {
    return store(read_run(path, checked, has_legacy_hashes()));
  }

  // The runs, oldest first; `gpu` filters by substring ("" all), `since` by start time (an ISO date or time, ""
  // all), as every query below does.
  std::vector<DbRun> runs(const std::string& gpu = "", const std::string& since = "");
  // The series of every case whose name matches `case_regex` (ECMAScript), on GPUs whose name holds `gpu`.
  // checked_only: bundles that passed check only (what the results page publishes).
  std::vector<DbSeries> history(const std::string& case_regex, const std::string& gpu = "",
                                const std::string& since = "", bool checked_only = false);
  // Along each GPU model's runs in one regime, in order, every case whose verdict between consecutive runs is
  // `slower` (or, with `faster_too`, `faster`), by case_verdict.
  std::vector<DbChange> regressions(const std::string& case_regex = "", const std::string& gpu = "",
                                    bool faster_too = false, const std::string& since = "",
                                    bool checked_only = false);
  // Every stored result as CSV, one row a run and case with the run's GPU and software: for a spreadsheet or another
  // database.
  void export_csv(std::ostream& out, const std::string& gpu = "", const std::string& since = "");

 private:
  void exec(const std::string& sql);
  void migrate();
  std::unique_ptr<DbConnection> db_;
  // The ids of the cases this connection has stored or seen committed: a case's id never changes once given, so the
  // runs after the first look theirs up here rather than with two statements each.
  std::map<std::string, std::int64_t> case_ids_;
  std::map<std::string, std::int64_t> candidate_ids_;  // the same for the chosen candidates' names
  std::string path_;  // for messages: the file, or the URL without its password
};

}  // namespace opmark::aggregate
