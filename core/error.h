#pragma once
// The error types every layer throws. The harness is the one place that catches them and decides whether a
// case is skipped (unsupported, out of memory) or failed (anything else).
#include <stdexcept>
#include <string>

namespace opmark {

// Anything that must stop the current case or command, with a message a user can act on.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The library or the device cannot run this case (no algorithm, precision not on this GPU, ...).
// A case that throws this is reported as skipped with the reason; the run goes on.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// The case does not fit in device memory. Reported as skipped; the run goes on.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
};

// A position in a text file, 1-based, for messages of the form "file:line:column: ...".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string str() const;
};

// A malformed table or option: the message starts with the location and names the field.
class TableError : public Error {
 public:
  TableError(const SourceLocation& where, const std::string& field, const std::string& what);
};

}  // namespace opmark
