#include "core/error.h"

namespace opmark {

std::string SourceLocation::str() const {
  std::string s = file.empty() ? std::string("<input>") : file;
  if (line > 0) s += ":" + std::to_string(line);
  if (column > 0) s += ":" + std::to_string(column);
  return s;
}

static std::string table_message(const SourceLocation& where, const std::string& field, const std::string& what) {
  std::string msg = where.str() + ": ";
  if (!field.empty()) msg += "field '" + field + "': ";
  return msg + what;
}

TableError::TableError(const SourceLocation& where, const std::string& field, const std::string& what)
    : Error(table_message(where, field, what)) {}

}  // namespace opmark
