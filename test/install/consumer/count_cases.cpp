// Reads one installed shape table through opmark::core and prints its family, rows and case count.
#include <cstdio>
#include <exception>
#include <string>

#include "core/table.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(OPMARK_INSTALLED_SHAPES) + "/gemm.yaml";
  try {
    const opmark::core::Table table = opmark::core::load_table(path);
    std::size_t rows = 0;
    for (const auto& set : table.sets) rows += set.rows.size();
    const auto cases = opmark::core::expand_tables({table}, {});
    std::printf("%s: %zu rows, %zu distinct cases\n", table.family.c_str(), rows, cases.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "count_cases: %s\n", e.what());
    return 1;
  }
  return 0;
}
