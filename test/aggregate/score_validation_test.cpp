// Scores checked against the real models (issue 17) on small hand-made tables and results whose numbers are
// worked out here: the table's graph_ms / eager_ms / kernel_ms, score over the real time on the same GPU only,
// the per-family breakdown beside the traced kernel time, hot- and cold-L2 runs around the real time.
#include <gtest/gtest.h>

#include <string>

#include "aggregate/headroom.h"
#include "aggregate/results.h"
#include "aggregate/score_report.h"
#include "aggregate/scores.h"
#include "core/error.h"
#include "core/model_table.h"

using namespace opmark;
using namespace opmark::aggregate;

namespace {

const char* kGemm = "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1";
const char* kRelu = "pointwise/fwd/fp16/op=relu/rows=8/cols=64/impl=opmark";

// The GEMM at `gemm` us, the ReLU at `relu` us, on `gpu`, timed with the L2 `l2` (as opmark-bench's context says).
std::string results(double gemm, double relu, const std::string& gpu = "NVIDIA H200", const std::string& l2 = "hot") {
  auto run = [](const std::string& name, double t) {
    return "{\"type\":\"run\",\"name\":\"" + name + "\",\"status\":\"ok\",\"repetition\":0,\"time_us\":" +
           std::to_string(t) + "}\n";
  };
  return "{\"type\":\"context\",\"context\":{\"gpu\":\"" + gpu +
         "\",\"timing\":\"cuda graph replays timed with events; batches of launches lasting about 2 ms; L2 " + l2 +
         "; median over repetitions\"}}\n" + run(kGemm, gemm) + run(kRelu, relu);
}

// Traced: the GEMM 10 us x 2, the ReLU 5 us x 3, an embedding 1 us x 5 (other); the real model 0.04 ms replayed.
const char* kTraced = R"(model: tiny
area: nlp
inputs: {B: 8}
measured: {device: "NVIDIA H200", precision: fp16, graph_ms: 0.04, eager_ms: 0.09, kernel_ms: 0.035}
ops:
  - {family: gemm, calls: 2, traced_us: 10, m: 64, n: B, k: 32}
  - {family: pointwise, calls: 3, traced_us: 5, op: relu, rows: B, cols: 64}
  - {family: other, calls: 5, traced_us: 1, source_op: aten::embedding}
)";

const char* kOld = R"(model: old
area: nlp
inputs: {B: 8}
measured: {device: "NVIDIA H200", precision: fp16, gpu_time_ms: 0.05}
ops:
  - {family: gemm, calls: 2, traced_us: 10, m: 64, n: B, k: 32}
)";

ModelScore score(const char* table, const ResultSet& r) {
  return score_model(core::parse_model_table(table, "tiny.yaml"), {}, "fp16", r);
}

}  // namespace

TEST(ScoreValidation, TableTimesAreRead) {
  const core::ModelTable m = core::parse_model_table(kTraced, "tiny.yaml");
  ASSERT_EQ(m.measured.size(), 1u);
  const core::ModelMeasurement& mm = m.measured[0];
  ASSERT_TRUE(mm.graph_ms && mm.kernel_ms && mm.eager_ms);
  EXPECT_DOUBLE_EQ(*mm.graph_ms, 0.04);
  EXPECT_DOUBLE_EQ(*mm.kernel_ms, 0.035);
  EXPECT_DOUBLE_EQ(mm.gpu_time_ms, 0.09);  // the eager pass, as older tables' gpu_time_ms
  const core::ModelTable old = core::parse_model_table(kOld, "old.yaml");
  ASSERT_EQ(old.measured.size(), 1u);
  EXPECT_DOUBLE_EQ(old.measured[0].gpu_time_ms, 0.05);
  EXPECT_FALSE(old.measured[0].graph_ms.has_value());
  try {
    core::parse_model_table("model: m\nmeasured: {graph_ms: 0}\nops:\n  - {family: other, calls: 1}\n", "m.yaml");
    FAIL() << "a zero graph_ms was accepted";
  } catch (const TableError& e) {
    EXPECT_EQ(std::string(e.what()), "m.yaml:2:22: field 'graph_ms': expected a positive number, got '0'");
  }
}

TEST(ScoreValidation, ScoreOverGraphTimeOnTheSameGpu) {
  const ResultSet r = parse_results(results(11, 4), "r.jsonl", Statistic::median);
  const ModelScore s = score(kTraced, r);
  EXPECT_NEAR(s.score_ms, 0.034, 1e-12);  // 2 x 11 + 3 x 4 us
  const ScoreCheck c = check_score(s, "NVIDIA H200");
  ASSERT_TRUE(c.real_ms.has_value());
  EXPECT_EQ(c.real_kind, "graph");
  EXPECT_NEAR(c.ratio(), 0.85, 1e-12);
  // Another GPU: no ratio, and why.
  const ScoreCheck other = check_score(s, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(other.real_ms.has_value());
  EXPECT_EQ(other.why_not, "traced on NVIDIA H200, run on NVIDIA H100 80GB HBM3");
  // No graph time (the capture failed where it was traced): the kernel time stands in.
  ModelScore no_graph = s;
  no_graph.graph_ms.reset();
  EXPECT_EQ(check_score(no_graph, "NVIDIA H200").real_kind, "kernel");
  EXPECT_NEAR(check_score(no_graph, "NVIDIA H200").ratio(), 0.034 / 0.035, 1e-12);
}

// A graph time the tracer flagged (graph_suspect: a replay slower than the eager pass, or well below the kernel
// time): the kernel time stands in, as where the capture failed, and the JSON says why.
TEST(ScoreValidation, SuspectGraphTimeFallsBackToKernelTime) {
  const std::string table = std::string(kTraced).replace(
      std::string(kTraced).find("kernel_ms: 0.035}"), 17, "kernel_ms: 0.035, graph_suspect: true}");
  const core::ModelTable m = core::parse_model_table(table, "tiny.yaml");
  ASSERT_TRUE(m.measured.size() == 1 && m.measured[0].graph_ms);
  EXPECT_TRUE(m.measured[0].graph_suspect);
  EXPECT_FALSE(core::parse_model_table(kTraced, "tiny.yaml").measured[0].graph_suspect);
  const ResultSet r = parse_results(results(11, 4), "r.jsonl", Statistic::median);
  const ModelScore s = score_model(m, {}, "fp16", r);
  const ScoreCheck c = check_score(s, "NVIDIA H200");
  EXPECT_EQ(c.real_kind, "kernel");
  EXPECT_NEAR(c.ratio(), 0.034 / 0.035, 1e-12);
  const ScoreReport report{{s}, {}, {}};
  const nlohmann::json j = score_report_json(report, r, "r.jsonl", "fp16");
  EXPECT_EQ(j["models"][0]["graph_suspect"], true);
  EXPECT_DOUBLE_EQ(j["models"][0]["graph_ms"].get<double>(), 0.04);  // still shown, not used
  EXPECT_EQ(j["models"][0]["real_kind"], "kernel");
  // Flagged, and no kernel time to fall back on: no ratio, and why.
  ModelScore no_kernel = s;
  no_kernel.kernel_ms.reset();
  EXPECT_EQ(check_score(no_kernel, "NVIDIA H200").why_not,
            "the table's graph_ms is suspect and it has no kernel_ms (retrace it on a GPU)");
  try {
    core::parse_model_table("model: m\nmeasured: {graph_suspect: yes}\nops:\n  - {family: other, calls: 1}\n",
                            "m.yaml");
    FAIL() << "graph_suspect: yes was accepted";
  } catch (const TableError& e) {
    EXPECT_EQ(std::string(e.what()), "m.yaml:2:27: field 'graph_suspect': expected true or false, got 'yes'");
  }
}

TEST(ScoreValidation, FamiliesBesideTracedKernelTime) {
  const ResultSet r = parse_results(results(11, 4), "r.jsonl", Statistic::median);
  const ModelScore s = score(kTraced, r);
  ASSERT_EQ(s.families.size(), 3u);
  EXPECT_NEAR(s.families.at("gemm").score_ms, 0.022, 1e-12);
  EXPECT_NEAR(s.families.at("gemm").traced_scored_ms, 0.020, 1e-12);
  EXPECT_NEAR(s.families.at("pointwise").score_ms, 0.012, 1e-12);
  EXPECT_NEAR(s.families.at("pointwise").traced_ms, 0.015, 1e-12);
  EXPECT_NEAR(s.families.at("other").traced_ms, 0.005, 1e-12);
  EXPECT_EQ(s.families.at("other").scored_calls, 0);
  const ScoreReport report{{s}, {}, {}};
  const std::string text = score_validation_text({{"r.jsonl", &r, &report}});
  EXPECT_NE(text.find("tiny                          0.0340      0.0400   graph       0.850"), std::string::npos)
      << text;
  // The breakdown (--detail) names its system.
  const std::string families = score_breakdown_text({{"r.jsonl", &r, &report}});
  EXPECT_NE(families.find("tiny on NVIDIA H200 by family: opmark's time beside the traced kernel time"),
            std::string::npos)
      << families;
  EXPECT_NE(families.find("  gemm                2      0.0220      0.0200     1.100         0.0000"),
            std::string::npos)
      << families;
  EXPECT_NE(families.find("  other               5      0.0000      0.0000         -         0.0050"),
            std::string::npos)
      << families;
  EXPECT_NE(families.find("  all                        0.0340      0.0350     0.971         0.0050"),
            std::string::npos)
      << families;
  // The JSON form: the new keys for a traced table only.
  const nlohmann::json j = score_report_json(report, r, "r.jsonl", "fp16");
  EXPECT_NEAR(j["models"][0]["score_over_real"].get<double>(), 0.85, 1e-12);
  EXPECT_EQ(j["models"][0]["real_kind"], "graph");
  EXPECT_FALSE(j["models"][0].contains("graph_suspect"));
  EXPECT_NEAR(j["models"][0]["families"]["pointwise"]["traced_ms"].get<double>(), 0.015, 1e-12);
}

// Headroom: a family more than 10% from the framework's kernels is a finding with its cause, read from the
// kernels the table and the run name, the tracer's fused calls and the table's memory format.
TEST(ScoreValidation, HeadroomFindingsNameTheirCause) {
  auto line = [](const std::string& name, double t, const std::string& kernel) {
    return "{\"type\":\"aggregate\",\"aggregate\":\"median\",\"name\":\"" + name +
           "\",\"status\":\"ok\",\"time_us\":" + std::to_string(t) + ",\"kernels\":[\"" + kernel + "\"]}\n";
  };
  const std::string log = "{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n" +
                          line(kGemm, 12, "nvjet_sm90_hsh") + line(kRelu, 4, "opmark::pointwise");
  const ResultSet r = parse_results(log, "r.jsonl", Statistic::median);
  const char* table = R"yaml(model: tiny
area: nlp
inputs: {B: 8}
measured: {device: "NVIDIA H200", precision: fp16, graph_ms: 0.04}
ops:
  - {family: gemm, calls: 2, traced_us: 10, kernels: ["sm90_xmma_gemm", "splitKreduce"], m: 64, n: B, k: 32}
  - {family: pointwise, calls: 3, traced_us: 5, source_op: "relu (abs+max+mul)", op: relu, rows: B, cols: 64}
)yaml";
  const ModelScore s = score(table, r);
  const std::vector<HeadroomFinding> found = headroom_findings(s);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].family, "gemm");  // 4 us apart, the ReLUs 3
  EXPECT_EQ(found[1].family, "pointwise");
  EXPECT_EQ(found[0].cause, "different kernel");
  EXPECT_EQ(found[0].detail, "framework: sm90_xmma_gemm (0.020 ms); opmark: nvjet_sm90_hsh (0.024 ms)");
  EXPECT_NEAR(found[0].ratio(), 1.2, 1e-9);
  EXPECT_EQ(found[1].cause, "fusion");
  EXPECT_EQ(found[1].detail, "3 framework calls (relu (abs+max+mul), 0.015 ms traced) are one opmark case");
  EXPECT_TRUE(headroom_findings(s, 0.5).empty());  // within a looser threshold: none

  ModelScore nhwc = s;  // the same times in a channels_last table whose batch norm rows have no layout: NCHW cases
  nhwc.memory_format = "channels_last";
  nhwc.families = {{"batchnorm", FamilyTime{}}};
  nhwc.families["batchnorm"].score_ms = 0.5;
  nhwc.families["batchnorm"].traced_scored_ms = 0.8;
  nhwc.families["batchnorm"].traced_kernels_ms = {{"bn_fw_inf_nhwc", 0.8}};
  nhwc.families["batchnorm"].scored_calls = nhwc.families["batchnorm"].nchw_scored_calls = 3;
  const std::vector<HeadroomFinding> layout = headroom_findings(nhwc);
  ASSERT_EQ(layout.size(), 1u);
  EXPECT_EQ(layout[0].cause, "layout");
  EXPECT_NE(headroom_text(nhwc, layout).find("batchnorm  opmark    0.5000 ms  framework    0.8000 ms    0.62x  layout"),
            std::string::npos)
      << headroom_text(nhwc, layout);
  // Rows with layout: NHWC run NHWC cases: the difference is no longer the layout.
  nhwc.families["batchnorm"].nchw_scored_calls = 0;
  const std::vector<HeadroomFinding> same_layout = headroom_findings(nhwc);
  ASSERT_EQ(same_layout.size(), 1u);
  EXPECT_NE(same_layout[0].cause, "layout");
}

// A channels_last table's batch norm rows: those with layout: NHWC score the NHWC case (its name spells the layout),
// those without the NCHW one, which the headroom's layout cause counts.
TEST(ScoreValidation, NchwCallsOfAChannelsLastTableAreCounted) {
  const char* table = R"(model: cl
area: cv_2d
memory_format: channels_last
ops:
  - {family: batchnorm, calls: 2, traced_us: 10, n: 8, c: 64, h: 56, w: 56, mode: inference, layout: NHWC}
  - {family: batchnorm, calls: 3, traced_us: 10, n: 8, c: 64, h: 28, w: 28, mode: inference}
)";
  const std::string nhwc = "batchnorm/fwd/fp16/n=8/c=64/h=56/w=56/mode=inference/impl=opmark/layout=NHWC";
  const std::string nchw = "batchnorm/fwd/fp16/n=8/c=64/h=28/w=28/mode=inference/impl=opmark";
  auto run = [](const std::string& name, double t) {
    return "{\"type\":\"run\",\"name\":\"" + name + "\",\"status\":\"ok\",\"repetition\":0,\"time_us\":" +
           std::to_string(t) + "}\n";
  };
  const ResultSet r = parse_results("{\"type\":\"context\",\"context\":{\"gpu\":\"NVIDIA H200\"}}\n" + run(nhwc, 7) +
                                        run(nchw, 5),
                                    "r.jsonl", Statistic::median);
  const ModelScore s = score(table, r);
  EXPECT_TRUE(s.missing.empty());
  EXPECT_NEAR(s.score_ms, (2 * 7 + 3 * 5) * 1e-3, 1e-12);
  EXPECT_EQ(s.families.at("batchnorm").scored_calls, 5);
  EXPECT_EQ(s.families.at("batchnorm").nchw_scored_calls, 3);
}

// A variant of the framework's configuration (framework_config) says so in its scores' JSON and over its headroom:
// the framework's side of the findings ran in that configuration. Default tables keep their JSON and text.
TEST(ScoreValidation, FrameworkConfigIsShown) {
  const ResultSet r = parse_results(results(11, 4), "r.jsonl", Statistic::median);
  const std::string fused =
      std::string(kTraced).replace(0, 12, "model: tiny_fused_rmsnorm\nframework_config: fused_rmsnorm\n");
  const ModelScore s = score_model(core::parse_model_table(fused, "tiny.yaml"), {}, "fp16", r);
  EXPECT_EQ(s.framework_config, "fused_rmsnorm");
  const ModelScore plain = score(kTraced, r);
  EXPECT_TRUE(plain.framework_config.empty());
  const ScoreReport report{{s, plain}, {}, {}};
  const nlohmann::json j = score_report_json(report, r, "r.jsonl", "fp16");
  EXPECT_EQ(j["models"][0]["framework_config"], "fused_rmsnorm");
  EXPECT_FALSE(j["models"][1].contains("framework_config"));
  const std::vector<HeadroomFinding> found = {{"reduce", 0.5, 0.8, "different kernel", "framework: a; opmark: b"}};
  EXPECT_EQ(headroom_text(s, found).rfind("tiny_fused_rmsnorm (framework_config: fused_rmsnorm): families more than "
                                          "10% from the framework's kernels (headroom)\n", 0),
            0u)
      << headroom_text(s, found);
  EXPECT_EQ(headroom_text(plain, found).rfind("tiny: families more than 10%", 0), 0u) << headroom_text(plain, found);
}

TEST(ScoreValidation, OlderTablesAreUnchanged) {
  const ResultSet r = parse_results(results(11, 4), "r.jsonl", Statistic::median);
  const ScoreReport report{{score(kOld, r)}, {}, {}};
  const nlohmann::json j = score_report_json(report, r, "r.jsonl", "fp16");
  EXPECT_FALSE(j["models"][0].contains("families"));
  EXPECT_FALSE(j["models"][0].contains("score_over_real"));
  EXPECT_NEAR(j["models"][0]["score_over_measured"].get<double>(), 0.022 / 0.05, 1e-12);
  EXPECT_EQ(score_validation_text({{"r.jsonl", &r, &report}}), "");
}

TEST(ScoreValidation, HotAndColdAroundTheRealTime) {
  const ResultSet hot = parse_results(results(11, 4, "NVIDIA H200", "hot"), "hot.jsonl", Statistic::median);
  const ResultSet cold = parse_results(results(14, 6, "NVIDIA H200", "cold"), "cold.jsonl", Statistic::median);
  EXPECT_EQ(l2_mode(hot.context), opmark::core::L2Mode::hot);
  EXPECT_EQ(l2_mode(cold.context), opmark::core::L2Mode::cold);
  const ScoreReport hot_report{{score(kTraced, hot)}, {}, {}}, cold_report{{score(kTraced, cold)}, {}, {}};
  // hot 0.034 ms, cold 2 x 14 + 3 x 6 = 0.046 ms, real 0.040 ms: between
  const std::string text =
      score_validation_text({{"hot.jsonl", &hot, &hot_report}, {"cold.jsonl", &cold, &cold_report}});
  EXPECT_NE(text.find("hot L2: hot.jsonl; cold L2: cold.jsonl"), std::string::npos) << text;
  EXPECT_NE(text.find("tiny                          0.0340      0.0460      0.0400   graph     0.850     1.150  "
                      "between"),
            std::string::npos)
      << text;
  // the families with the cold run's times beside: the GEMM 2 x 14 us, the ReLU 3 x 6 us
  const std::string families =
      score_breakdown_text({{"hot.jsonl", &hot, &hot_report}, {"cold.jsonl", &cold, &cold_report}});
  EXPECT_NE(families.find("  gemm                2      0.0220      0.0200     1.100         0.0000      0.0280       "
                          "1.400"),
            std::string::npos)
      << families;
  EXPECT_EQ(families.find("by family", families.find("by family") + 1), std::string::npos) << families;
  EXPECT_EQ(hot_cold_verdict(0.034, 0.046, 0.030), "below hot");
  EXPECT_EQ(hot_cold_verdict(0.034, 0.046, 0.050), "above cold");
  EXPECT_EQ(hot_cold_verdict(0.034, 0.046, 0.034), "between");
  // Two runs of different GPUs are not paired: each is shown on its own.
  const ResultSet cold_h100 =
      parse_results(results(14, 6, "NVIDIA H100 80GB HBM3", "cold"), "c.jsonl", Statistic::median);
  const std::string apart =
      score_validation_text({{"hot.jsonl", &hot, &hot_report}, {"c.jsonl", &cold_h100, &cold_report}});
  EXPECT_EQ(apart.find("hot L2:"), std::string::npos);
  EXPECT_NE(apart.find("no ratio: traced on NVIDIA H200, run on NVIDIA H100 80GB HBM3"), std::string::npos) << apart;
  // Each set's breakdown is held against the kernel times of its own GPU: the H100's has none.
  const std::string apart_families =
      score_breakdown_text({{"hot.jsonl", &hot, &hot_report}, {"c.jsonl", &cold_h100, &cold_report}});
  EXPECT_NE(apart_families.find("tiny on NVIDIA H200 by family: opmark's time beside"), std::string::npos)
      << apart_families;
  EXPECT_NE(apart_families.find("tiny on NVIDIA H100 80GB HBM3 by family: opmark's time; no ratio: the table's "
                                "kernel times were traced on NVIDIA H200\n"),
            std::string::npos)
      << apart_families;
  // Without per-set tables (several systems: the side-by-side holds them), only a hot/cold pair is shown.
  EXPECT_EQ(score_validation_text({{"hot.jsonl", &hot, &hot_report}, {"c.jsonl", &cold_h100, &cold_report}}, false),
            "");
  EXPECT_NE(score_validation_text({{"hot.jsonl", &hot, &hot_report}, {"cold.jsonl", &cold, &cold_report}}, false)
                .find("hot L2: hot.jsonl"),
            std::string::npos);
}

// A table with entries of two GPUs: each run is checked against its own GPU's entry, and a GPU without one gets no
// measured time (another GPU's would read as this one's).
TEST(ScoreValidation, EachRunUsesTheEntryOfItsOwnGpu) {
  const char* two = R"(model: tiny
area: nlp
inputs: {B: 8}
measured:
  - {device: "NVIDIA H100 80GB HBM3", precision: fp16, graph_ms: 0.05, eager_ms: 0.12, kernel_ms: 0.045}
  - {device: "NVIDIA H200", precision: fp16, graph_ms: 0.04, eager_ms: 0.09, kernel_ms: 0.035, date: "2026-11-26"}
ops:
  - {family: gemm, calls: 2, traced_us: 10, m: 64, n: B, k: 32}
  - {family: pointwise, calls: 3, traced_us: 5, op: relu, rows: B, cols: 64}
)";
  const ResultSet h200 = parse_results(results(11, 4), "h200.jsonl", Statistic::median);
  const ModelScore on_h200 = score(two, h200);
  ASSERT_TRUE(on_h200.measured_ms.has_value());
  EXPECT_DOUBLE_EQ(*on_h200.measured_ms, 0.09);
  EXPECT_EQ(on_h200.measured_device, "NVIDIA H200");
  EXPECT_NEAR(check_score(on_h200, "NVIDIA H200").ratio(), 0.034 / 0.04, 1e-12);

  const ResultSet h100 = parse_results(results(11, 4, "NVIDIA H100 80GB HBM3"), "h100.jsonl", Statistic::median);
  const ModelScore on_h100 = score(two, h100);
  ASSERT_TRUE(on_h100.graph_ms.has_value());
  EXPECT_DOUBLE_EQ(*on_h100.graph_ms, 0.05);
  EXPECT_DOUBLE_EQ(*on_h100.measured_ms, 0.12);
}

TEST(ScoreValidation, AGpuWithoutAnEntryShowsNoMeasuredTime) {
  const ResultSet h100 = parse_results(results(11, 4, "NVIDIA H100 80GB HBM3"), "h100.jsonl", Statistic::median);
  const ModelScore s = score(kTraced, h100);  // kTraced has an H200 entry only
  EXPECT_FALSE(s.measured_ms.has_value());
  EXPECT_FALSE(s.graph_ms.has_value());
  EXPECT_TRUE(s.measured_device.empty());
  const ScoreCheck c = check_score(s, "NVIDIA H100 80GB HBM3");
  EXPECT_FALSE(c.real_ms.has_value());
  EXPECT_EQ(c.why_not, "the table has no measured time on NVIDIA H100 80GB HBM3 (it has NVIDIA H200 fp16)");
  const ScoreReport report{{s}, {}, {}};
  const nlohmann::json j = score_report_json(report, h100, "h100.jsonl", "fp16");
  EXPECT_FALSE(j["models"][0].contains("measured_ms"));
  EXPECT_FALSE(j["models"][0].contains("graph_ms"));
  EXPECT_TRUE(j["models"][0]["score_over_real"].is_null());
  EXPECT_EQ(j["models"][0]["no_real_ratio"], c.why_not);
  // The same run in bf16: the H200 entry is fp16, so a bf16 score on the H200 has none either.
  const ResultSet h200 = parse_results(results(11, 4), "h200.jsonl", Statistic::median);
  EXPECT_FALSE(score_model(core::parse_model_table(kTraced, "tiny.yaml"), {}, "bf16", h200).measured_ms.has_value());
}
