// Submission rules (core/suite.h): YAML text -> parse_suite, then the cases the rules require of two small
// built-in shape tables (suite_cases: unknown sets and precisions are errors). Clean rejection: opmark::Error.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/suite.h"
#include "test/fuzz/fuzz_util.h"

namespace {

const char* const kGemm = R"(family: gemm
sets:
  train:
    precisions: [fp16, fp32]
    symbols: {B: 4}
    rows:
      - {m: 1760, n: 16, k: 1760}
      - {m: B*128, n: 64, k: 32, ta: T}
  inference_server:
    precisions: [fp16, int8]
    rows:
      - {m: 5124, n: 700, k: 2048, tb: T, batch: 2}
)";
const char* const kRnn = R"(family: rnn
sets:
  train:
    precisions: [fp16]
    directions: [fwd, bwd_data]
    rows:
      - {cell: lstm, hidden: 512, batch: 16, steps: 25, layers: 2}
      - {cell: gru, hidden: 256, batch: 8, steps: 10, input: 128, input_mode: linear}
)";

const std::vector<opmark::core::Table>& tables() {
  static const std::vector<opmark::core::Table> t = {opmark::core::parse_table(kGemm, "gemm.yaml"),
                                                     opmark::core::parse_table(kRnn, "rnn.yaml")};
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  const auto& shape_tables = tables();
  try {
    const core::Suite suite = core::parse_suite(fuzz::text_of(data, size), "fuzz.yaml");
    if (suite.repetitions < 1 || suite.rules_version < 1 || !(suite.min_time_s > 0) || !(suite.max_noise > 0) ||
        !(suite.noise_target > 0 && suite.noise_target < 1))
      fuzz::fail("rules read with a value they must not have", "repetitions " + std::to_string(suite.repetitions) +
                                                                   ", rules_version " + std::to_string(suite.rules_version));
    for (const core::Case& c : core::suite_cases(suite, shape_tables, {})) fuzz::check_case(c);
  } catch (const Error&) {
  }
  return 0;
}
