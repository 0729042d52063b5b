// The aggregator on hand-written fixtures whose numbers are worked out here: statistics over repetitions,
// both result formats, OpBench scores with coverage, area scores, and compare's verdicts on planted regressions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "aggregate/compare.h"
#include "aggregate/plots.h"
#include "aggregate/results.h"
#include "aggregate/scores.h"
#include "aggregate/spreadsheet.h"
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
  const std::string text = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n"
                           "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + fwd +
                           "\",\"status\":\"ok\",\"time_us\":2.0}\n"
                           "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + data +
                           "\",\"status\":\"ok\",\"time_us\":4.0}\n";
  const auto sheets = deepbench_sheets(parse_results(text, "r.jsonl", Statistic::median));
  ASSERT_EQ(sheets.size(), 2u);  // fp16_conv and specs
  const Sheet& conv = sheets[0];
  EXPECT_EQ(conv.name, "fp16_conv");
  ASSERT_EQ(conv.rows.size(), 1u);
  const auto column = [&](const std::string& h) {
    return conv.rows[0][static_cast<std::size_t>(std::find(conv.header.begin(), conv.header.end(), h) -
                                                 conv.header.begin())];
  };
  // 2 N K P Q C R S = 2 x 2 x 8 x 16 x 16 x 8 x 3 x 3 = 589824 FLOPs; in 2 us: 0.29 TFLOPS, in 4 us 0.15.
  EXPECT_EQ(column("fwd time (us)"), "2.000");
  EXPECT_EQ(column("fwd TFLOPS"), "0.29");
  EXPECT_EQ(column("bwd_data TFLOPS"), "0.15");
  EXPECT_EQ(column("bwd_filter time (us)"), "not run");
  EXPECT_EQ(sheets[1].name, "specs");
  EXPECT_EQ(sheets[1].rows[0], (std::vector<std::string>{"gpu", "NVIDIA H200"}));
}

TEST(AggregatePlots, SvgWithOneMarkerPerCaseAndTheRoofs) {
  std::string text = jsonl();
  text.replace(text.find("{\"gpu\":\"NVIDIA H200\"}"), 21,
               "{\"gpu\":\"NVIDIA H200\",\"peak_tflops_fp16\":\"989.4\",\"peak_gb_per_s\":\"4800\"}");
  const ResultSet r = parse_results(text, "r.jsonl", Statistic::median);
  const std::string roof = roofline_svg(r, "fp16");
  EXPECT_EQ(roof.rfind("<svg", 0), 0u);
  EXPECT_NE(roof.find("<path d=\"M"), std::string::npos);  // the roof
  // The GEMM has FLOPs (a marker); the ReLU has none (memory bound: not on a roofline).
  std::size_t markers = 0;
  for (std::size_t at = roof.find("<circle"); at != std::string::npos; at = roof.find("<circle", at + 1)) ++markers;
  EXPECT_EQ(markers, 1u);
  const std::string chart = operator_chart_svg("area", {{"a", 10, 2}, {"b", 100, 0.5}});
  EXPECT_NE(chart.find("<title>b: 100 us x 0.5 calls</title>"), std::string::npos) << chart;
  const std::string bars = area_bars_svg({"H200"}, {{AreaScore{"nlp", {"a"}, 2.5}}});
  EXPECT_NE(bars.find("<title>H200: 2.5 ms</title>"), std::string::npos) << bars;
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
