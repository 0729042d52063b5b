// The resume reader (core/resume.h): a killed run's results.jsonl -> parse_resume_state. What it hands on must hold
// together: each case to re-time is done and ok, each done case has a status, the text kept is no longer than the
// input, and the context matches itself. Clean rejection: opmark::Error.
#include <cstddef>
#include <cstdint>

#include "core/resume.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    const core::ResumeState state = core::parse_resume_state(fuzz::text_of(data, size), "results.jsonl");
    for (const auto& [name, line] : state.to_retime)
      if (!state.done.count(name) || state.status.at(name) != "ok" || !line.is_object()) __builtin_trap();
    for (const auto& [name, status] : state.status)
      if (!state.done.count(name)) __builtin_trap();
    if (state.kept_text.size() > size + 1 || !state.context.is_object()) __builtin_trap();
    if (!core::resume_mismatches(state.context, state.context).empty()) __builtin_trap();
    static_cast<void>(state.counts());
  } catch (const Error&) {
  }
  return 0;
}
