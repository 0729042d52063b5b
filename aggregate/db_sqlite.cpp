// The results database's SQLite store: one file, WAL mode and a busy timeout so two ingests at once both commit.
#include <sqlite3.h>

#include "aggregate/db_connection.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

class SqliteStatement : public DbStatement {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK)
      throw Error(std::string("results database: ") + sqlite3_errmsg(db));
  }
  ~SqliteStatement() override { sqlite3_finalize(st_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  DbStatement& bind(int i, const std::string& v) override {
    sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  DbStatement& bind(int i, std::int64_t v) override {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  DbStatement& bind(int i, double v) override {
    sqlite3_bind_double(st_, i, v);
    return *this;
  }
  DbStatement& bind_null(int i) override {
    sqlite3_bind_null(st_, i);
    return *this;
  }
  bool step() override {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("results database: ") + sqlite3_errmsg(db_));
  }
  void reset() override {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::string text(int i) const override {
    const unsigned char* t = sqlite3_column_text(st_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::int64_t integer(int i) const override { return sqlite3_column_int64(st_, i); }
  double real(int i) const override { return sqlite3_column_double(st_, i); }
  bool is_null(int i) const override { return sqlite3_column_type(st_, i) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

class SqliteConnection : public DbConnection {
 public:
  explicit SqliteConnection(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw Error(path + ": cannot open the results database (" + why + ")");
    }
    sqlite3_busy_timeout(db_, 30000);  // a second ingest waits for the first instead of failing
    try {
      // A run's results touch a page of the by-case index each: a larger cache and fewer checkpoints (64 MiB of
      // log between them) write each page back once for many runs rather than once a run.
      exec("PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-262144; "
           "PRAGMA wal_autocheckpoint=16384;");
    } catch (const Error& e) {
      sqlite3_close(db_);
      throw Error(path + ": " + e.what());
    }
  }
  ~SqliteConnection() override { sqlite3_close(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Dialect dialect() const override { return Dialect::sqlite; }
  void exec(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string why = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      throw Error("results database: " + why);
    }
  }
  std::unique_ptr<DbStatement> prepare(const std::string& sql) override {
    return std::make_unique<SqliteStatement>(db_, sql);
  }
  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    SqliteStatement s(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (s.step()) out.push_back(s.text(0));
    return out;
  }
  void begin_write() override { exec("BEGIN IMMEDIATE"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<DbConnection> open_sqlite(const std::string& path) { return std::make_unique<SqliteConnection>(path); }

}  // namespace opmark::aggregate
