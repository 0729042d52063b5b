#include "aggregate/results_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "aggregate/results.h"
#include "core/counters.h"
#include "core/error.h"

namespace fs = std::filesystem;

namespace opmark::aggregate {
namespace {

namespace counter = core::counter;

// The schema, one step a version: step i takes a database of version i to i + 1.
const char* const kMigrations[] = {
    R"(CREATE TABLE runs (
         id INTEGER PRIMARY KEY, content_hash TEXT NOT NULL UNIQUE, source TEXT NOT NULL, ingested_at TEXT NOT NULL,
         gpu TEXT, driver TEXT, cuda TEXT, cudnn TEXT, cublaslt TEXT, nccl TEXT, opmark_git TEXT, regime TEXT,
         started_at TEXT, checked INTEGER NOT NULL, context TEXT NOT NULL);
       CREATE TABLE cases (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, family TEXT NOT NULL);
       CREATE TABLE results (
         run_id INTEGER NOT NULL REFERENCES runs(id), case_id INTEGER NOT NULL REFERENCES cases(id),
         status TEXT NOT NULL, time_us REAL, counters TEXT NOT NULL, repetitions TEXT NOT NULL,
         PRIMARY KEY (run_id, case_id));
       CREATE INDEX results_by_case ON results(case_id, run_id);
       CREATE INDEX runs_by_gpu ON runs(gpu, started_at);)",
};
constexpr const char* kApplicationTag = "opmark results database";

// A stable 64-bit FNV-1a hash of the run's results log, as hex: the same run ingested twice is recognised.
std::string content_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return std::string(out) + "-" + std::to_string(text.size());
}

// A prepared statement, finalized when it goes.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK)
      throw Error(std::string("results database: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(st_, i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    sqlite3_bind_null(st_, i);
    return *this;
  }
  // True while there is a row; throws on an error.
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("results database: ") + sqlite3_errmsg(db_));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::string text(int i) const {
    const unsigned char* t = sqlite3_column_text(st_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(st_, i); }
  double real(int i) const { return sqlite3_column_double(st_, i); }
  bool is_null(int i) const { return sqlite3_column_type(st_, i) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

std::string value_of(const std::map<std::string, std::string>& context, const std::string& key) {
  const auto it = context.find(key);
  return it == context.end() ? "" : it->second;
}

const char* const kRunColumns =
    "r.id, r.gpu, r.driver, r.cuda, r.cudnn, r.cublaslt, r.nccl, r.opmark_git, r.regime, r.started_at, r.source, "
    "r.checked";

DbRun run_of(const Statement& s, int first = 0) {
  DbRun r;
  r.id = s.integer(first);
  r.gpu = s.text(first + 1), r.driver = s.text(first + 2), r.cuda = s.text(first + 3), r.cudnn = s.text(first + 4);
  r.cublaslt = s.text(first + 5), r.nccl = s.text(first + 6), r.opmark_git = s.text(first + 7);
  r.regime = s.text(first + 8), r.started_at = s.text(first + 9), r.source = s.text(first + 10);
  r.checked = static_cast<int>(s.integer(first + 11));
  return r;
}

// The stored cases (id, name) whose names `case_regex` finds, by name; `command` names the command in the error of
// a pattern that is no regular expression.
std::vector<std::pair<std::int64_t, std::string>> matching_cases(sqlite3* db, const std::string& case_regex,
                                                                  const std::string& command) {
  std::regex pattern;
  try {
    pattern = std::regex(case_regex);
  } catch (const std::regex_error& e) {
    throw Error(command + ": '" + case_regex + "' is no regular expression (" + e.what() + ")");
  }
  std::vector<std::pair<std::int64_t, std::string>> cases;
  Statement s(db, "SELECT id, name FROM cases ORDER BY name");
  while (s.step())
    if (std::regex_search(s.text(1), pattern)) cases.emplace_back(s.integer(0), s.text(1));
  return cases;
}

// The counters case_verdict reads (verdict.h): the run's noise, the clock, and whether the case is compute bound.
const char* const kVerdictCounters[] = {counter::run_noise,    counter::recheck_us, counter::noise,
                                        counter::sm_clock_mhz, counter::flops,      counter::pct_peak,
                                        counter::pct_peak_bw};

std::string verdict_columns() {
  std::string out;
  for (const char* name : kVerdictCounters) out += std::string(", json_extract(res.counters, '$.") + name + "')";
  return out;
}

// What software differs between two runs, in words.
std::string software_change(const DbRun& a, const DbRun& b) {
  std::string out;
  const auto diff = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) out += (out.empty() ? "" : ", ") + std::string(what) + " " + (x.empty() ? "?" : x) + " -> " +
                       (y.empty() ? "?" : y);
  };
  diff("driver", a.driver, b.driver);
  diff("CUDA", a.cuda, b.cuda);
  diff("cuDNN", a.cudnn, b.cudnn);
  diff("cuBLASLt", a.cublaslt, b.cublaslt);
  diff("NCCL", a.nccl, b.nccl);
  diff("opmark", a.opmark_git, b.opmark_git);
  return out;
}

}  // namespace

std::string results_log_of(const std::string& path) {
  if (!fs::is_directory(path)) return path;
  for (const char* rel : {"results.jsonl", "results.jsonl.gz", "run/results.jsonl", "run/results.jsonl.gz"}) {
    const fs::path p = fs::path(path) / rel;
    if (fs::is_regular_file(p)) return p.string();
  }
  throw Error(path + ": a folder with no results log (looked for results.jsonl(.gz) and run/results.jsonl(.gz))");
}

ResultsDb::ResultsDb(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error(path + ": cannot open the results database (" + why + ")");
  }
  sqlite3_busy_timeout(db_, 30000);  // a second ingest waits for the first instead of failing
  try {
    exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;");
    migrate();
  } catch (const Error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path + ": " + e.what());
  }
}

ResultsDb::~ResultsDb() { sqlite3_close(db_); }

void ResultsDb::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw Error("results database: " + why);
  }
}

int ResultsDb::schema_version() {
  Statement s(db_, "SELECT value FROM opmark_meta WHERE key = 'schema'");
  return s.step() ? std::stoi(s.text(0)) : 0;
}

void ResultsDb::migrate() {
  exec("BEGIN IMMEDIATE");
  try {
    bool has_meta = false, has_tables = false;
    {
      Statement s(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
      while (s.step()) (s.text(0) == "opmark_meta" ? has_meta : has_tables) = true;
    }
    if (!has_meta && has_tables)
      throw Error("not an opmark results database (it holds other tables): give another --db");
    if (!has_meta) {
      exec("CREATE TABLE opmark_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      Statement s(db_, "INSERT INTO opmark_meta VALUES ('application', ?), ('schema', '0')");
      s.bind(1, std::string(kApplicationTag)).step();
    }
    {
      Statement s(db_, "SELECT value FROM opmark_meta WHERE key = 'application'");
      if (!s.step() || s.text(0) != kApplicationTag) throw Error("not an opmark results database: give another --db");
    }
    const int version = schema_version();
    if (version > kResultsDbSchema)
      throw Error("schema version " + std::to_string(version) + " is newer than this opmark's (" +
                  std::to_string(kResultsDbSchema) + "): use a newer opmark-aggregate");
    for (int v = version; v < kResultsDbSchema; ++v) exec(kMigrations[v]);
    Statement s(db_, "UPDATE opmark_meta SET value = ? WHERE key = 'schema'");
    s.bind(1, std::to_string(kResultsDbSchema)).step();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

ResultsDb::ReadRun ResultsDb::read_run(const std::string& path, int checked) {
  ReadRun run;
  run.log = results_log_of(path);
  ReadLimits limits;
  limits.max_bytes = std::size_t{1} << 30;
  const std::string text = read_results_text(run.log, limits);
  run.results = parse_results(text, run.log, Statistic::median, limits);
  require_one_run(run.results);
  run.hash = content_hash(text);
  run.checked = checked;
  return run;
}

ResultsDb::Ingested ResultsDb::store(const ReadRun& read) {
  const std::string& log = read.log;
  const std::string& hash = read.hash;
  const ResultSet& results = read.results;
  const int checked = read.checked;
  Ingested out;
  exec("BEGIN IMMEDIATE");
  try {
    {
      Statement s(db_, "SELECT id FROM runs WHERE content_hash = ?");
      if (s.bind(1, hash).step()) {
        out.run_id = s.integer(0);
        exec("COMMIT");
        return out;
      }
    }
    nlohmann::json context(results.context);
    const auto& c = results.context;
    Statement run(db_,
                  "INSERT INTO runs (content_hash, source, ingested_at, gpu, driver, cuda, cudnn, cublaslt, nccl, "
                  "opmark_git, regime, started_at, checked, context) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    run.bind(1, hash).bind(2, fs::absolute(log).string()).bind(3, core::utc_now()).bind(4, value_of(c, "gpu"));
    run.bind(5, value_of(c, "driver_version")).bind(6, value_of(c, "cuda_runtime_version"));
    run.bind(7, value_of(c, "cudnn_version")).bind(8, value_of(c, "cublaslt_version"));
    run.bind(9, value_of(c, "nccl_version")).bind(10, value_of(c, "git")).bind(11, value_of(c, "regime"));
    run.bind(12, value_of(c, "started_at")).bind(13, std::int64_t{checked}).bind(14, context.dump());
    run.step();
    out.run_id = sqlite3_last_insert_rowid(db_);
    Statement add_case(db_, "INSERT OR IGNORE INTO cases (name, family) VALUES (?, ?)");
    Statement case_id(db_, "SELECT id FROM cases WHERE name = ?");
    Statement add_result(db_, "INSERT INTO results VALUES (?,?,?,?,?,?)");
    for (const auto& [name, r] : results.cases) {
      add_case.bind(1, name).bind(2, name.substr(0, name.find('/'))).step();
      add_case.reset();
      case_id.bind(1, name).step();
      const std::int64_t id = case_id.integer(0);
      case_id.reset();
      add_result.bind(1, out.run_id).bind(2, id).bind(3, r.status);
      if (r.timed()) add_result.bind(4, r.time_us);
      else add_result.bind_null(4);
      add_result.bind(5, nlohmann::json(r.counters).dump()).bind(6, nlohmann::json(r.reps_us).dump()).step();
      add_result.reset();
      ++out.cases;
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  out.added = true;
  return out;
}

std::vector<DbRun> ResultsDb::runs(const std::string& gpu, const std::string& since) {
  Statement s(db_, std::string("SELECT ") + kRunColumns +
                       ", (SELECT COUNT(*) FROM results WHERE run_id = r.id) FROM runs r WHERE instr(r.gpu, ?) > 0 "
                       "AND r.started_at >= ? ORDER BY r.started_at, r.id");
  s.bind(1, gpu).bind(2, since);
  std::vector<DbRun> out;
  while (s.step()) {
    out.push_back(run_of(s));
    out.back().cases = s.integer(12);
  }
  return out;
}

std::vector<DbSeries> ResultsDb::history(const std::string& case_regex, const std::string& gpu,
                                         const std::string& since) {
  const std::vector<std::pair<std::int64_t, std::string>> cases = matching_cases(db_, case_regex, "db history");
  Statement s(db_, std::string("SELECT ") + kRunColumns +
                       ", res.status, res.time_us FROM results res JOIN runs r ON r.id = res.run_id "
                       "WHERE res.case_id = ? AND instr(r.gpu, ?) > 0 AND r.started_at >= ? "
                       "ORDER BY r.started_at, r.id");
  std::vector<DbSeries> out;
  for (const auto& [id, name] : cases) {
    DbSeries series{name, {}};
    s.bind(1, id).bind(2, gpu).bind(3, since);
    while (s.step()) series.points.push_back({run_of(s), s.text(12), s.is_null(13) ? 0.0 : s.real(13)});
    s.reset();
    if (!series.points.empty()) out.push_back(std::move(series));
  }
  return out;
}

std::vector<DbChange> ResultsDb::regressions(const std::string& case_regex, const std::string& gpu,
                                             bool faster_too, const std::string& since) {
  std::vector<DbChange> out;
  // Only the counters case_verdict reads, taken out by SQLite's JSON functions rather than parsing every row's whole
  // set; the repetitions only where no noise counter was recorded.
  Statement s(db_, std::string("SELECT ") + kRunColumns + ", res.status, res.time_us, res.repetitions" +
                       verdict_columns() + " FROM results res JOIN runs r ON r.id = res.run_id "
                       "WHERE res.case_id = ? AND instr(r.gpu, ?) > 0 AND r.started_at >= ? "
                       "ORDER BY r.gpu, r.started_at, r.id");
  const std::vector<std::pair<std::int64_t, std::string>> cases =
      matching_cases(db_, case_regex.empty() ? std::string(".") : case_regex, "db regressions");
  for (const auto& [id, name] : cases) {
    s.bind(1, id).bind(2, gpu).bind(3, since);
    std::optional<std::pair<DbRun, CaseResult>> previous;
    while (s.step()) {
      DbRun run = run_of(s);
      CaseResult r;
      r.status = s.text(12);
      r.time_us = s.is_null(13) ? 0.0 : s.real(13);
      for (std::size_t k = 0; k < std::size(kVerdictCounters); ++k)
        if (!s.is_null(15 + static_cast<int>(k))) r.counters[kVerdictCounters[k]] = s.real(15 + static_cast<int>(k));
      if (!r.has_counter(counter::run_noise) && !r.has_counter(counter::recheck_us) && !r.has_counter(counter::noise))
        r.reps_us = nlohmann::json::parse(s.text(14)).get<std::vector<double>>();
      if (previous && previous->first.gpu == run.gpu) {
        const CaseVerdict v = case_verdict(previous->second, r);
        if (v.verdict == Verdict::slower || (faster_too && v.verdict == Verdict::faster))
          out.push_back({name, run.gpu, previous->first, run, v, software_change(previous->first, run)});
      }
      previous.emplace(std::move(run), std::move(r));
    }
    s.reset();
  }
  return out;
}

void ResultsDb::export_csv(std::ostream& out, const std::string& gpu, const std::string& since) {
  const auto quoted = [](const std::string& v) {  // CSV: a field with a comma, quote or newline is quoted
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string q = "\"";
    for (const char ch : v) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  out << "run,started_at,gpu,driver,cuda,cudnn,cublaslt,nccl,opmark,regime,checked,case,family,status,time_us\n";
  Statement s(db_, std::string("SELECT ") + kRunColumns +
                       ", c.name, c.family, res.status, res.time_us FROM results res JOIN runs r ON r.id = "
                       "res.run_id JOIN cases c ON c.id = res.case_id WHERE instr(r.gpu, ?) > 0 AND r.started_at >= ? "
                       "ORDER BY r.started_at, r.id, c.name");
  s.bind(1, gpu).bind(2, since);
  while (s.step()) {
    const DbRun r = run_of(s);
    out << r.id << ',' << quoted(r.started_at) << ',' << quoted(r.gpu) << ',' << quoted(r.driver) << ','
        << quoted(r.cuda) << ',' << quoted(r.cudnn) << ',' << quoted(r.cublaslt) << ',' << quoted(r.nccl) << ','
        << quoted(r.opmark_git) << ',' << quoted(r.regime) << ',' << r.checked << ',' << quoted(s.text(12)) << ','
        << quoted(s.text(13)) << ',' << quoted(s.text(14)) << ',';
    if (!s.is_null(15)) out << s.real(15);
    out << '\n';
  }
}

}  // namespace opmark::aggregate
