// Shape tables (core/table.h): YAML text -> parse_table, then every case the table makes (expand_tables), each
// name read back and its work counted. Clean rejection: opmark::Error (TableError).
#include <cstddef>
#include <cstdint>

#include "core/table.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    const core::Table table = core::parse_table(fuzz::text_of(data, size), "fuzz.yaml");
    for (const core::Case& c : core::expand_tables({table}, core::Selection{})) fuzz::check_case(c);
  } catch (const Error&) {
  }
  return 0;
}
