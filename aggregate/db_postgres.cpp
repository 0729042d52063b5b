// The results database's PostgreSQL store, through libpq: statements prepared once on the server, values sent and
// read as text; writers take turns on an advisory lock, as SQLite's writers do on its write lock.
#include <libpq-fe.h>

#include <cstdlib>
#include <optional>

#include "aggregate/db_connection.h"
#include "core/error.h"

namespace opmark::aggregate {
namespace {

// Any number: the lock every ingest and migration of an opmark database takes for its transaction.
constexpr long long kWriteLock = 6570131;

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// '?' placeholders as PostgreSQL's $1, $2, ... (none inside quoted text), and how many there are.
std::pair<std::string, int> numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  char quote = 0;
  for (const char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?') {
      out += "$" + std::to_string(++n);
      continue;
    }
    out += c;
  }
  return {out, n};
}

class PgStatement : public DbStatement {
 public:
  PgStatement(PGconn* conn, const std::string& sql, int serial)
      : conn_(conn), name_("opmark_" + std::to_string(serial)) {
    auto [text, n] = numbered(sql);
    params_.resize(static_cast<std::size_t>(n));
    PGresult* r = PQprepare(conn_, name_.c_str(), text.c_str(), n, nullptr);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    const std::string why = ok ? "" : trimmed(PQresultErrorMessage(r));
    PQclear(r);
    if (!ok) throw Error("results database: " + why);
  }
  ~PgStatement() override {
    PQclear(result_);
    PQclear(PQexec(conn_, ("DEALLOCATE " + name_).c_str()));  // fails harmlessly in an aborted transaction
  }
  PgStatement(const PgStatement&) = delete;
  PgStatement& operator=(const PgStatement&) = delete;

  DbStatement& bind(int i, const std::string& v) override { return set(i, v); }
  DbStatement& bind(int i, std::int64_t v) override { return set(i, std::to_string(v)); }
  DbStatement& bind(int i, double v) override {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return set(i, text);
  }
  DbStatement& bind_null(int i) override {
    params_.at(static_cast<std::size_t>(i - 1)).reset();
    return *this;
  }
  bool step() override {
    if (!result_) {
      std::vector<const char*> values;
      for (const auto& p : params_) values.push_back(p ? p->c_str() : nullptr);
      result_ = PQexecPrepared(conn_, name_.c_str(), static_cast<int>(values.size()), values.data(), nullptr, nullptr,
                               0);
      const ExecStatusType status = PQresultStatus(result_);
      if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        const std::string why = trimmed(PQresultErrorMessage(result_));
        PQclear(result_);
        result_ = nullptr;
        throw Error("results database: " + why);
      }
      row_ = -1;
    }
    return ++row_ < PQntuples(result_);
  }
  void reset() override {
    PQclear(result_);
    result_ = nullptr;
    for (auto& p : params_) p.reset();
  }
  std::string text(int i) const override { return PQgetvalue(result_, row_, i); }
  std::int64_t integer(int i) const override { return std::strtoll(PQgetvalue(result_, row_, i), nullptr, 10); }
  double real(int i) const override { return std::strtod(PQgetvalue(result_, row_, i), nullptr); }
  bool is_null(int i) const override { return PQgetisnull(result_, row_, i) != 0; }

 private:
  DbStatement& set(int i, std::string v) {
    params_.at(static_cast<std::size_t>(i - 1)) = std::move(v);
    return *this;
  }
  PGconn* conn_;
  std::string name_;
  std::vector<std::optional<std::string>> params_;
  PGresult* result_ = nullptr;
  int row_ = -1;
};

class PgConnection : public DbConnection {
 public:
  explicit PgConnection(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = trimmed(PQerrorMessage(conn_));
      PQfinish(conn_);
      throw Error(redacted(url) + ": cannot connect to the results database (" + why + ")");
    }
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);  // "already exists, skipping" and the like
  }
  ~PgConnection() override { PQfinish(conn_); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Dialect dialect() const override { return Dialect::postgres; }
  void exec(const std::string& sql) override {
    PGresult* r = PQexec(conn_, sql.c_str());
    const ExecStatusType status = PQresultStatus(r);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    const std::string why = ok ? "" : trimmed(PQresultErrorMessage(r));
    PQclear(r);
    if (!ok) throw Error("results database: " + (why.empty() ? trimmed(PQerrorMessage(conn_)) : why));
  }
  std::unique_ptr<DbStatement> prepare(const std::string& sql) override {
    return std::make_unique<PgStatement>(conn_, sql, ++statements_);
  }
  std::vector<std::string> tables() override {
    std::vector<std::string> out;
    PgStatement s(conn_, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
                  ++statements_);
    while (s.step()) out.push_back(s.text(0));
    return out;
  }
  void begin_write() override { exec("BEGIN; SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLock) + ")"); }
  void rollback() noexcept override { PQclear(PQexec(conn_, "ROLLBACK")); }

 private:
  PGconn* conn_;
  int statements_ = 0;
};

}  // namespace

std::unique_ptr<DbConnection> open_postgres(const std::string& url) { return std::make_unique<PgConnection>(url); }

}  // namespace opmark::aggregate
