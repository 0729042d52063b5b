#include "core/expr.h"

#include <cctype>
#include <cstdint>
#include <limits>

#include "core/error.h"
#include "core/schema.h"

namespace opmark::core {
namespace {

// Recursive descent over the grammar
//   expr := term (('+'|'-') term)*     term := unary (('*'|'/') unary)*
//   unary := '-' unary | primary       primary := integer | identifier | '(' expr ')'
// When `symbols` is null the parser only checks syntax and collects identifiers.
// Arithmetic is checked (overflow, INT64_MIN / -1, division by zero): the values come from users.
class Parser {
 public:
  Parser(const std::string& text, const Symbols* symbols, std::set<std::string>* seen)
      : s_(text), symbols_(symbols), seen_(seen) {}

  std::int64_t parse_all() {
    skip_space();
    if (pos_ >= s_.size()) throw ExprError(0, "empty expression");
    std::int64_t v = expr();
    skip_space();
    if (pos_ < s_.size()) throw ExprError(pos_, std::string("unexpected '") + s_[pos_] + "'");
    return v;
  }

 private:
  std::int64_t expr() {
    std::int64_t v = term();
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return v;
      char op = s_[pos_];
      std::size_t at = pos_++;
      v = arithmetic(op, v, term(), at);
    }
  }

  std::int64_t term() {
    std::int64_t v = unary();
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/')) return v;
      char op = s_[pos_];
      std::size_t at = pos_++;
      v = arithmetic(op, v, unary(), at);
    }
  }

  std::int64_t unary() {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '-') {
      const std::size_t at = pos_++;
      const Nesting nested(this, at);
      return arithmetic('-', 0, unary(), at);  // -INT64_MIN overflows
    }
    return primary();
  }

  // a op b, checked. `at` is the operator's offset, for the message.
  std::int64_t arithmetic(char op, std::int64_t a, std::int64_t b, std::size_t at) {
    std::int64_t out = 0;
    bool overflow = false;
    switch (op) {
      case '+': overflow = __builtin_add_overflow(a, b, &out); break;
      case '-': overflow = __builtin_sub_overflow(a, b, &out); break;
      case '*': overflow = __builtin_mul_overflow(a, b, &out); break;
      default:  // '/'
        if (b == 0) return failed(at, "division by zero");
        overflow = a == std::numeric_limits<std::int64_t>::min() && b == -1;  // the one quotient past int64
        if (!overflow) out = a / b;
    }
    return overflow ? failed(at, "integer overflow") : out;
  }

  // An arithmetic error is the values' fault: only an evaluation reports it. The syntax pass takes every symbol as
  // 1, which says nothing about what the values will give, so it goes on with any value.
  std::int64_t failed(std::size_t at, const char* what) const {
    if (symbols_) throw ExprError(at, what);
    return 1;
  }

  // Parentheses and unary minus recurse; a bound on their depth keeps hostile input ("((((...") from exhausting
  // the stack. No real shape nests more than a few levels.
  static constexpr int kMaxNesting = 200;
  struct Nesting {
    Nesting(Parser* p, std::size_t at) : parser(p) {
      if (++parser->depth_ > kMaxNesting)
        throw ExprError(at, "nested more than " + std::to_string(kMaxNesting) + " levels deep");
    }
    ~Nesting() { --parser->depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    Parser* parser;
  };

  std::int64_t primary() {
    skip_space();
    if (pos_ >= s_.size()) throw ExprError(pos_, "expected a number, a symbol or '('");
    char c = s_[pos_];
    if (c == '(') {
      std::size_t open = pos_++;
      const Nesting nested(this, open);
      std::int64_t v = expr();
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ')') throw ExprError(open, "unbalanced '('");
      ++pos_;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t start = pos_;
      std::int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v))
          throw ExprError(start, "integer overflow");
        ++pos_;
      }
      if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        throw ExprError(start, "a number runs into a name: '" + s_.substr(start, pos_ - start + 1) + "'");
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (seen_) seen_->insert(name);
      if (!symbols_) return 1;
      auto it = symbols_->find(name);
      if (it == symbols_->end()) throw ExprError(start, "unknown symbol '" + name + "'");
      return it->second;
    }
    throw ExprError(pos_, std::string("unexpected '") + c + "'");
  }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }

  const std::string& s_;
  const Symbols* symbols_;
  std::set<std::string>* seen_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::int64_t evaluate(const std::string& text, const Symbols& symbols) {
  return Parser(text, &symbols, nullptr).parse_all();
}

std::set<std::string> symbols_in(const std::string& text) {
  std::set<std::string> seen;
  Parser(text, nullptr, &seen).parse_all();
  return seen;
}

Symbols parse_symbol_list(const std::string& text) {
  Symbols out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t end = text.find(',', start);
    std::string item = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("symbol list '" + text + "': expected NAME=VALUE, got '" + item + "'");
    std::string name = item.substr(0, eq);
    std::int64_t value = 0;
    try {
      if (symbols_in(name) != std::set<std::string>{name}) throw ExprError(0, "not a name");
      value = evaluate(item.substr(eq + 1));
    } catch (const ExprError& e) {
      throw Error("symbol list '" + text + "': in '" + item + "': " + e.what());
    }
    // A symbol is a size, checked as set symbols and model inputs are; a name given twice is a typo, not an
    // override.
    const std::string problem = check_value(symbol_spec(name), value);
    if (!problem.empty()) throw Error("symbol list '" + text + "': in '" + item + "': " + problem);
    if (!out.emplace(name, value).second) throw Error("symbol list '" + text + "': '" + name + "' is given twice");
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace opmark::core
