// The computations on parsed results (aggregate/scores.h, compare.h, spreadsheet.h): results text -> parse_results;
// what parses is scored against the fixture's model table (test/data/bundles/shapes/models/tiny.yaml, its areas),
// compared with itself and with the fixture run (test/data/bundles/good_v5) both ways, and laid out as the
// DeepBench-style sheets. Clean rejection: opmark::Error. A run compared with itself has no case slower.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "aggregate/compare.h"
#include "aggregate/results.h"
#include "aggregate/score_report.h"
#include "aggregate/spreadsheet.h"
#include "core/model_table.h"
#include "test/fuzz/fuzz_util.h"

namespace {

const std::string kData = std::string(OPMARK_SOURCE_DIR) + "/test/data/bundles";

const std::vector<opmark::core::ModelTable>& models() {
  static const std::vector<opmark::core::ModelTable> m = {
      opmark::core::load_model_table(kData + "/shapes/models/tiny.yaml")};
  return m;
}

const opmark::aggregate::ResultSet& fixture_run() {
  static const opmark::aggregate::ResultSet r = opmark::aggregate::load_results(
      kData + "/good_v5/run/results.jsonl", opmark::aggregate::Statistic::median);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace opmark;
  try {
    const aggregate::ResultSet results =
        aggregate::parse_results(fuzz::text_of(data, size), "fuzz.jsonl", aggregate::Statistic::median);
    aggregate::require_one_run(results);
    const aggregate::ScoreReport report =
        aggregate::score_report(results, models(), kData + "/shapes/areas.yaml", core::Symbols{}, "fp16");
    aggregate::score_report_json(report, results, "fuzz.jsonl", "fp16").dump();
    const aggregate::Comparison self = aggregate::compare(results, results);
    if (self.regressions != 0)
      fuzz::fail("a run compared with itself has a case slower", std::to_string(self.regressions) + " cases");
    aggregate::compare(results, fixture_run());
    aggregate::compare(fixture_run(), results);
    for (const auto& sheet : aggregate::deepbench_sheets(results)) aggregate::csv_text(sheet);
  } catch (const Error&) {
  }
  return 0;
}
