// Model tables (core/model_table.h): YAML text -> parse_model_table, then the model's calls at its default inputs
// in three precisions (one every family runs, one RNNs do not), each case's name read back and its work counted.
// Clean rejection: opmark::Error (TableError).
#include <cstddef>
#include <cstdint>

#include "core/model_table.h"
#include "test/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    const core::ModelTable model = core::parse_model_table(fuzz::text_of(data, size), "fuzz.yaml");
    for (const char* precision : {"fp16", "fp32", "int8"}) {
      for (const core::ModelCall& call : core::model_calls(model, {}, precision)) {
        if (call.calls < 1) fuzz::fail("a model call count below 1", std::to_string(call.calls));
        if (call.c) fuzz::check_case(*call.c);
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
