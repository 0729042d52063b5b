#include "core/expr.h"

#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"

using opmark::core::evaluate;
using opmark::core::ExprError;
using opmark::core::parse_symbol_list;
using opmark::core::symbols_in;
using opmark::core::Symbols;

TEST(Expr, ConstantsAndPrecedence) {
  EXPECT_EQ(evaluate("42"), 42);
  EXPECT_EQ(evaluate("2+3*4"), 14);
  EXPECT_EQ(evaluate("(2+3)*4"), 20);
  EXPECT_EQ(evaluate(" 10 - 2 - 3 "), 5);
  EXPECT_EQ(evaluate("-3 + 5"), 2);
  EXPECT_EQ(evaluate("-(2*3)"), -6);
}

TEST(Expr, IntegerDivisionTruncates) {
  EXPECT_EQ(evaluate("7/2"), 3);
  EXPECT_EQ(evaluate("224/4/2"), 28);
  EXPECT_EQ(evaluate("(224+2*3-7)/2+1"), 112);  // a conv output size
}

TEST(Expr, Symbols) {
  Symbols s{{"B", 32}, {"L", 512}, {"H", 224}};
  EXPECT_EQ(evaluate("B*L", s), 16384);
  EXPECT_EQ(evaluate("H/4", s), 56);
  EXPECT_EQ(evaluate("B*L/8", s), 2048);
  EXPECT_EQ(symbols_in("B*L + H/4 - B"), (std::set<std::string>{"B", "L", "H"}));
  EXPECT_TRUE(symbols_in("3*4").empty());
}

TEST(Expr, ErrorsSayWhere) {
  try {
    evaluate("B*Q", {{"B", 2}});
    FAIL() << "unknown symbol accepted";
  } catch (const ExprError& e) {
    EXPECT_EQ(e.offset(), 2u);
    EXPECT_STREQ(e.what(), "unknown symbol 'Q'");
  }
  EXPECT_THROW(evaluate(""), ExprError);
  EXPECT_THROW(evaluate("2+"), ExprError);
  EXPECT_THROW(evaluate("(2+3"), ExprError);
  EXPECT_THROW(evaluate("2+3)"), ExprError);
  EXPECT_THROW(evaluate("2 $ 3"), ExprError);
  EXPECT_THROW(evaluate("4B"), ExprError);
  EXPECT_THROW(evaluate("1/0"), ExprError);
  EXPECT_THROW(evaluate("B/(L-L)", {{"B", 1}, {"L", 3}}), ExprError);
  EXPECT_THROW(evaluate("9223372036854775807+1"), ExprError);
  EXPECT_THROW(evaluate("4294967296*4294967296"), ExprError);
}

TEST(Expr, SymbolList) {
  EXPECT_EQ(parse_symbol_list("B=32,L=512"), (Symbols{{"B", 32}, {"L", 512}}));
  EXPECT_EQ(parse_symbol_list("N=2*1024"), (Symbols{{"N", 2048}}));
  EXPECT_THROW(parse_symbol_list("B"), opmark::Error);
  EXPECT_THROW(parse_symbol_list("=3"), opmark::Error);
  EXPECT_THROW(parse_symbol_list("B=x"), opmark::Error);
  EXPECT_THROW(parse_symbol_list("2B=3"), opmark::Error);
}

namespace {

// "what at offset", or "no error".
std::string expr_error(const std::string& text, const Symbols& symbols = {}) {
  try {
    evaluate(text, symbols);
  } catch (const ExprError& e) {
    return std::string(e.what()) + " at " + std::to_string(e.offset());
  }
  return "no error";
}

std::string list_error(const std::string& text) {
  try {
    parse_symbol_list(text);
  } catch (const opmark::Error& e) {
    return e.what();
  }
  return "no error";
}

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

}  // namespace

// Issue 21: INT64_MIN / -1 raised SIGFPE; -INT64_MIN gave INT64_MIN.
TEST(Expr, Int64MinOverMinusOneIsAnOverflowNotACrash) {
  EXPECT_EQ(expr_error("(-9223372036854775807-1)/-1"), "integer overflow at 24");
  EXPECT_EQ(expr_error("B/-1", {{"B", kMin}}), "integer overflow at 1");
  EXPECT_EQ(evaluate("(-9223372036854775807-1)/1"), kMin);
  EXPECT_EQ(evaluate("(-9223372036854775807-1)/2"), kMin / 2);
}

TEST(Expr, UnaryMinusIsChecked) {
  EXPECT_EQ(expr_error("-(-9223372036854775807-1)"), "integer overflow at 0");
  EXPECT_EQ(expr_error("--B", {{"B", kMin}}), "integer overflow at 1");
  EXPECT_EQ(evaluate("-9223372036854775807-1"), kMin);
  EXPECT_EQ(evaluate("-(-9223372036854775807)"), kMax);
  EXPECT_EQ(evaluate("--5"), 5);
}

TEST(Expr, EveryOperatorIsChecked) {
  EXPECT_EQ(expr_error("9223372036854775807+1"), "integer overflow at 19");
  EXPECT_EQ(expr_error("-9223372036854775807-2"), "integer overflow at 20");
  EXPECT_EQ(expr_error("3037000500*3037000500"), "integer overflow at 10");
  EXPECT_EQ(expr_error("99999999999999999999"), "integer overflow at 0");
  EXPECT_EQ(expr_error("B*B", {{"B", std::int64_t{1} << 32}}), "integer overflow at 1");
  EXPECT_EQ(expr_error("7/(B-B)", {{"B", 3}}), "division by zero at 1");
}

// The syntax pass has no values (every symbol reads as 1), so it cannot know whether arithmetic fails: it leaves
// that to the evaluation, which has the values.
TEST(Expr, SyntaxPassLeavesArithmeticToTheEvaluation) {
  EXPECT_EQ(symbols_in("(-9223372036854775807-1)/-1"), std::set<std::string>{});
  EXPECT_EQ(symbols_in("X/(Y-1)"), (std::set<std::string>{"X", "Y"}));
  EXPECT_EQ(symbols_in("B*9223372036854775807*2"), std::set<std::string>{"B"});
  EXPECT_THROW(symbols_in("2+"), ExprError);  // syntax is still checked
}

TEST(Expr, NestingIsBoundedSoHostileInputCannotExhaustTheStack) {
  EXPECT_EQ(evaluate(std::string(200, '(') + "1" + std::string(200, ')')), 1);
  EXPECT_EQ(expr_error(std::string(201, '(') + "1" + std::string(201, ')')), "nested more than 200 levels deep at 200");
  EXPECT_EQ(expr_error(std::string(100000, '-') + "1"), "nested more than 200 levels deep at 200");
  EXPECT_THROW(symbols_in(std::string(100000, '(') + "1"), ExprError);
}

TEST(Expr, SymbolListValuesAreSizes) {
  EXPECT_EQ(list_error("B=-4"), "symbol list 'B=-4': in 'B=-4': expected a positive integer, got -4");
  EXPECT_EQ(list_error("B=0"), "symbol list 'B=0': in 'B=0': expected a positive integer, got 0");
  EXPECT_EQ(list_error("B=2199023255552"),
            "symbol list 'B=2199023255552': in 'B=2199023255552': expected an integer from 1 to 1099511627776, got "
            "2199023255552");
  EXPECT_EQ(list_error("B=(-9223372036854775807-1)/-1"),
            "symbol list 'B=(-9223372036854775807-1)/-1': in 'B=(-9223372036854775807-1)/-1': integer overflow");
  EXPECT_EQ(list_error("B=8,L=4,B=16"), "symbol list 'B=8,L=4,B=16': 'B' is given twice");
}
