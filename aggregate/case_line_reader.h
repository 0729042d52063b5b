#pragma once
// results.jsonl's case lines ("run" and "aggregate", nearly all of a log) read with simdjson, where this build has
// it (Debian's libsimdjson-dev): about 1.5 us a line against 24 us through the JSON library. It takes only a line
// it reads exactly as core::from_json would (known keys, each once, of the types the schema names) and leaves any
// other line, every malformed one included, to that reader, which gives the error: the schema and its messages stay
// in one place. A test holds the two readers equal on every line of the committed logs and on broken ones.
#include <memory>
#include <optional>
#include <string_view>

#include "core/result_record.h"

namespace opmark::aggregate {

class CaseLineReader {
 public:
  CaseLineReader();
  ~CaseLineReader();
  CaseLineReader(const CaseLineReader&) = delete;
  CaseLineReader& operator=(const CaseLineReader&) = delete;

  // The line's record; nullopt where core::from_json is to read it (no simdjson in this build, a context or summary
  // line, an unknown or repeated key, a field of another type, anything that does not parse). `padded`: at least
  // kPadding readable bytes follow the line in memory, so it is not copied.
  std::optional<core::ResultRecord> read(std::string_view line, bool padded);

  static bool available();  // built with simdjson
  static const std::size_t kPadding;

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

}  // namespace opmark::aggregate
