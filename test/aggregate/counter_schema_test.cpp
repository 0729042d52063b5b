// The counter schema (core/counters.h) against what exists: every counter of the committed bundles has its entry,
// patterns match only their numbered names, and bench/compare/counters.json (the Python scripts' copy) is what
// `opmark-aggregate counters --json` writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "aggregate/counters_command.h"
#include "aggregate/results.h"
#include "core/counters.h"

namespace fs = std::filesystem;
using namespace opmark;

TEST(CounterSchema, EveryCounterOfTheCommittedBundlesIsInIt) {
  std::set<std::string> unknown;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(OPMARK_SOURCE_DIR "/results")) {
    const std::string path = entry.path().string();
    if (entry.path().filename() != "results.jsonl.gz") continue;
    ++files;
    aggregate::parse_results(aggregate::read_results_text(path), path, aggregate::Statistic::median, {},
                             [&](int, const core::ResultRecord& line) {
                               if (line.counters)
                                 for (const auto& [name, value] : *line.counters)
                                   if (!core::find_counter(name)) unknown.insert(name);
                             });
  }
  EXPECT_GE(files, 2);
  std::string names;
  for (const auto& n : unknown) names += n + " ";
  EXPECT_TRUE(unknown.empty()) << "counters with no entry in core/counters.cpp: " << names;
}

TEST(CounterSchema, PatternsMatchTheirNumberedNamesOnly) {
  ASSERT_NE(core::find_counter("kernel0_us"), nullptr);
  EXPECT_EQ(core::find_counter("kernel12_us")->name, "kernel<N>_us");
  EXPECT_EQ(core::find_counter("kernel_us")->name, "kernel_us");
  EXPECT_EQ(core::find_counter("kernelx_us"), nullptr);
  EXPECT_EQ(core::find_counter("remeasured_rep3_us")->name, "remeasured_rep<N>_us");
  EXPECT_EQ(core::find_counter(core::counter::kernel_n_us(4))->name, "kernel<N>_us");
  EXPECT_EQ(core::find_counter("no_such_counter"), nullptr);
  std::set<std::string_view> names;
  for (const auto& spec : core::counter_schema()) {
    EXPECT_TRUE(names.insert(spec.name).second) << "twice: " << spec.name;
    EXPECT_FALSE(spec.unit.empty()) << spec.name;
    EXPECT_FALSE(spec.description.empty()) << spec.name;
  }
}

TEST(CounterSchema, ThePythonCopyIsCurrent) {
  std::ifstream in(OPMARK_SOURCE_DIR "/bench/compare/counters.json");
  ASSERT_TRUE(in) << "bench/compare/counters.json is missing";
  std::stringstream committed;
  committed << in.rdbuf();
  std::ostringstream written;
  aggregate::print_counters(written, true);
  EXPECT_EQ(committed.str(), written.str())
      << "regenerate it: opmark-aggregate counters --json > bench/compare/counters.json";
}
