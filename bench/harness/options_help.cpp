// --opmark_help's text: every flag, and one line per family of core's list.
#include <algorithm>
#include <string>

#include "bench/harness/options.h"
#include "core/run_spec.h"
#include "core/schema.h"

namespace opmark::bench {

namespace {

// The switches, "--opmark_validate, --opmark_overwrite, ...": the settings with no value to name.
std::string switches() {
  std::string out;
  for (const core::RunSetting& s : core::run_settings())
    if (s.metavar.empty()) out += (out.empty() ? "--" : ", --") + s.flag;
  return out;
}

// One line per family of the registry: its name and what runs it.
std::string family_help() {
  std::string out = "\nFamilies (--opmark_family):\n";
  for (const auto& f : core::families()) {
    std::string name = "  " + f.schema.family;
    name.resize(std::max<std::size_t>(name.size() + 1, 16), ' ');
    out += name + f.title + " (" + f.library + ")\n";
  }
  return out;
}

}  // namespace

std::string options_help() {
  return R"(opmark-bench: operator benchmarks through the vendor libraries, one Google Benchmark case per
(shape-table row, direction, precision). Case names: <family>/<direction>/<precision>/<field>=<value>/...

opmark flags (Google Benchmark's own flags, e.g. --benchmark_filter, --benchmark_repetitions, --benchmark_out,
--benchmark_list_tests, all work too; the filter and the list use the names results.jsonl uses, and a filter that
selects nothing is an error):
)" + core::settings_help() +
         R"(  --opmark_help                 this text (--help adds Google Benchmark's)
  --version                     opmark's version and commit, and the versions of the libraries it loads (and was
                                built with); runs nothing, needs no GPU
Each flag takes --opmark_x=VALUE or --opmark_x VALUE; a switch ()" + switches() +
         R"() takes =true or =false only after '='. An unknown set, model, family or precision is an error listing
the known ones, and a --benchmark_filter that is no valid regular expression is an error (exit 2).
)" + family_help();
}

}  // namespace opmark::bench
