#include "core/expr.h"

#include <gtest/gtest.h>

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
