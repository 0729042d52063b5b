// The results database (aggregate/results_db.h) on SQLite and on a real PostgreSQL server: ingest stores a run once
// however often it is given, a failed ingest leaves the database as it was, so does one killed mid-run, two connections
// ingesting at once both keep their runs, an older schema is migrated forward and a foreign, corrupt or newer
// database is refused with its name, and regressions along a GPU's runs
// find a planted 5% step and name the software that changed, while noise alone gives none. The PostgreSQL tests
// (suite PostgresResultsDb) run under test/db/with_postgres.sh, which starts the server (ctest: db.postgres).
#include <gtest/gtest.h>

#ifdef OPMARK_HAVE_SQLITE
#include <sqlite3.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "aggregate/db_connection.h"
#include "aggregate/results_db.h"
#include "core/error.h"

namespace fs = std::filesystem;
using namespace opmark;
using namespace opmark::aggregate;

namespace {

const char* kCase = "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1";
const char* kOther = "pointwise/fwd/fp16/op=relu/rows=8/cols=64/impl=opmark";

// A fresh folder for one test's files.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("opmark_db_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// One run's results.jsonl: the two cases' medians with their run-to-run noise, on `gpu` with cuDNN `cudnn`; the
// GEMM's label names `gemm_algo` as the tuner's choice.
std::string run_text(const std::string& started, const std::string& gpu, const std::string& cudnn, double gemm_us,
                     double relu_us, const std::string& regime = "", const std::string& gemm_algo = "algo 1") {
  const auto median = [](const std::string& name, double t, const std::string& label) {
    return "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + name + "\",\"status\":\"ok\",\"time_us\":" +
           std::to_string(t) + ",\"label\":\"" + label + "\",\"counters\":{\"run_noise\":0.004,\"noise\":0.002}}\n";
  };
  return "{\"type\":\"context\",\"context\":{\"gpu\":\"" + gpu + "\",\"cudnn_version\":\"" + cudnn +
         "\",\"driver_version\":\"580.159.04\",\"started_at\":\"" + started + "\"" +
         (regime.empty() ? "" : ",\"regime\":\"" + regime + "\"") + "}}\n" +
         median(kCase, gemm_us, "cublasLt " + gemm_algo + " (fastest of 4; default cublasLt algo 1, 1.00x)") +
         median(kOther, relu_us, "");
}

// The message of the Error opening `path` throws ("no error" where it opens).
std::string open_error(const fs::path& path) {
  try {
    ResultsDb db(path.string());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

// The test server's database, emptied of opmark's tables; "" where no server was started for the tests.
std::string postgres() {
  const char* url = std::getenv("OPMARK_TEST_POSTGRES");
  if (!url || !*url) return "";
  open_postgres(url)->exec("DROP TABLE IF EXISTS results, cases, candidates, runs, opmark_meta, invoices CASCADE");
  return url;
}

#define NEED_POSTGRES(db)                                                                                     \
  const std::string db = postgres();                                                                         \
  if (db.empty()) GTEST_SKIP() << "no PostgreSQL server: run under test/db/with_postgres.sh (ctest: db.postgres)"


void stored_once(const std::string& store, const fs::path& dir) {
  ResultsDb db(store);
  EXPECT_EQ(db.schema_version(), kResultsDbSchema);
  const std::string run = write(dir / "a.jsonl", run_text("2026-01-01T00:00:00Z", "NVIDIA H100", "9.14.0", 10, 4));
  const auto first = db.ingest(run);
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.cases, 2u);
  fs::copy_file(run, dir / "copy.jsonl");
  const auto again = db.ingest((dir / "copy.jsonl").string());  // the same content under another name
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.run_id, first.run_id);
  // A log with a malformed line after good ones: the ingest throws and no part of it is kept.
  const std::string bad = write(dir / "bad.jsonl", run_text("2026-01-02T00:00:00Z", "NVIDIA H100", "9.14.0", 10, 4) +
                                                       "{\"type\":\"run\", oops}\n");
  EXPECT_THROW(db.ingest(bad), Error);
  EXPECT_EQ(db.runs().size(), 1u);
  EXPECT_THROW(db.ingest((dir / "missing").string()), Error);
}

// Two connections ingesting on two threads at once: every run of both is kept.
void two_at_once(const std::string& store, const fs::path& dir) {
  { ResultsDb create(store); }
  const auto ingest = [&](const std::string& who, const std::string& gpu, int month) {
    ResultsDb db(store);
    for (int i = 0; i < 5; ++i)
      db.ingest(write(dir / (who + std::to_string(i)),
                      run_text("2026-0" + std::to_string(month) + "-0" + std::to_string(i + 1) + "T00:00:00Z", gpu,
                               "9.14.0", 10 + i + month, 4)));
  };
  std::thread a(ingest, "a", "NVIDIA H100", 1), b(ingest, "b", "NVIDIA H200", 2);
  a.join();
  b.join();
  ResultsDb db(store);
  EXPECT_EQ(db.runs().size(), 10u);
  EXPECT_EQ(db.runs("H200").size(), 5u);
}

TEST(ResultsDb, AForeignCorruptOrNewerDatabaseIsRefusedByName) {
  const fs::path dir = scratch("foreign");
  write(dir / "text.db", "this is no database, just text long enough to be read as one....");
  EXPECT_NE(open_error(dir / "text.db").find("text.db: "), std::string::npos) << open_error(dir / "text.db");
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "other.db").string().c_str(), &other), SQLITE_OK);
  sqlite3_exec(other, "CREATE TABLE invoices (id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_NE(open_error(dir / "other.db").find("not an opmark results database"), std::string::npos);
  { ResultsDb db((dir / "newer.db").string()); }
  sqlite3* newer = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "newer.db").string().c_str(), &newer), SQLITE_OK);
  sqlite3_exec(newer, "UPDATE opmark_meta SET value = '99' WHERE key = 'schema'", nullptr, nullptr, nullptr);
  sqlite3_close(newer);
  EXPECT_NE(open_error(dir / "newer.db").find("schema version 99 is newer"), std::string::npos);
}

// A run of `cases` medians, each case its own.
std::string many_cases_text(int cases) {
  std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H100\",\"started_at\":"
                     "\"2026-04-01T00:00:00Z\"}}\n";
  for (int i = 0; i < cases; ++i)
    text += "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"gemm/fwd/fp16/m=" + std::to_string(i) +
            "\",\"status\":\"ok\",\"time_us\":" + std::to_string(10 + i % 7) + ",\"counters\":{\"noise\":0.002}}\n";
  return text;
}

// An ingest killed (SIGKILL) in the middle of storing a run of 50,000 cases leaves the database as it was: no part of
// the run, the store whole, and the same run stored completely by the next ingest.
void killed_mid_ingest(const std::string& store, const fs::path& dir) {
  const int cases = 50000;
  const std::string log = write(dir / "big.jsonl", many_cases_text(cases));
  { ResultsDb create(store); }
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // reads the run, says so, then stores it until killed
    ResultsDb db(store);
    const ResultsDb::ReadRun run = ResultsDb::read_run(log);
    const char go = 1;
    if (::write(ready[1], &go, 1) != 1) ::_exit(2);
    db.store(run);
    ::_exit(0);
  }
  char go = 0;
  ASSERT_EQ(::read(ready[0], &go, 1), 1);
  ::usleep(30000);  // well into the transaction: storing 50,000 cases takes a quarter of a second and more
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the ingest finished before it was killed";
  ResultsDb db(store);
  EXPECT_TRUE(db.runs().empty());
  EXPECT_TRUE(db.history(".").empty());
  const auto again = db.ingest(log);
  EXPECT_TRUE(again.added);
  ASSERT_EQ(db.runs().size(), 1u);
  EXPECT_EQ(db.runs()[0].cases, cases);
}

// A database left at an older schema (here 0: created, no tables yet) is migrated forward when opened.
void older_schema_migrated(const std::string& store, const fs::path& dir, DbConnection& raw) {
  raw.exec("CREATE TABLE opmark_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  raw.exec("INSERT INTO opmark_meta VALUES ('application', 'opmark results database'), ('schema', '0')");
  ResultsDb db(store);
  EXPECT_EQ(db.schema_version(), kResultsDbSchema);
  const std::string run = write(dir / "a.jsonl", run_text("2026-01-01T00:00:00Z", "NVIDIA H100", "9.14.0", 10, 4));
  EXPECT_TRUE(db.ingest(run).added);
  EXPECT_EQ(db.history(".").size(), 2u);
}

void planted_step(const std::string& store, const fs::path& dir) {
  ResultsDb db(store);
  // Six runs on an H100: the GEMM within 0.3% of 10 us, until cuDNN 9.19.0 makes it 5% slower at the fifth (with
  // another algorithm chosen); the ReLU moves by noise alone. An H200 run in between belongs to another series.
  const double gemm[] = {10.0, 10.02, 9.99, 10.01, 10.5, 10.52};
  const double relu[] = {4.0, 4.01, 3.99, 4.0, 4.01, 3.99};
  for (int i = 0; i < 6; ++i)
    db.ingest(write(dir / ("h100_" + std::to_string(i)),
                    run_text("2026-03-0" + std::to_string(i + 1) + "T00:00:00Z", "NVIDIA H100",
                             i < 4 ? "9.14.0" : "9.19.0", gemm[i], relu[i], "", i < 4 ? "algo 1" : "algo 2")));
  db.ingest(write(dir / "h200", run_text("2026-03-03T12:00:00Z", "NVIDIA H200", "9.14.0", 8, 3)));
  const std::vector<DbChange> changes = db.regressions();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].case_name, kCase);
  EXPECT_EQ(changes[0].gpu, "NVIDIA H100");
  EXPECT_EQ(changes[0].after.started_at, "2026-03-05T00:00:00Z");
  EXPECT_EQ(changes[0].software, "cuDNN 9.14.0 -> 9.19.0");
  EXPECT_EQ(changes[0].candidate_change, "cublasLt algo 1 -> cublasLt algo 2");  // the tuner's choice, as compare
  EXPECT_NEAR(changes[0].verdict.ratio, 1.049, 0.001);
  // The history: every run of the GEMM, the H200's among them, in order; a filter by GPU keeps its own.
  const std::vector<DbSeries> history = db.history("^gemm/");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].points.size(), 7u);
  EXPECT_EQ(db.history("^gemm/", "H200")[0].points.size(), 1u);
  EXPECT_THROW(db.history("(unclosed"), Error);
  // --since: the runs from the fourth day on, and the step still found within them; the export, a row a result.
  EXPECT_EQ(db.runs("", "2026-03-04").size(), 3u);
  EXPECT_EQ(db.regressions("", "", false, "2026-03-04").size(), 1u);
  EXPECT_TRUE(db.regressions("", "", false, "2026-03-05T12").empty());
  std::ostringstream csv;
  db.export_csv(csv, "H100", "2026-03-06");
  EXPECT_EQ(csv.str(),
            "run,started_at,gpu,driver,cuda,cudnn,cublaslt,nccl,opmark,regime,checked,case,family,status,time_us\n"
            "6,2026-03-06T00:00:00Z,NVIDIA H100,580.159.04,,9.19.0,,,,,-1," + std::string(kCase) + ",gemm,ok,10.52\n"
            "6,2026-03-06T00:00:00Z,NVIDIA H100,580.159.04,,9.19.0,,,,,-1," + std::string(kOther) +
            ",pointwise,ok,3.99\n");
  // A run of another regime is another series: sustained times 20% above the burst ones are no regression.
  db.ingest(write(dir / "sustained", run_text("2026-03-07T00:00:00Z", "NVIDIA H100", "9.19.0", 12.6, 4.8,
                                              "sustained")));
  EXPECT_EQ(db.regressions().size(), 1u);
}

}  // namespace

TEST(ResultsDb, ARunIsStoredOnceAndAFailedIngestChangesNothing) {
  const fs::path dir = scratch("once");
  stored_once((dir / "o.db").string(), dir);
}
// A run stored by an opmark before runs were named by XXH3 carries the older FNV-1a name: given again, it is still
// recognised, while a database without such runs never computes the older hash.
TEST(ResultsDb, ARunStoredUnderTheOlderHashIsRecognised) {
  const fs::path dir = scratch("legacy");
  const std::string text = run_text("2026-01-01T00:00:00Z", "NVIDIA H100", "9.14.0", 10, 4);
  const std::string run = write(dir / "a.jsonl", text);
  const std::string db_path = (dir / "l.db").string();
  {
    ResultsDb db(db_path);
    ASSERT_TRUE(db.ingest(run).added);
    EXPECT_FALSE(db.has_legacy_hashes());
    EXPECT_TRUE(ResultsDb::read_run(run).legacy_hash.empty());
  }
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64, as opmark named runs before
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char fnv[17];
  std::snprintf(fnv, sizeof fnv, "%016llx", static_cast<unsigned long long>(h));
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &raw), SQLITE_OK);
  const std::string rename =
      "UPDATE runs SET content_hash = '" + std::string(fnv) + "-" + std::to_string(text.size()) + "'";
  ASSERT_EQ(sqlite3_exec(raw, rename.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  ResultsDb db(db_path);
  EXPECT_TRUE(db.has_legacy_hashes());
  const auto again = db.ingest(run);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(db.runs().size(), 1u);
  const std::string other = write(dir / "b.jsonl", run_text("2026-01-02T00:00:00Z", "NVIDIA H100", "9.14.0", 10, 4));
  EXPECT_TRUE(db.ingest(other).added);
}
TEST(ResultsDb, AnIngestKilledMidRunLeavesNoPartOfIt) {
  const fs::path dir = scratch("killed");
  killed_mid_ingest((dir / "k.db").string(), dir);
}
TEST(ResultsDb, AnOlderSchemaIsMigratedWhenOpened) {
  const fs::path dir = scratch("migrate");
  const std::string path = (dir / "m.db").string();
  older_schema_migrated(path, dir, *open_sqlite(path));
}
TEST(ResultsDb, TwoConnectionsIngestingAtOnceBothKeepTheirRuns) {
  const fs::path dir = scratch("two");
  two_at_once((dir / "t.db").string(), dir);
}
TEST(ResultsDb, RegressionsFindAPlantedStepAndNameTheSoftwareNotNoise) {
  const fs::path dir = scratch("regress");
  planted_step((dir / "r.db").string(), dir);
}

TEST(PostgresResultsDb, ARunIsStoredOnceAndAFailedIngestChangesNothing) {
  NEED_POSTGRES(db);
  stored_once(db, scratch("pg_once"));
}
TEST(PostgresResultsDb, AnIngestKilledMidRunLeavesNoPartOfIt) {
  NEED_POSTGRES(db);
  killed_mid_ingest(db, scratch("pg_killed"));
}
TEST(PostgresResultsDb, AnOlderSchemaIsMigratedWhenOpened) {
  NEED_POSTGRES(db);
  older_schema_migrated(db, scratch("pg_migrate"), *open_postgres(db));
}
TEST(PostgresResultsDb, TwoConnectionsIngestingAtOnceBothKeepTheirRuns) {
  NEED_POSTGRES(db);
  two_at_once(db, scratch("pg_two"));
}
TEST(PostgresResultsDb, RegressionsFindAPlantedStepAndNameTheSoftwareNotNoise) {
  NEED_POSTGRES(db);
  planted_step(db, scratch("pg_regress"));
}
TEST(PostgresResultsDb, AForeignNewerOrUnreachableDatabaseIsRefusedByName) {
  NEED_POSTGRES(db);
  open_postgres(db)->exec("CREATE TABLE invoices (id INTEGER)");
  EXPECT_NE(open_error(db).find("not an opmark results database"), std::string::npos) << open_error(db);
  postgres();  // emptied again
  { ResultsDb fresh(db); }
  open_postgres(db)->exec("UPDATE opmark_meta SET value = '99' WHERE key = 'schema'");
  EXPECT_NE(open_error(db).find("schema version 99 is newer"), std::string::npos) << open_error(db);
  // A server that is not there: the URL named, its password left out.
  const std::string gone = open_error("postgresql://opmark:secret@/postgres?host=/nonexistent&port=1");
  EXPECT_NE(gone.find("postgresql://opmark:***@/postgres?host=/nonexistent&port=1: cannot connect"), std::string::npos)
      << gone;
  EXPECT_EQ(gone.find("secret"), std::string::npos) << gone;
}
#endif
