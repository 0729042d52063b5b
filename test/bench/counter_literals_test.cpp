// One spelling of each counter's name: outside core/counters, no C++ source of the bench or the aggregator writes a
// counter's name as a string literal (they use core::counter::), so a renamed counter cannot leave a reader behind.
// The names that are also ordinary words or other keys (a case parameter "batch", a context key "sm_clock_mhz") are
// not searched for: a literal of theirs may well be that other thing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/counters.h"

namespace fs = std::filesystem;

namespace {

// The line less a trailing // comment (a "//" inside a string literal is rare here and errs on the safe side).
std::string code_of(const std::string& line) {
  const std::size_t first = line.find_first_not_of(" \t");
  if (first != std::string::npos && line.compare(first, 2, "//") == 0) return "";
  const std::size_t comment = line.find(" // ");
  return comment == std::string::npos ? line : line.substr(0, comment);
}

}  // namespace

TEST(CounterLiterals, NoSourceSpellsACounterNameOutsideTheSchema) {
  const std::set<std::string> words = {"batch", "graph", "bytes", "flops", "noise", "ranks", "processes",
                                       "repetitions", "candidates", "padded", "nnz", "throttled", "tflops",
                                       "gb_per_s", "sm_clock_mhz"};
  std::set<std::string> names;
  for (const auto& spec : opmark::core::counter_schema())
    if (spec.name.find('<') == std::string_view::npos && !words.count(std::string(spec.name)))
      names.insert(std::string(spec.name));
  int files = 0;
  std::string found;
  for (const char* folder : {"bench", "aggregate", "core"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(OPMARK_SOURCE_DIR) / folder)) {
      const fs::path& p = entry.path();
      if (p.extension() != ".cpp" && p.extension() != ".h") continue;
      if (p.stem() == "counters" && p.parent_path().filename() == "core") continue;
      ++files;
      std::ifstream in(p);
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        const std::string code = code_of(line);
        for (const std::string& name : names)
          if (code.find('"' + name + '"') != std::string::npos)
            found += "\n  " + fs::relative(p, OPMARK_SOURCE_DIR).string() + ":" + std::to_string(number) + ": \"" +
                     name + "\"";
      }
    }
  EXPECT_GT(files, 100);
  EXPECT_TRUE(found.empty()) << "counter names spelt as literals (use core::counter::):" << found;
}
