// The aggregator on hand-written fixtures whose numbers are worked out here: statistics over repetitions,
// both result formats, OpBench scores with coverage, area scores, and compare's verdicts on planted regressions;
// results format 2's counters, energy columns and unstable cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "aggregate/compare.h"
#include "aggregate/plots.h"
#include "aggregate/results.h"
#include "aggregate/score_report.h"
#include "aggregate/scores.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/systems_sheets.h"
#include "core/error.h"

using namespace opmark;
using namespace opmark::aggregate;

namespace {

const char* kGemm = "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1";
const char* kRelu = "pointwise/fwd/fp16/op=relu/rows=8/cols=64/impl=opmark";

// Three repetitions of the GEMM (10, 12, 11 us), the ReLU measured at 4 us, one failed case.
std::string jsonl(double gemm_a = 10, double gemm_b = 12, double gemm_c = 11) {
  auto run = [](const std::string& name, double t, int rep) {
    return "{\"type\":\"run\",\"name\":\"" + name + "\",\"status\":\"ok\",\"repetition\":" + std::to_string(rep) +
           ",\"time_us\":" + std::to_string(t) + "}\n";
  };
  return std::string("{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n") + run(kGemm, gemm_a, 0) +
         run(kGemm, gemm_b, 1) + run(kGemm, gemm_c, 2) + run(kRelu, 4, 0) + run(kRelu, 4, 1) +
         "{\"type\":\"run\",\"name\":\"gemm/fwd/fp16/m=1/n=1/k=1/ta=N/tb=N/batch=1\",\"status\":\"failed\","
         "\"reason\":\"wrong result\"}\n{\"type\":\"summary\",\"ok\":2}\n";
}

const char* kModel = R"(model: tiny
area: nlp
inputs: {B: 8}
measured: {device: NVIDIA H200, precision: fp16, gpu_time_ms: 0.05}
ops:
  - {family: gemm, calls: 2, traced_us: 10, m: 64, n: B, k: 32}
  - {family: pointwise, calls: 3, traced_us: 5, op: relu, rows: B, cols: 64}
  - {family: other, calls: 5, traced_us: 1, source_op: aten::embedding}
)";

}  // namespace

TEST(AggregateResults, StatisticsOverRepetitions) {
  EXPECT_DOUBLE_EQ(parse_results(jsonl(), "r.jsonl", Statistic::median).cases.at(kGemm).time_us, 11.0);
  EXPECT_DOUBLE_EQ(parse_results(jsonl(), "r.jsonl", Statistic::min).cases.at(kGemm).time_us, 10.0);
  EXPECT_DOUBLE_EQ(parse_results(jsonl(), "r.jsonl", Statistic::mean).cases.at(kGemm).time_us, 11.0);
  const ResultSet r = parse_results(jsonl(), "r.jsonl", Statistic::median);
  EXPECT_EQ(r.context.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(r.cases.at("gemm/fwd/fp16/m=1/n=1/k=1/ta=N/tb=N/batch=1").status, "failed");
}

TEST(AggregateResults, GoogleBenchmarkJson) {
  const std::string json = std::string(R"({"context": {"opmark_gpu": "NVIDIA H100"}, "benchmarks": [
    {"name": "X/manual_time", "run_name": ")") + kGemm + R"(", "run_type": "iteration", "real_time": 9000,
     "time_unit": "ns"},
    {"name": "X/manual_time", "run_name": ")" + kGemm + R"(", "run_type": "iteration", "real_time": 7, "time_unit": "us"},
    {"name": "X/manual_time_median", "run_name": ")" + kGemm + R"(", "run_type": "aggregate",
     "aggregate_name": "median", "real_time": 8, "time_unit": "us"},
    {"name": "Y", "run_name": "conv/x", "error_occurred": true, "error_message": "SKIPPED unsupported"}]})";
  const ResultSet r = parse_results(json, "b.json", Statistic::min);
  EXPECT_DOUBLE_EQ(r.cases.at(kGemm).time_us, 7.0);  // min of 9 us (in ns) and 7 us
  EXPECT_EQ(r.cases.at("conv/x").status, "skipped");
  EXPECT_EQ(r.context.at("gpu"), "NVIDIA H100");
}

TEST(AggregateResults, MalformedLineNamesFileAndLine) {
  try {
    parse_results("{\"type\":\"context\",\"context\":{}}\n{\"type\":\"run\", oops}\n", "r.jsonl", Statistic::median);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("r.jsonl:2: not a JSON line", 0), 0u) << e.what();
  }
  EXPECT_THROW(parse_results("{\"type\":\"run\",\"status\":\"ok\"}\n", "r.jsonl", Statistic::median), Error);
}

TEST(AggregateScores, SumOfCallsTimesTimeWithCoverage) {
  const core::ModelTable m = core::parse_model_table(kModel, "tiny.yaml");
  const ResultSet r = parse_results(jsonl(), "r.jsonl", Statistic::median);
  const ModelScore s = score_model(m, {}, "fp16", r);
  // 2 calls x 11 us + 3 calls x 4 us = 34 us; the 5 embedding calls are family other.
  EXPECT_DOUBLE_EQ(s.score_ms, 0.034);
  EXPECT_EQ(s.calls, 10);
  EXPECT_EQ(s.covered_calls, 5);
  EXPECT_DOUBLE_EQ(s.coverage_calls(), 0.5);
  // Traced time: 2 x 10 + 3 x 5 + 5 x 1 = 40 us, of which 35 covered.
  EXPECT_DOUBLE_EQ(s.coverage_time(), 35.0 / 40.0);
  EXPECT_TRUE(s.missing.empty());
  ASSERT_TRUE(s.measured_ms.has_value());
  EXPECT_DOUBLE_EQ(*s.measured_ms, 0.05);
  EXPECT_FALSE(s.parallel_ms.has_value());  // no dependency graph in the table
  // With one: the two products side by side, then the three ReLUs in a chain after both, the lookups apart (other:
  // no time). The longest path: 11 + 3 x 4 = 23 us, where the sequential score is 34.
  const core::ModelTable g = core::parse_model_table(
      std::string(kModel) + "graph: [[0], [0], [1, 0, 1], [1, 2], [1, 3], [2], [2], [2], [2], [2]]\n", "g.yaml");
  const ModelScore parallel = score_model(g, {}, "fp16", r);
  ASSERT_TRUE(parallel.parallel_ms.has_value());
  EXPECT_DOUBLE_EQ(*parallel.parallel_ms, 0.023);
  EXPECT_DOUBLE_EQ(parallel.score_ms, 0.034);
  // At B = 16 the cases are other shapes, which the results lack: listed, not scored.
  const ModelScore at16 = score_model(m, {{"B", 16}}, "fp16", r);
  EXPECT_EQ(at16.missing.size(), 2u);
  EXPECT_DOUBLE_EQ(at16.score_ms, 0.0);
}

TEST(AggregateScores, AreaIsTheMeanOverItsModels) {
  // OpBench: sum_i (N_i / N_models) C_i. Models scoring 0.034 and 0.066 ms -> (0.034 + 0.066) / 2.
  ModelScore a, b, c;
  a.name = "a", a.score_ms = 0.034;
  b.name = "b", b.score_ms = 0.066;
  c.name = "c", c.score_ms = 100;  // not in the area
  const AreaScore s = score_area({"nlp", "", {"a", "b"}}, {a, b, c});
  EXPECT_DOUBLE_EQ(s.score_ms, 0.05);
  EXPECT_EQ(s.models, (std::vector<std::string>{"a", "b"}));
}

TEST(AggregateCompare, RegressionOnlyBeyondThresholdAndNoise) {
  const ResultSet before = parse_results(jsonl(10, 10.2, 10.1), "before", Statistic::median);
  // Slower by 19%, far beyond the 0.2 us spread: a regression.
  const Comparison slower = compare(before, parse_results(jsonl(12, 12.1, 12.2), "after", Statistic::median), 0.05);
  ASSERT_EQ(slower.cases.size(), 2u);
  EXPECT_EQ(slower.regressions, 1);
  // Slower by 6% but the repetitions spread over 4 us: within noise.
  const Comparison noisy = compare(before, parse_results(jsonl(9, 10.7, 13), "after", Statistic::median), 0.05);
  EXPECT_EQ(noisy.regressions, 0);
  // Slower by 2%: under the threshold.
  const Comparison small = compare(before, parse_results(jsonl(10.3, 10.3, 10.3), "after", Statistic::median), 0.05);
  EXPECT_EQ(small.regressions, 0);
  EXPECT_NEAR(small.geomean_ratio, std::sqrt(10.3 / 10.1 * 1.0), 1e-12);
}

TEST(AggregateSpreadsheet, DirectionsOfOneShapeShareARowAsInDeepBench) {
  const std::string fwd = "conv/fwd/fp16/n=2/c=8/d=1/h=16/w=16/k=8/t=1/r=3/s=3/pad_d=0/pad_h=1/pad_w=1/stride_d=1/"
                          "stride_h=1/stride_w=1/dil_h=1/dil_w=1/groups=1/layout=NCHW";
  std::string data = fwd;
  data.replace(data.find("/fwd/"), 5, "/bwd_data/");
  // Another shape (c=16) ran bwd_filter, so the sheet has its columns, and the first shape's cell says "not run".
  std::string filter = fwd;
  filter.replace(filter.find("/fwd/"), 5, "/bwd_filter/");
  filter.replace(filter.find("/c=8/"), 5, "/c=16/");
  const auto line = [](const std::string& name, double us) {
    return "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + name +
           "\",\"status\":\"ok\",\"time_us\":" + std::to_string(us) + "}\n";
  };
  const std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n" + line(fwd, 2.0) +
                           line(data, 4.0) + line(filter, 5.0);
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  ASSERT_EQ(sheets.size(), 2u);  // fp16_conv and specs
  const Sheet& conv = sheets[0];
  EXPECT_EQ(conv.name, "fp16_conv");
  ASSERT_EQ(conv.rows.size(), 2u);
  EXPECT_EQ(conv.title, "Convolution");
  const auto column = [&](const std::string& h) {
    return conv.rows[0][static_cast<std::size_t>(std::find(conv.header.begin(), conv.header.end(), h) -
                                                 conv.header.begin())];
  };
  // 2 N K P Q C R S = 2 x 2 x 8 x 16 x 16 x 8 x 3 x 3 = 589824 FLOPs; in 2 us: 0.294912 TFLOPS, in 4 us 0.147456.
  EXPECT_EQ(column("fwd time (us)").text, "2");
  EXPECT_EQ(column("fwd time (ms)").text, "0.002");
  EXPECT_EQ(column("fwd TFLOPS").text, "0.294912");
  EXPECT_DOUBLE_EQ(column("fwd TFLOPS").value, 0.294912);  // whole, not rounded
  EXPECT_EQ(column("bwd_data TFLOPS").text, "0.147456");
  EXPECT_EQ(column("bwd_filter time (us)").text, "not run");
  EXPECT_FALSE(column("bwd_filter time (us)").number);
  EXPECT_EQ(column("bwd_filter time (ms)").text, "");
  EXPECT_EQ(column("application").text, "");  // the lines name none
  EXPECT_EQ(sheets[1].name, "specs");
  EXPECT_EQ(row_texts(sheets[1].rows[0]), (std::vector<std::string>{"gpu", "NVIDIA H200"}));
  // A direction no case of the sheet ran has no columns: forward alone gives forward columns alone.
  const auto forward_only = deepbench_sheets(parse_results(
      "{\"type\":\"context\",\"context\":{}}\n" + line(fwd, 2.0), "r.jsonl", Statistic::median));
  const auto& header = forward_only[0].header;
  EXPECT_NE(std::find(header.begin(), header.end(), "fwd time (us)"), header.end());
  EXPECT_EQ(std::find(header.begin(), header.end(), "bwd_data time (us)"), header.end());
  EXPECT_EQ(std::find(header.begin(), header.end(), "bwd_filter TFLOPS"), header.end());
}

TEST(AggregatePlots, SvgWithOneMarkerPerCaseAndTheRoofs) {
  std::string text = jsonl();
  text.replace(text.find("{\"gpu\":\"NVIDIA H200\"}"), 21,
               "{\"gpu\":\"NVIDIA H200\",\"peak_tflops_fp16\":\"989.4\",\"peak_gb_per_s\":\"4800\"}");
  const ResultSet r = parse_results(text, "r.jsonl", Statistic::median);
  const std::string roof = roofline_svg({{"H200", &r}}, "fp16");
  EXPECT_EQ(roof.rfind("<svg", 0), 0u);
  EXPECT_NE(roof.find("<path d=\"M"), std::string::npos);  // the roof
  // The GEMM has FLOPs (a marker); the ReLU has none (memory bound: not on a roofline).
  std::size_t markers = 0;
  const std::string point = " FLOPs/byte</title></circle>";  // a case's marker (the legend's has no title)
  for (std::size_t at = roof.find(point); at != std::string::npos; at = roof.find(point, at + 1)) ++markers;
  EXPECT_EQ(markers, 1u);
  EXPECT_NE(roof.find(">H200 (1 cases)</text>"), std::string::npos) << roof;  // the legend names the set
  // No case of fp32 has FLOPs: no chart at all, rather than an empty one.
  EXPECT_EQ(roofline_svg({{"H200", &r}}, "fp32"), "");
  const std::string chart = operator_chart_svg("area", {{"H200", {{"a", 10, 2}, {"b", 100, 0.5}}}});
  EXPECT_NE(chart.find("<title>b: 100 us x 0.5 calls</title>"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">H200 (2 cases)</text>"), std::string::npos) << chart;
  // Two sets: each in its own colour and marker shape, both named.
  const std::string two = operator_chart_svg("area", {{"H100", {{"a", 10, 2}}}, {"H200", {{"a", 8, 2}}}});
  EXPECT_NE(two.find("<title>H100: a: 10 us x 2 calls</title></circle>"), std::string::npos) << two;
  EXPECT_NE(two.find("<title>H200: a: 8 us x 2 calls</title></rect>"), std::string::npos) << two;
  EXPECT_NE(two.find(">H100 (1 cases)</text>"), std::string::npos) << two;
  const std::string bars = area_bars_svg({"H200"}, {{AreaScore{"nlp", {"a"}, 2.5}}});
  EXPECT_NE(bars.find("<title>H200: 2.5 ms</title>"), std::string::npos) << bars;
  // A case's history (db history --svg): a line through its runs, broken where a run did not time it; names escaped.
  const std::string history =
      history_svg("history", {"run 1, 2026-11-01", "run 2, 2026-11-02", "run 3, 2026-11-03"},
                  {{"a<b", {{0, 10}, {2, 12}}}, {"c", {{0, 5}, {1, 6}, {2, 5.5}}}});
  EXPECT_NE(history.find("<title>a&lt;b: 10 us, run 1, 2026-11-01</title>"), std::string::npos) << history;
  EXPECT_NE(history.find(">run 3, 2026-11-03</text>"), std::string::npos) << history;
  const auto path_of = [&](std::size_t nth) {
    std::size_t at = 0;
    for (std::size_t i = 0; i <= nth; ++i) at = history.find("<path d=\"", at) + 9;
    return history.substr(at, history.find('"', at) - at);
  };
  const std::string broken = path_of(0), whole = path_of(1);
  EXPECT_EQ(std::count(broken.begin(), broken.end(), 'M'), 2) << broken;  // run 2 missing: two pieces
  EXPECT_EQ(std::count(whole.begin(), whole.end(), 'M'), 1) << whole;
}

// Google Benchmark writes an undefined statistic (the cv of a constant counter) as a bare NaN: still readable.
TEST(Results, BenchmarkJsonWithNaNCountersLoads) {
  const std::string text = R"({"context": {"opmark_gpu": "G"}, "benchmarks": [
    {"name": "c/manual_time", "run_name": "c/manual_time", "run_type": "iteration", "real_time": 5, "time_unit": "us",
     "label": "NaN in a string stays"},
    {"name": "c/manual_time_cv", "run_name": "c/manual_time", "run_type": "aggregate", "aggregate_name": "cv",
     "real_time": 0.01, "time_unit": "us", "flops": NaN, "bytes": -NaN}]})";
  const opmark::aggregate::ResultSet r = opmark::aggregate::parse_results(text, "benchmark.json", opmark::aggregate::Statistic::median);
  ASSERT_EQ(r.cases.count("c"), 1u);  // the /manual_time suffix is not part of opmark's name
  EXPECT_DOUBLE_EQ(r.cases.at("c").time_us, 5.0);
  EXPECT_EQ(r.cases.at("c").label, "NaN in a string stays");
}

// Results format 2 (test/data/results_v2.jsonl): a GEMM with energy counters, a GEMM that the end-of-run re-time
// (a "recheck" line appended later) found unstable, a ReLU with repetitions only, a failed case.
namespace {

const std::string kV2 = std::string(OPMARK_SOURCE_DIR) + "/test/data/results_v2.jsonl";
const char* kBig = "gemm/fwd/fp16/m=4096/n=4096/k=4096/ta=N/tb=N/batch=1";
const char* kShaky = "gemm/fwd/fp16/m=1024/n=1024/k=1024/ta=N/tb=N/batch=1";
const char* kReluV2 = "pointwise/fwd/fp16/op=relu/rows=114688/cols=56/impl=opmark";
const char* kShakyReason =
    "re-timed at the end of the run at 12.1 us and measured again at 12.0 us, against a median of 112.0 us (9.3x)";

// The cell of `sheet`'s row `row` under the header `column`; "(no column)" where the sheet has none.
std::string cell(const Sheet& sheet, std::size_t row, const std::string& column) {
  const auto it = std::find(sheet.header.begin(), sheet.header.end(), column);
  if (it == sheet.header.end()) return "(no column)";
  return sheet.rows.at(row).at(static_cast<std::size_t>(it - sheet.header.begin())).text;
}

const Sheet& sheet_named(const std::vector<Sheet>& sheets, const std::string& name) {
  for (const auto& s : sheets)
    if (s.name == name) return s;
  throw Error("no sheet " + name);
}

}  // namespace

TEST(ResultsFormat2, AnUnstableCaseHasItsTimeAndKeepsItsStatusAndReason) {
  const ResultSet r = load_results(kV2, Statistic::median);
  EXPECT_EQ(r.context.at("results_format"), "2");
  EXPECT_EQ(r.context.at("timing_mode"), "graph");
  const CaseResult& shaky = r.cases.at(kShaky);
  // Its repetitions and aggregates said ok; the end-of-run re-time's line, appended after, says unstable.
  EXPECT_EQ(shaky.status, "unstable");
  EXPECT_TRUE(shaky.unstable());
  EXPECT_TRUE(shaky.timed());
  EXPECT_EQ(shaky.reason, kShakyReason);
  EXPECT_DOUBLE_EQ(shaky.time_us, 112.0);
  EXPECT_EQ(shaky.reps_us.size(), 3u);
  EXPECT_DOUBLE_EQ(load_results(kV2, Statistic::min).cases.at(kShaky).time_us, 111.0);
  const CaseResult& failed = r.cases.at("gemm/fwd/fp16/m=1/n=1/k=1/ta=N/tb=N/batch=1");
  EXPECT_FALSE(failed.timed());
  EXPECT_DOUBLE_EQ(failed.time_us, 0.0);
}

TEST(ResultsFormat2, CountersComeFromTheMedianLineElseTheLastRepetition) {
  const ResultSet r = load_results(kV2, Statistic::median);
  const CaseResult& big = r.cases.at(kBig);
  // The median line's 0.12 J, not a repetition's (0.1212 last) nor the mean line's (999, after the median).
  EXPECT_DOUBLE_EQ(big.counter("joules_per_op"), 0.12);
  EXPECT_DOUBLE_EQ(big.counter("tflops_per_w"), 1.1453);
  EXPECT_DOUBLE_EQ(big.counter("graph"), 1.0);
  EXPECT_DOUBLE_EQ(big.counter("no_such_counter", -7), -7.0);
  EXPECT_FALSE(big.has_counter("no_such_counter"));
  // The recheck line's counters over the median line's.
  const CaseResult& shaky = r.cases.at(kShaky);
  EXPECT_DOUBLE_EQ(shaky.counter("recheck_us"), 12.1);
  EXPECT_DOUBLE_EQ(shaky.counter("joules_per_op"), 0.05);
  EXPECT_DOUBLE_EQ(shaky.time_us, 112.0);  // the median of its repetitions still
  // No aggregate lines: the last repetition's counters.
  const CaseResult& relu = r.cases.at(kReluV2);
  EXPECT_DOUBLE_EQ(relu.time_us, 16.4);
  EXPECT_DOUBLE_EQ(relu.counter("joules_per_op"), 0.00652);
  EXPECT_DOUBLE_EQ(relu.counter("launch_bound"), 1.0);
  // Format 1 has counters too (none here), and a case without a time has none.
  EXPECT_TRUE(parse_results(jsonl(), "r.jsonl", Statistic::median).cases.at(kGemm).counters.empty());
  EXPECT_THROW(parse_results("{\"type\":\"run\",\"name\":\"x\",\"status\":\"ok\",\"time_us\":1,\"counters\":[1]}\n",
                             "r.jsonl", Statistic::median),
               Error);
}

TEST(ResultsFormat2, TheDefaultsTimeIsDefaultUsElseAnOlderRunsName) {
  CaseResult r;
  EXPECT_LT(default_time_us(r), 0.0);  // none
  r.counters = {{"standard_algo_us", 30.0}};
  EXPECT_DOUBLE_EQ(default_time_us(r), 30.0);  // an older RNN
  r.counters = {{"heuristic_us", 195.554}};
  EXPECT_DOUBLE_EQ(default_time_us(r), 195.554);  // an older GEMM or conv
  r.counters = {{"heuristic_us", 195.554}, {"default_us", 190.0}};
  EXPECT_DOUBLE_EQ(default_time_us(r), 190.0);  // format 2's name first
  EXPECT_DOUBLE_EQ(default_time_us(load_results(kV2, Statistic::median).cases.at(kBig)), 230.0);
}

TEST(ResultsFormat2, ScoresUseAnUnstableTimeAndNameTheCase) {
  const core::ModelTable m = core::parse_model_table(R"(model: shaky
area: nlp
inputs: {B: 8}
ops:
  - {family: gemm, calls: 2, m: 1024, n: 1024, k: 1024}
  - {family: gemm, calls: 1, m: 4096, n: 4096, k: 4096}
)", "shaky.yaml");
  const ResultSet r = load_results(kV2, Statistic::median);
  const ModelScore s = score_model(m, {}, "fp16", r);
  EXPECT_DOUBLE_EQ(s.score_ms, (2 * 112.0 + 200.0) * 1e-3);
  EXPECT_TRUE(s.missing.empty());
  EXPECT_EQ(s.unstable, std::vector<std::string>{kShaky});
  ScoreReport report;
  report.models = {s};
  EXPECT_EQ(score_report_json(report, r, "r", "fp16")["models"][0]["unstable"][0], kShaky);
  // Without unstable cases the JSON has no such key (a committed bundle's scores.json stays what it was).
  report.models = {score_model(core::parse_model_table(kModel, "tiny.yaml"), {}, "fp16",
                               parse_results(jsonl(), "r.jsonl", Statistic::median))};
  EXPECT_FALSE(score_report_json(report, r, "r", "fp16")["models"][0].contains("unstable"));
}

TEST(ResultsFormat2, CompareGivesNoVerdictOnAnUnstableCase) {
  ResultSet before, after;
  CaseResult steady, slower_unstable, slower;
  steady.time_us = 100, steady.reps_us = {100, 100, 100};
  slower.time_us = 150, slower.reps_us = {150, 150, 150};
  slower_unstable = slower;
  slower_unstable.status = "unstable";
  slower_unstable.reason = "re-time 40 us vs median 150 us";
  before.cases = {{"a", steady}, {"b", steady}, {"c", slower_unstable}};
  after.cases = {{"a", slower}, {"b", slower_unstable}, {"c", steady}};
  const Comparison c = compare(before, after, 0.05);
  ASSERT_EQ(c.cases.size(), 3u);
  const auto named = [&](const std::string& name) -> const CaseComparison& {
    return *std::find_if(c.cases.begin(), c.cases.end(), [&](const CaseComparison& k) { return k.name == name; });
  };
  EXPECT_EQ(c.cases[0].name, "a");  // report order: the slower case first
  EXPECT_EQ(named("a").verdict, Verdict::slower);  // 1.5x, beyond threshold and noise
  EXPECT_TRUE(named("a").regression);
  EXPECT_EQ(named("b").verdict, Verdict::unclear);  // as slow, but unstable after: no verdict
  EXPECT_FALSE(named("b").regression);
  EXPECT_EQ(named("b").unstable, "after");
  EXPECT_EQ(named("c").verdict, Verdict::unclear);
  EXPECT_EQ(named("c").unstable, "before");
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.unstable, 2);
  EXPECT_NEAR(c.geomean_ratio, std::cbrt(1.5 * 1.5 / 1.5), 1e-12);  // their ratios still count
  EXPECT_TRUE(c.only_before.empty());
}

TEST(SpreadsheetEnergyColumns, EnergyColumnsOnlyWhereTheRunMeasuredEnergy) {
  const std::vector<Sheet> sheets = deepbench_sheets(load_results(kV2, Statistic::median));
  const Sheet& gemm = sheet_named(sheets, "fp16_gemm");
  EXPECT_EQ(gemm.header, (std::vector<std::string>{"application", "m", "n", "k", "ta", "tb", "batch", "fwd time (us)",
                                                   "fwd time (ms)", "fwd TFLOPS", "fwd energy (mJ/op)", "fwd TFLOPS/W",
                                                   "notes"}));
  ASSERT_EQ(gemm.rows.size(), 3u);  // m=1 (failed), m=1024, m=4096
  EXPECT_EQ(cell(gemm, 0, "fwd time (us)"), "failed");
  EXPECT_EQ(cell(gemm, 0, "fwd energy (mJ/op)"), "");
  // 2 x 4096^3 FLOPs in 200 us: 687.195 TFLOPS (six digits); 0.12 J: 120 mJ; TFLOPS/W as the run gave it.
  EXPECT_EQ(cell(gemm, 2, "fwd time (us)"), "200");
  EXPECT_EQ(cell(gemm, 2, "fwd TFLOPS"), "687.195");
  EXPECT_EQ(cell(gemm, 2, "fwd energy (mJ/op)"), "120");
  EXPECT_EQ(cell(gemm, 2, "fwd TFLOPS/W"), "1.1453");
  EXPECT_EQ(cell(gemm, 2, "notes"), "");
  // The unstable case: its time, marked; no tflops_per_w counter: 2 x 1024^3 FLOPs / 0.05 J = 0.0429497 TFLOPS/W.
  EXPECT_EQ(cell(gemm, 1, "fwd time (us)"), "112");
  EXPECT_EQ(cell(gemm, 1, "fwd TFLOPS/W"), "0.0429497");
  EXPECT_EQ(cell(gemm, 1, "notes"), std::string("fwd unstable: ") + kShakyReason);
  EXPECT_EQ(gemm.unstable_cells, (std::vector<std::pair<std::size_t, std::size_t>>{{1, 7}}));
  // Memory bound (no FLOPs): GB/s per watt, 25690112 bytes / 6.52 mJ = 3.9402 GB/s/W; no unstable case, no notes.
  const Sheet& relu = sheet_named(sheets, "fp16_pointwise");
  EXPECT_EQ(cell(relu, 0, "fwd energy (mJ/op)"), "6.52");
  EXPECT_EQ(cell(relu, 0, "fwd GB/s/W"), "3.9402");
  EXPECT_EQ(cell(relu, 0, "fwd TFLOPS/W"), "(no column)");
  EXPECT_EQ(cell(relu, 0, "notes"), "(no column)");
  // A run without energy counters (format 1, or no NVML) has exactly the columns it always had.
  const std::vector<Sheet> old_sheets = deepbench_sheets(parse_results(jsonl(), "r.jsonl", Statistic::median));
  const Sheet& old = sheet_named(old_sheets, "fp16_gemm");
  EXPECT_EQ(old.header, (std::vector<std::string>{"application", "m", "n", "k", "ta", "tb", "batch", "fwd time (us)",
                                                  "fwd time (ms)", "fwd TFLOPS"}));
  EXPECT_TRUE(old.unstable_cells.empty());
}

namespace {

std::string median_line(const std::string& name, double time_us, const std::string& extra = "") {
  char t[64];
  std::snprintf(t, sizeof t, "%.17g", time_us);
  return "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + name + "\",\"status\":\"ok\",\"time_us\":" +
         t + extra + "}\n";
}

std::string gemm_name(int m) {
  return "gemm/fwd/fp16/m=" + std::to_string(m) + "/n=32/k=64/ta=N/tb=N/batch=1";
}

}  // namespace

// Issue 20: m = 1, 2, 10, 1000, 1024, 10000 in that order, not as text (1, 1000, 10000, 1024, 2).
TEST(SpreadsheetRowsAndColumns, RowsInNaturalOrderOfTheirFields) {
  std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n";
  for (int m : {1000, 2, 10000, 1, 1024, 10}) text += median_line(gemm_name(m), 10);
  for (const char* sparsity : {"0.95", "0.5", "0.9"})
    text += median_line(std::string("spmm/fwd/fp16/m=64/n=8/k=64/sparsity=") + sparsity + "/format=csr", 5);
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  const Sheet& gemm = sheet_named(sheets, "fp16_gemm");
  std::vector<std::string> m;
  for (std::size_t r = 0; r < gemm.rows.size(); ++r) m.push_back(cell(gemm, r, "m"));
  EXPECT_EQ(m, (std::vector<std::string>{"1", "2", "10", "1000", "1024", "10000"}));
  EXPECT_TRUE(gemm.rows[0][1].number);  // the field m, a number in the workbook
  EXPECT_FALSE(gemm.rows[0][4].number);  // ta, a choice
  // The CSV file in the same order.
  const std::string csv = csv_text(gemm);
  EXPECT_LT(csv.find("\n,2,"), csv.find("\n,10,"));
  EXPECT_LT(csv.find("\n,1024,"), csv.find("\n,10000,"));
  const Sheet& spmm = sheet_named(sheets, "fp16_spmm");
  std::vector<std::string> sparsity;
  for (std::size_t r = 0; r < spmm.rows.size(); ++r) sparsity.push_back(cell(spmm, r, "sparsity"));
  EXPECT_EQ(sparsity, (std::vector<std::string>{"0.5", "0.9", "0.95"}));
  EXPECT_DOUBLE_EQ(spmm.rows[2][4].value, 0.95);
}

// DeepBench's application column, from the shape rows' application (else model) the run recorded for a case.
TEST(SpreadsheetRowsAndColumns, ApplicationColumnFromTheRunsRecord) {
  const std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n" +
                           median_line(gemm_name(1), 10, ",\"applications\":[\"DeepSpeech\"],\"models\":[]") +
                           median_line(gemm_name(2), 10, ",\"applications\":[],\"models\":[\"ResNet-50\",\"VGG\"]") +
                           median_line(gemm_name(3), 10);
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  const Sheet& gemm = sheet_named(sheets, "fp16_gemm");
  ASSERT_EQ(gemm.header.at(0), "application");
  EXPECT_EQ(cell(gemm, 0, "application"), "DeepSpeech");
  EXPECT_EQ(cell(gemm, 1, "application"), "ResNet-50; VGG");
  EXPECT_EQ(cell(gemm, 2, "application"), "");
  EXPECT_EQ(csv_text(gemm).substr(0, 14), "application,m,");
}

// A memory-bound family (no FLOPs): GB/s and the share of the run's copy bandwidth, no empty TFLOPS column.
TEST(SpreadsheetRowsAndColumns, MemoryBoundFamiliesHaveGigabytesPerSecond) {
  const char* relu = "pointwise/fwd/fp16/op=relu/rows=1024/cols=1024/impl=opmark";
  const std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n" +
                           median_line(relu, 2.0, ",\"counters\":{\"copy_gb_per_s\":4000.0}") +
                           median_line(gemm_name(64), 10);
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  const Sheet& pw = sheet_named(sheets, "fp16_pointwise");
  EXPECT_EQ(pw.header, (std::vector<std::string>{"application", "op", "rows", "cols", "impl", "fwd time (us)",
                                                 "fwd time (ms)", "fwd GB/s", "fwd % of copy"}));
  // relu reads and writes 1024 x 1024 fp16 elements: 4194304 bytes in 2 us, 2097.15 GB/s, 52.4288% of 4000 GB/s.
  EXPECT_EQ(cell(pw, 0, "fwd GB/s"), "2097.15");
  EXPECT_DOUBLE_EQ(pw.rows[0][7].value, 4194304 / 2e-6 / 1e9);
  EXPECT_EQ(cell(pw, 0, "fwd % of copy"), "52.4288");
  EXPECT_EQ(pw.title, "Pointwise");
  // A family with FLOPs keeps TFLOPS, and has no GB/s.
  const Sheet& gemm = sheet_named(sheets, "fp16_gemm");
  EXPECT_EQ(cell(gemm, 0, "fwd GB/s"), "(no column)");
  EXPECT_EQ(cell(gemm, 0, "fwd TFLOPS"), "0.0262144");
  EXPECT_EQ(gemm.title, "GEMM");
}

// A field a family gained later (batchnorm's layout) has a column only where a row sets it, so the sheets of runs
// from before it keep their columns.
TEST(SpreadsheetRowsAndColumns, ALaterFieldHasAColumnOnlyWhereARowSetsIt) {
  const std::string nchw = "batchnorm/fwd/fp16/n=8/c=64/h=56/w=56/mode=inference/impl=opmark";
  const std::string context = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n";
  const auto old_sheets = deepbench_sheets(parse_results(context + median_line(nchw, 5), "r.jsonl", Statistic::median));
  const Sheet& old_run = sheet_named(old_sheets, "fp16_batchnorm");
  EXPECT_EQ(std::vector<std::string>(old_run.header.begin(), old_run.header.begin() + 8),
            (std::vector<std::string>{"application", "n", "c", "h", "w", "mode", "impl", "fwd time (us)"}));
  const auto sheets = deepbench_sheets(
      parse_results(context + median_line(nchw, 5) + median_line(nchw + "/layout=NHWC", 4), "r.jsonl",
                    Statistic::median));
  const Sheet& bn = sheet_named(sheets, "fp16_batchnorm");
  EXPECT_EQ(bn.header.at(7), "layout");
  EXPECT_EQ(cell(bn, 0, "layout"), "NCHW");
  EXPECT_EQ(cell(bn, 1, "layout"), "NHWC");
  EXPECT_EQ(cell(bn, 1, "fwd time (us)"), "4");
  EXPECT_EQ(bn.rows[1].size(), bn.header.size());
}

// The Specs sheet keeps versions and ids as the run wrote them (text); only measurements are numbers.
TEST(SpreadsheetRowsAndColumns, SpecsKeepVersionsAsText) {
  const std::string text =
      "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\",\"cuda_driver_version\":\"13.0\","
      "\"compute_capability\":\"9.0\",\"git\":\"955ebe75b463\",\"rules_version\":\"1\",\"sm_clock_mhz\":\"1980\","
      "\"peak_gb_per_s\":\"3350.000000\",\"peak_tflops_fp16\":\"989.400000\",\"l2_bytes\":\"52428800\"}}\n" +
      median_line(gemm_name(1), 10);
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  const Sheet& specs = sheet_named(sheets, "specs");
  std::map<std::string, SheetCell> value;
  for (const auto& row : specs.rows) value[row.at(0).text] = row.at(1);
  for (const char* key : {"cuda_driver_version", "compute_capability", "git", "rules_version", "gpu"})
    EXPECT_FALSE(value.at(key).number) << key;
  EXPECT_EQ(value.at("cuda_driver_version").text, "13.0");
  EXPECT_EQ(value.at("compute_capability").text, "9.0");
  for (const char* key : {"sm_clock_mhz", "peak_gb_per_s", "peak_tflops_fp16", "l2_bytes"})
    EXPECT_TRUE(value.at(key).number) << key;
  EXPECT_DOUBLE_EQ(value.at("peak_tflops_fp16").value, 989.4);
  EXPECT_EQ(value.at("peak_gb_per_s").text, "3350.000000");  // CSV: the run's text
  EXPECT_NE(csv_text(specs).find("cuda_driver_version,13.0\n"), std::string::npos);
}

TEST(SpreadsheetRowsAndColumns, NumbersInCsvKeepSixSignificantDigits) {
  EXPECT_EQ(number_text(2.0), "2");
  EXPECT_EQ(number_text(16777217.0), "16777217");
  EXPECT_EQ(number_text(7.019641773217295), "7.01964");
  EXPECT_EQ(number_text(11722.592), "11722.6");
  EXPECT_EQ(number_text(0.000123456789), "0.000123457");
  EXPECT_EQ(number_text(1234567.5), "1234568");
  EXPECT_EQ(number_text(9.9999999), "10");
  EXPECT_EQ(number_text(-0.5), "-0.5");
}

// Several systems side by side (issue 38, and 57: DeepBench's sheets put vendors beside each other): a system's own
// layout (the shape's fields, conv's directions in one row, natural order), then per system each direction's time
// and throughput, then per direction each later system's ratio to the first.
TEST(Spreadsheet, SeveralSystemsSideBySide) {
  auto run = [](const std::string& gpu, double gemm_us, bool with_relu) {
    std::string log = "{\"type\":\"context\",\"context\":{\"gpu\":\"" + gpu + "\"}}\n";
    for (const char* m : {"1000", "64", "8"})
      log += "{\"type\":\"run\",\"name\":\"gemm/fwd/fp16/m=" + std::string(m) +
             "/n=8/k=32/ta=N/tb=N/batch=1\",\"status\":\"ok\",\"repetition\":0,\"time_us\":" +
             std::to_string(gemm_us) + "}\n";
    if (with_relu)
      log += "{\"type\":\"run\",\"name\":\"pointwise/fwd/fp16/op=relu/rows=8/cols=64/impl=opmark\",\"status\":"
             "\"ok\",\"repetition\":0,\"time_us\":3}\n";
    return log;
  };
  const ResultSet h100 = parse_results(run("NVIDIA H100", 10, true), "h100.jsonl", Statistic::median);
  const ResultSet h200 = parse_results(run("NVIDIA H200", 8, false), "h200.jsonl", Statistic::median);
  const std::vector<Sheet> sheets = systems_sheets({{"NVIDIA H100", &h100}, {"NVIDIA H200", &h200}});
  ASSERT_EQ(sheets.size(), 3u);  // fp16 gemm, fp16 pointwise, systems
  EXPECT_EQ(sheets[0].name, "fp16_gemm");
  EXPECT_EQ(sheets[0].header,
            (std::vector<std::string>{"application", "m", "n", "k", "ta", "tb", "batch", "NVIDIA H100: fwd time (us)",
                                      "NVIDIA H100: fwd TFLOPS", "NVIDIA H100: status", "NVIDIA H200: fwd time (us)",
                                      "NVIDIA H200: fwd TFLOPS", "NVIDIA H200: status",
                                      "fwd: NVIDIA H200 / NVIDIA H100"}));
  ASSERT_EQ(sheets[0].rows.size(), 3u);
  EXPECT_EQ(row_texts(sheets[0].rows[0]),  // m = 8, 64, 1000: numbers in order, not text
            (std::vector<std::string>{"", "8", "8", "32", "N", "N", "1", "10", "0.0004096", "ok", "8", "0.000512", "ok",
                                      "0.8"}));
  EXPECT_EQ(row_texts(sheets[0].rows[2])[1], "1000");
  const std::vector<std::string> relu = row_texts(sheets[1].rows.at(0));
  EXPECT_EQ(relu[relu.size() - 4], "not run");  // the H200 did not run the ReLU: its time, its status, no ratio
  EXPECT_EQ(relu[relu.size() - 2], "not run");
  EXPECT_EQ(relu.back(), "");
  EXPECT_EQ(sheets[2].name, "systems");
  EXPECT_EQ(row_texts(sheets[2].rows.at(1))[1], "NVIDIA H200");
}

// areas.yaml names each model once, and only models with a table beside it; an error names the file and line, an
// alias to a map included.
TEST(AggregateAreas, AnUnknownOrRepeatedModelOrANonNameIsAnErrorWithItsLine) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("opmark_areas_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  std::ofstream(dir / "models" / "a.yaml") << "model: a\nops:\n  - {family: other, calls: 1}\n";
  std::ofstream(dir / "models" / "b.yaml") << "model: b\nops:\n  - {family: other, calls: 1}\n";
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(dir / "areas.yaml") << text;
    try {
      load_areas((dir / "areas.yaml").string());
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("areas:\n  x: {models: [a, b]}\n"), "no error");
  EXPECT_NE(error_of("areas:\n  x: {models: [a, b, a]}\n").find("areas.yaml:2:"), std::string::npos);
  EXPECT_NE(error_of("areas:\n  x: {models: [a, b, a]}\n").find("names model 'a' twice"), std::string::npos);
  EXPECT_NE(error_of("areas:\n  x: {models: [a, c]}\n").find("names model 'c', which has no table"),
            std::string::npos);
  const std::string alias = error_of("base: &m {k: v}\nareas:\n  x: {models: [a, *m]}\n");
  EXPECT_NE(alias.find("areas.yaml:1:"), std::string::npos) << alias;  // where the aliased map is written
  EXPECT_NE(alias.find("expected a name"), std::string::npos) << alias;
  fs::remove_all(dir);
}
