// Expressions (core/expr.h). The input is an expression, evaluated with a few symbols (B=32, L=512, H=W=224,
// C=3, K=64); where it has a newline, the first line is a symbol list first (parse_symbol_list, as
// --opmark_symbols takes it: "B=8,X=-9") whose values replace or add to those. Clean rejections: ExprError
// (syntax, unknown symbol, division by zero, overflow) and opmark::Error (a bad symbol list).
// Checked: when evaluate succeeds, symbols_in (the syntax-only pass) names only symbols that have a value.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "core/expr.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  std::string text = fuzz::text_of(data, size);
  core::Symbols symbols = {{"B", 32}, {"L", 512}, {"H", 224}, {"W", 224}, {"C", 3}, {"K", 64}};
  try {
    const std::size_t newline = text.find('\n');
    if (newline != std::string::npos) {
      for (const auto& [name, value] : core::parse_symbol_list(text.substr(0, newline))) symbols[name] = value;
      text = text.substr(newline + 1);
    }
    core::evaluate(text, symbols);
    std::set<std::string> used;
    try {
      used = core::symbols_in(text);
    } catch (const core::ExprError&) {
      return 0;  // the syntax pass takes every symbol as 1, so it may overflow where the values did not
    }
    for (const auto& name : used)
      if (!symbols.count(name))
        fuzz::fail("evaluate succeeded with a symbol that has no value", name + " in '" + text + "'");
  } catch (const core::ExprError&) {
  } catch (const Error&) {
  }
  return 0;
}
