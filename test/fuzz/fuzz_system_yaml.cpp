// A bundle's system.yaml (aggregate/system_description.h): YAML text -> read_system_fields, the one reader of the
// checker and the page. Clean rejection: opmark::Error. What it returns holds each dotted key once, with a line.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "aggregate/system_description.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    const auto fields = aggregate::read_system_fields(fuzz::text_of(data, size), "system.yaml");
    std::set<std::string> seen;
    for (const auto& [key, field] : fields) {
      // A key read twice is a value the checker and the page could each take differently.
      if (!seen.insert(key).second) fuzz::fail("a field read twice", key);
      if (field.line < 1) fuzz::fail("a field without its line", key);
    }
  } catch (const Error&) {
  }
  return 0;
}
