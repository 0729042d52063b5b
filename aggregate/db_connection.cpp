#include "aggregate/db_connection.h"

#include "core/error.h"

namespace opmark::aggregate {

bool is_postgres_url(const std::string& db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

std::string redacted(const std::string& db) {
  if (!is_postgres_url(db)) return db;
  // scheme://user:password@host...: the password left out; a password given as ?password=... too.
  std::string out = db;
  const std::size_t start = out.find("://") + 3, at = out.find('@', start), colon = out.find(':', start);
  if (at != std::string::npos && colon != std::string::npos && colon < at)
    out.replace(colon + 1, at - colon - 1, "***");
  const std::size_t key = out.find("password=");
  if (key != std::string::npos) {
    const std::size_t end = out.find('&', key);
    out.replace(key + 9, (end == std::string::npos ? out.size() : end) - key - 9, "***");
  }
  return out;
}

#ifndef OPMARK_HAVE_LIBPQ
std::unique_ptr<DbConnection> open_postgres(const std::string& url) {
  throw Error(redacted(url) + ": this opmark-aggregate was built without PostgreSQL's libpq (install libpq-dev and "
                              "build again), so it keeps its results database in SQLite files only");
}
#endif

}  // namespace opmark::aggregate
