#pragma once
// Integer expressions over named input symbols, as shape tables write them: `H/4`, `B*L`, `(W+2)/2 - 1`.
// Operators + - * / ( ) and unary minus; `/` is integer division rounding toward zero (C++'s);
// identifiers are letters, digits and '_' starting with a letter or '_'.
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

namespace opmark::core {

using Symbols = std::map<std::string, std::int64_t>;

// A malformed expression or a failed evaluation; `offset` is the 0-based character where it went wrong.
class ExprError : public std::runtime_error {
 public:
  ExprError(std::size_t offset, const std::string& what) : std::runtime_error(what), offset_(offset) {}
  std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

// Evaluates `text` with the given symbol values. Throws ExprError for syntax errors, unknown symbols,
// division by zero, 64-bit overflow (INT64_MIN / -1 and -INT64_MIN included) and nesting deeper than 200 levels.
std::int64_t evaluate(const std::string& text, const Symbols& symbols = {});

// The identifiers `text` uses (syntax is checked too; arithmetic is not, as the symbols have no values yet).
std::set<std::string> symbols_in(const std::string& text);

// Parses "B=32,L=512" (the --opmark_symbols and --opmark_inputs flags); throws opmark::Error on bad input: a value
// that is not a size (an integer from 1 to kMaxElements, core/schema.h) or a name given twice included.
Symbols parse_symbol_list(const std::string& text);

}  // namespace opmark::core
