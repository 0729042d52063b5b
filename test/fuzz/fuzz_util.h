#pragma once
// Shared by the libFuzzer harnesses (test/fuzz/fuzz_*.cpp). A harness feeds its input to one reader and swallows
// only the reader's clean rejections (opmark::Error and its subclasses, and the few documented others); anything
// else -- a crash, a hang, a sanitizer report, another exception type escaping, or a broken property checked
// here -- stops libFuzzer and is a finding.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/case.h"
#include "core/error.h"

namespace opmark::fuzz {

inline std::string text_of(const unsigned char* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property the readers promise does not hold: say which and stop (libFuzzer saves the input).
[[noreturn]] inline void fail(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "\nopmark fuzz finding: %s\n  %s\n", what.c_str(), detail.c_str());
  std::abort();
}

// What every reader that makes cases promises of each one: its name parses back to the same name (names are the
// results' keys), and its work is a number of operations and bytes, not negative, not NaN.
inline void check_case(const core::Case& c) {
  const std::string name = core::make_case_name(c);
  core::Case back;
  try {
    back = core::parse_case_name(name);
  } catch (const Error& e) {
    fail("a valid case's name does not parse back", name + ": " + e.what());
  }
  const std::string again = core::make_case_name(back);
  if (again != name) fail("a case name changes when read back", name + " -> " + again);
  const core::Work w = core::work_of(c);
  if (!(w.flops >= 0) || !(w.bytes_read >= 0) || !(w.bytes_written >= 0))
    fail("negative or NaN work", name + ": flops " + std::to_string(w.flops) + ", bytes read " +
                                     std::to_string(w.bytes_read) + ", written " + std::to_string(w.bytes_written));
}

}  // namespace opmark::fuzz
