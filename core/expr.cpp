#include "core/expr.h"

#include <cctype>

#include "core/error.h"

namespace opmark::core {
namespace {

// Recursive descent over the grammar
//   expr := term (('+'|'-') term)*     term := unary (('*'|'/') unary)*
//   unary := '-' unary | primary       primary := integer | identifier | '(' expr ')'
// When `symbols` is null the parser only checks syntax and collects identifiers.
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
      std::int64_t r = term();
      std::int64_t out;
      bool overflow = op == '+' ? __builtin_add_overflow(v, r, &out) : __builtin_sub_overflow(v, r, &out);
      if (overflow) throw ExprError(at, "integer overflow");
      v = out;
    }
  }

  std::int64_t term() {
    std::int64_t v = unary();
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/')) return v;
      char op = s_[pos_];
      std::size_t at = pos_++;
      std::int64_t r = unary();
      if (op == '*') {
        if (__builtin_mul_overflow(v, r, &v)) throw ExprError(at, "integer overflow");
      } else {
        if (symbols_ && r == 0) throw ExprError(at, "division by zero");
        v = r == 0 ? 0 : v / r;
      }
    }
  }

  std::int64_t unary() {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '-') {
      ++pos_;
      return -unary();
    }
    return primary();
  }

  std::int64_t primary() {
    skip_space();
    if (pos_ >= s_.size()) throw ExprError(pos_, "expected a number, a symbol or '('");
    char c = s_[pos_];
    if (c == '(') {
      std::size_t open = pos_++;
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
    try {
      if (symbols_in(name) != std::set<std::string>{name}) throw ExprError(0, "not a name");
      out[name] = evaluate(item.substr(eq + 1));
    } catch (const ExprError& e) {
      throw Error("symbol list '" + text + "': in '" + item + "': " + e.what());
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace opmark::core
