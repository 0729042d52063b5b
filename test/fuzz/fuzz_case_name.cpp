// Case names (core/case.h): text -> parse_case_name, then the name the case is made into must read back to
// itself, and its work be counted. Clean rejection: opmark::Error.
#include <cstddef>
#include <cstdint>

#include "core/case.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    fuzz::check_case(core::parse_case_name(fuzz::text_of(data, size)));
  } catch (const Error&) {
  }
  return 0;
}
