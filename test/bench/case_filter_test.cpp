// --benchmark_filter over opmark's case names (bench/harness/cases/case_filter.h): what it selects, the error and near
// names when it selects nothing, and that every case name of the shipped tables, anchored, selects itself alone.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "bench/harness/cases/case_filter.h"
#include "core/case.h"
#include "core/table.h"
#include "../file_util.h"

using namespace opmark::bench;
using opmark::test::error_message;

namespace {

const std::vector<std::string> kNames = {
    "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1", "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=16",
    "gemm/fwd/fp32/m=1760/n=16/k=1760/ta=N/tb=N/batch=1", "conv/fwd/fp16/n=1/c=3/h=224/w=224/k=64"};

std::vector<std::size_t> picks(std::initializer_list<std::size_t> i) { return i; }

}  // namespace

TEST(CaseFilter, SelectsAsGoogleBenchmarkReadsIt) {
  EXPECT_EQ(select_cases(kNames, ""), picks({0, 1, 2, 3}));
  EXPECT_EQ(select_cases(kNames, "all"), picks({0, 1, 2, 3}));
  EXPECT_EQ(select_cases(kNames, "."), picks({0, 1, 2, 3}));
  EXPECT_EQ(select_cases(kNames, "^gemm/"), picks({0, 1, 2}));
  EXPECT_EQ(select_cases(kNames, "fp16"), picks({0, 1, 3}));
  EXPECT_EQ(select_cases(kNames, "-^gemm/"), picks({3}));
  EXPECT_EQ(select_cases(kNames, "-"), picks({}));
  EXPECT_EQ(select_cases(kNames, "m=(1760|64)/n=16/"), picks({0, 1, 2}));
}

// The names results.jsonl and --benchmark_list_tests give, anchored at both ends, select exactly that case; a filter
// written for Google Benchmark's "/manual_time" names still selects what it did.
TEST(CaseFilter, AnAnchoredNameSelectsThatCaseAlone) {
  EXPECT_EQ(select_cases(kNames, "^" + kNames[0] + "$"), picks({0}));
  EXPECT_EQ(select_cases(kNames, "^" + kNames[1] + "$"), picks({1}));
  EXPECT_EQ(select_cases(kNames, "^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1/"), picks({0}));
  EXPECT_EQ(select_cases(kNames, "batch=1/manual_time$"), picks({0, 2}));
  EXPECT_EQ(select_cases(kNames, "-batch=1$"), picks({1, 3}));
}

TEST(CaseFilter, ShippedNamesAnchoredSelectThemselvesAlone) {
  std::vector<std::string> names;
  for (const auto& c : opmark::core::expand_tables(opmark::core::load_tables({OPMARK_SOURCE_DIR "/shapes"}), {}))
    names.push_back(opmark::core::make_case_name(c));
  ASSERT_GT(names.size(), 1000u);
  // '.' is the one regular-expression character in the names, and it matches one character: an anchored name can
  // only match a name of its own length, so each is tried against those alone (all pairs would take minutes).
  std::map<std::size_t, std::vector<std::string>> by_length;
  for (const auto& n : names) {
    ASSERT_EQ(n.find_first_of("^$*+?()[]{}|\\"), std::string::npos) << n;
    by_length[n.size()].push_back(n);
  }
  for (const auto& [length, group] : by_length)
    for (std::size_t i = 0; i < group.size(); ++i)
      ASSERT_EQ(select_cases(group, "^" + group[i] + "$"), picks({i})) << group[i];
}

TEST(CaseFilter, NearNamesAreTheFewestEditsAway) {
  // Anchored at both ends: the whole name (batch=1 one edit away, batch=16 and fp32 two); the earliest name first
  // among equals.
  EXPECT_EQ(near_names(kNames, "^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=3$"),
            (std::vector<std::string>{kNames[0], kNames[1], kNames[2]}));
  // Unanchored: the best part of a name.
  EXPECT_EQ(near_names(kNames, "conv/fdw/", 1), std::vector<std::string>{kNames[3]});
  EXPECT_EQ(near_names(kNames, "^gem/fwd/fp32/"), (std::vector<std::string>{kNames[2], kNames[0], kNames[1]}));
  EXPECT_TRUE(near_names(kNames, "zzzzzzzzzzzzzzzzzzzz").empty());
  EXPECT_TRUE(near_names(kNames, "^$").empty());
}

TEST(CaseFilter, SelectingNothingIsAnErrorNamingNearNames) {
  const std::string filter = "^gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=2$";
  const std::string message =
      error_message([&] { check_filter_selects(kNames, filter, select_cases(kNames, filter)); });
  EXPECT_EQ(message.rfind("--benchmark_filter: '" + filter + "' matches none of the 4 case names; near names:\n  " +
                              kNames[0] + "\n  " + kNames[1] + "\n  " + kNames[2] + "\n",
                          0),
            0u)
      << message;
  EXPECT_EQ(error_message([] { check_filter_selects(kNames, "-.", {}); }),
            "--benchmark_filter: '-.' matches none of the 4 case names; --benchmark_list_tests lists their names");
  EXPECT_EQ(error_message([] { check_filter_selects(kNames, "fp16", {0}); }), "");
  EXPECT_EQ(error_message([] { check_filter_selects({}, "fp16", {}); }), "");  // nothing to select from: said elsewhere
}

// Google Benchmark prints an invalid filter's error and runs nothing, exiting 0; opmark-bench refuses it first.
TEST(CaseFilter, AnInvalidRegexIsAnError) {
  EXPECT_EQ(error_message([] { check_benchmark_filter("gemm/(fwd"); }).rfind(
                "--benchmark_filter: 'gemm/(fwd' is not a valid regular expression (", 0),
            0u);
  EXPECT_NE(error_message([] { check_benchmark_filter("-[z-a]"); }), "");
  EXPECT_NE(error_message([] { select_cases(kNames, "gemm/(fwd"); }), "");
  for (const char* good : {"", "all", ".", "^gemm/fwd/fp16/", "-^conv/", "m=(64|128)/"})
    EXPECT_EQ(error_message([&] { check_benchmark_filter(good); }), "") << good;
}

// The console prints short names (the fields at their defaults left out): one copied from there, anchored, selects
// its case, and a negated one leaves it out.
TEST(CaseFilter, AShortNameFromTheConsoleSelectsItsCase) {
  const opmark::core::Case conv = opmark::core::make_case(
      "conv", "fwd", "fp16", {{"n", 1}, {"c", 3}, {"h", 8}, {"w", 8}, {"k", 4}, {"r", 3}, {"s", 3}});
  const std::vector<std::string> names = {kNames[0], opmark::core::make_case_name(conv)};
  const std::vector<std::string> shorts = {kNames[0], opmark::core::short_case_name(conv)};
  ASSERT_NE(shorts[1], names[1]);
  EXPECT_EQ(select_cases(names, "^" + shorts[1] + "$"), picks({}));  // without the short names: nothing
  EXPECT_EQ(select_cases(names, "^" + shorts[1] + "$", shorts), picks({1}));
  EXPECT_EQ(select_cases(names, "-^" + shorts[1] + "$", shorts), picks({0}));
}
