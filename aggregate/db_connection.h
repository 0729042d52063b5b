#pragma once
// One connection to the results database's store: SQLite (a file, the default) or PostgreSQL (a server, for a
// team). SQL is written once with '?' placeholders; what differs between the two is said here (Dialect) and in
// each store's own schema, so ResultsDb stays one piece of code over both.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opmark::aggregate {

enum class Dialect { sqlite, postgres };

// A prepared statement: bind from 1, step through the rows, read columns from 0.
class DbStatement {
 public:
  virtual ~DbStatement() = default;
  virtual DbStatement& bind(int i, const std::string& v) = 0;
  virtual DbStatement& bind(int i, std::int64_t v) = 0;
  virtual DbStatement& bind(int i, double v) = 0;
  virtual DbStatement& bind_null(int i) = 0;
  // True while there is a row; throws opmark::Error on an error.
  virtual bool step() = 0;
  // Ready to bind and run again.
  virtual void reset() = 0;
  virtual std::string text(int i) const = 0;
  virtual std::int64_t integer(int i) const = 0;
  virtual double real(int i) const = 0;
  virtual bool is_null(int i) const = 0;
};

class DbConnection {
 public:
  virtual ~DbConnection() = default;
  virtual Dialect dialect() const = 0;
  virtual void exec(const std::string& sql) = 0;
  virtual std::unique_ptr<DbStatement> prepare(const std::string& sql) = 0;
  // The tables of the database (of its current schema, on PostgreSQL).
  virtual std::vector<std::string> tables() = 0;
  // Starts a transaction that writes; writers take turns (SQLite's write lock, an advisory lock on PostgreSQL), so
  // two ingests at once are both kept.
  virtual void begin_write() = 0;
  virtual void rollback() noexcept = 0;
};

// The store a --db value names: a postgresql:// or postgres:// URL (libpq's connection URI), else a SQLite file.
bool is_postgres_url(const std::string& db);
// The URL with its password left out, for messages.
std::string redacted(const std::string& db);

// Throw opmark::Error naming the file or the (redacted) URL where they cannot be opened.
std::unique_ptr<DbConnection> open_sqlite(const std::string& path);
// Throws where this build has no libpq.
std::unique_ptr<DbConnection> open_postgres(const std::string& url);

}  // namespace opmark::aggregate
