// Predicted against measured speedup between two systems: on hand-made runs whose numbers are worked out here
// (score ratio, real ratio, error; an area over the models with real times on both GPUs; a GPU without an entry;
// errors beyond the bars; partial scores), and on the two committed bundles, whose real ratios are the model tables'
// H200 over H100 entries; and the same reports as the results page embeds them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "aggregate/page_speedup.h"
#include "aggregate/score_command.h"
#include "aggregate/score_report.h"
#include "aggregate/side_by_side.h"
#include "aggregate/speedup.h"
#include "core/model_table.h"

using namespace opmark;
using namespace opmark::aggregate;

namespace {

const char* kGemm = "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1";

std::string results(double gemm_us, const std::string& gpu) {
  return "{\"type\":\"context\",\"context\":{\"gpu\":\"" + gpu + "\"}}\n{\"type\":\"run\",\"name\":\"" + kGemm +
         "\",\"status\":\"ok\",\"repetition\":0,\"time_us\":" + std::to_string(gemm_us) + "}\n";
}

// Two models of 10 GEMM calls each; `fast` has real times on both GPUs (B's graph time flagged: kernel on both),
// `old` on the first only.
const char* kFast = R"(model: fast
area: nlp
measured:
  - {device: GPU A, precision: fp16, graph_ms: 0.25, kernel_ms: 0.2}
  - {device: GPU B, precision: fp16, graph_ms: 0.3, kernel_ms: 0.16, graph_suspect: true}
ops:
  - {family: gemm, calls: 10, m: 64, n: 8, k: 32}
)";
const char* kOld = R"(model: old
area: nlp
measured: {device: GPU A, precision: fp16, graph_ms: 0.5, kernel_ms: 0.45}
ops:
  - {family: gemm, calls: 20, m: 64, n: 8, k: 32}
)";

struct Scored {
  ResultSet results;
  ScoreReport report;
};

Scored scored(double gemm_us, const std::string& gpu) {
  Scored s;
  s.results = parse_results(results(gemm_us, gpu), gpu + ".jsonl", Statistic::median);
  for (const char* t : {kFast, kOld})
    s.report.models.push_back(score_model(core::parse_model_table(t, "t.yaml"), {}, "fp16", s.results));
  const Area nlp{"nlp", "", {"fast", "old"}};
  s.report.areas.push_back(score_area(nlp, s.report.models));
  s.report.area_defs.push_back(nlp);
  return s;
}

}  // namespace

TEST(Speedup, ScoreRatioBesideRealRatioAndError) {
  const Scored a = scored(20, "GPU A"), b = scored(15, "GPU B");
  const SpeedupReport r = speedup_report({"a.jsonl", &a.results, &a.report}, {"b.jsonl", &b.results, &b.report});
  ASSERT_EQ(r.models.size(), 2u);
  const SpeedupRow& fast = r.models[0];
  EXPECT_NEAR(fast.score_a, 0.2, 1e-12);  // 10 x 20 us
  EXPECT_NEAR(fast.predicted(), 0.75, 1e-12);
  // A would take its graph time, B (flagged) its kernel time: both take the kernel time, 0.16 / 0.2.
  EXPECT_EQ(fast.real_kind, "kernel");
  ASSERT_TRUE(fast.real().has_value());
  EXPECT_NEAR(*fast.real(), 0.8, 1e-12);
  EXPECT_NEAR(*fast.error(), 0.75 / 0.8 - 1, 1e-12);
  // B has no entry for `old`: no real ratio, and why.
  const SpeedupRow& old = r.models[1];
  EXPECT_FALSE(old.real().has_value());
  EXPECT_FALSE(old.error().has_value());
  EXPECT_EQ(old.why_not, "B: the table has no measured time on GPU B (it has GPU A fp16)");
  // The area: scores over both models (0.3 ms against 0.225 ms), the real ratio and the error over `fast` alone.
  ASSERT_EQ(r.areas.size(), 1u);
  const SpeedupRow& nlp = r.areas[0];
  EXPECT_NEAR(nlp.predicted(), 0.75, 1e-12);
  EXPECT_EQ(nlp.models, 2u);
  EXPECT_EQ(nlp.models_with_real, 1u);
  EXPECT_NEAR(*nlp.real(), 0.8, 1e-12);
  EXPECT_NEAR(*nlp.error(), 0.75 / 0.8 - 1, 1e-12);

  const std::string text = speedup_text(r);
  EXPECT_NE(text.find("A: GPU A (a.jsonl)\nB: GPU B (b.jsonl)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("fast                          0.2000      0.1500     0.750      0.2000      0.1600  kernel"
                      "     0.800    -6.3%\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("old                           0.4000      0.3000     0.750           -           -       -"
                      "         -        -  B: the table has no measured time on GPU B"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("area nlp (1/2)                                       0.750      0.2000      0.1600  kernel"
                      "     0.800    -6.3%\n"),
            std::string::npos)
      << text;
}

// The bars: 5% per model, 3% per area. fast and the area are 6.25% off; within a wider bar they would not miss.
TEST(Speedup, ErrorsBeyondTheBarsMiss) {
  const Scored a = scored(20, "GPU A"), b = scored(15, "GPU B");
  const SpeedupReport r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  EXPECT_TRUE(r.models[0].misses(kModelErrorBar));
  EXPECT_FALSE(r.models[0].misses(0.07));
  EXPECT_FALSE(r.models[1].misses(kModelErrorBar)) << "no real ratio, no miss";
  EXPECT_TRUE(r.areas[0].misses(kAreaErrorBar));
  const Scored close = scored(15.6, "GPU B");  // a score ratio of 0.78, 2.5% under the real 0.8
  const SpeedupReport near = speedup_report({"a", &a.results, &a.report}, {"b", &close.results, &close.report});
  EXPECT_NEAR(*near.models[0].error(), 0.78 / 0.8 - 1, 1e-9);
  EXPECT_FALSE(near.models[0].misses(kModelErrorBar));
  EXPECT_FALSE(near.areas[0].misses(kAreaErrorBar));
}

// A run that lacks the models' case: both models' scores on B are partial (each lacks the one GEMM, which the area
// counts once), B has no score to predict with, and the text says so.
TEST(Speedup, PartialScoresAreMarked) {
  const Scored a = scored(20, "GPU A");
  Scored b;
  b.results = parse_results("{\"type\":\"context\",\"context\":{\"gpu\":\"GPU B\"}}\n", "b.jsonl", Statistic::median);
  for (const char* t : {kFast, kOld})
    b.report.models.push_back(score_model(core::parse_model_table(t, "t.yaml"), {}, "fp16", b.results));
  const Area nlp{"nlp", "", {"fast", "old"}};
  b.report.areas.push_back(score_area(nlp, b.report.models));
  const SpeedupReport r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  const SpeedupRow& fast = r.models[0];
  EXPECT_TRUE(fast.partial());
  EXPECT_EQ(fast.missing_a, 0u);
  EXPECT_EQ(fast.missing_b, 1u);
  ASSERT_TRUE(fast.real().has_value()) << "the tables' times do not depend on the run";
  EXPECT_FALSE(fast.error().has_value()) << "B scored nothing: no error to take";
  EXPECT_FALSE(fast.misses(kModelErrorBar));
  EXPECT_EQ(r.areas[0].missing_b, 1u);
  EXPECT_TRUE(r.areas[0].partial());
  const std::string text = speedup_text(r);
  EXPECT_NE(text.find("    -  partial: B lacks 1 case(s)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("area nlp (1/2)"), std::string::npos) << text;
  // As the page embeds it: no predicted ratio where a side has no score, rather than 0x.
  const nlohmann::json page = speedup_json(r);
  EXPECT_TRUE(page["models"][0]["predicted"].is_null()) << page.dump();
  EXPECT_TRUE(page["models"][0]["error"].is_null());
  EXPECT_EQ(page["models"][0]["partial"], true);
  EXPECT_EQ(page["models"][0]["missing_b"], 1);
  EXPECT_EQ(page["areas"][0]["partial"], true);
}

// The report as the page embeds it: the same numbers, the bars' verdict computed here and not by the page's script.
TEST(Speedup, ThePageEmbedsTheReport) {
  const Scored a = scored(20, "GPU A"), b = scored(15, "GPU B");
  const SpeedupReport r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  const nlohmann::json j = speedup_json(r);
  EXPECT_EQ(j["label_a"], "a");
  EXPECT_EQ(j["gpu_b"], "GPU B");
  ASSERT_EQ(j["models"].size(), 2u);
  const nlohmann::json& fast = j["models"][0];
  EXPECT_EQ(fast["name"], "fast");
  EXPECT_DOUBLE_EQ(fast["predicted"].get<double>(), r.models[0].predicted());
  EXPECT_DOUBLE_EQ(fast["real"].get<double>(), *r.models[0].real());
  EXPECT_DOUBLE_EQ(fast["error"].get<double>(), *r.models[0].error());
  EXPECT_DOUBLE_EQ(fast["real_a"].get<double>(), 0.2);
  EXPECT_EQ(fast["real_kind"], "kernel");
  EXPECT_EQ(fast["miss"], true);
  EXPECT_EQ(fast["partial"], false);
  const nlohmann::json& old = j["models"][1];
  EXPECT_TRUE(old["real"].is_null());
  EXPECT_TRUE(old["error"].is_null());
  EXPECT_EQ(old["real_kind"], "");
  EXPECT_EQ(old["why_not"], "B: the table has no measured time on GPU B (it has GPU A fp16)");
  EXPECT_EQ(old["miss"], false);
  const nlohmann::json& area = j["areas"][0];
  EXPECT_EQ(area["models"], 2);
  EXPECT_EQ(area["models_with_real"], 1);
  EXPECT_EQ(area["miss"], true);  // 6.25% against the area's 3%
}

// Runs of two opmark commits: the report and the page say a ratio may hold opmark's own change; one commit: nothing.
TEST(Speedup, RunsOfTwoOpmarkCommitsAreNamed) {
  Scored a = scored(20, "GPU A"), b = scored(15, "GPU B");
  a.results.context["git"] = b.results.context["git"] = "b011fefceb3e";
  SpeedupReport r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  EXPECT_EQ(commits_note(r), "");
  EXPECT_FALSE(speedup_json(r).contains("commits_note"));
  b.results.context["git"] = "6ffd51ddb9b7";
  r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  const std::string note = "The two runs come from different opmark commits (A b011fefceb3e, B 6ffd51ddb9b7)";
  EXPECT_NE(speedup_text(r).find(note), std::string::npos) << speedup_text(r);
  EXPECT_EQ(speedup_json(r)["commits_note"].get<std::string>().rfind(note, 0), 0u);
}

// Every system against every other, null on the diagonal; a system whose rules do not load is named, not fatal.
TEST(Speedup, ThePageHasEveryPair) {
  namespace fs = std::filesystem;
  const fs::path shapes = fs::path(OPMARK_SOURCE_DIR) / "shapes";
  const Scored a = scored(20, "NVIDIA H100 80GB HBM3"), b = scored(15, "NVIDIA H200");
  const nlohmann::json j =
      page_speedups({{"h100", &a.results}, {"h200", &b.results}}, (shapes / "submission.yaml").string(), shapes.string());
  EXPECT_DOUBLE_EQ(j["bars"]["model"].get<double>(), kModelErrorBar);
  EXPECT_DOUBLE_EQ(j["bars"]["area"].get<double>(), kAreaErrorBar);
  ASSERT_EQ(j["pairs"].size(), 2u);
  EXPECT_TRUE(j["pairs"][0][0].is_null());
  EXPECT_TRUE(j["pairs"][1][1].is_null());
  EXPECT_EQ(j["pairs"][0][1]["label_a"], "h100");
  EXPECT_EQ(j["pairs"][1][0]["label_a"], "h200");
  EXPECT_FALSE(j["pairs"][0][1]["models"].empty()) << "the rules' models, scored (partially) on both";
  const nlohmann::json none = page_speedups({{"h100", &a.results}, {"h200", &b.results}},
                                            (shapes / "no_such_rules.yaml").string(), shapes.string());
  ASSERT_TRUE(none["pairs"][0][1].contains("error"));
  EXPECT_NE(none["pairs"][0][1]["error"].get<std::string>().find("h100 could not be scored: "), std::string::npos)
      << none.dump();
}

TEST(Speedup, NoRealRatioWhereNeitherGpuHasAnEntry) {
  const Scored a = scored(20, "GPU C"), b = scored(15, "GPU B");
  const SpeedupReport r = speedup_report({"a", &a.results, &a.report}, {"b", &b.results, &b.report});
  EXPECT_EQ(r.models[0].why_not, "A: the table has no measured time on GPU C (it has GPU A fp16, GPU B fp16)");
  EXPECT_FALSE(r.areas[0].real().has_value());
  EXPECT_EQ(r.areas[0].why_not, "no model of the area has real times on both GPUs");
}

// The committed H100 and H200 bundles with the seven models traced on both: every real ratio is the tables' H200
// entry over their H100 entry, and the error is the score ratio over it; the results page holds the same numbers.
TEST(Speedup, CommittedBundlesH200OverH100) {
  namespace fs = std::filesystem;
  const fs::path root(OPMARK_SOURCE_DIR);
  const std::vector<core::ModelTable> models = core::load_models(
      {"resnet50", "vgg16", "mobilenet_v2", "bert_base", "gpt2", "llama7b", "deepspeech2"}, {(root / "shapes").string()});
  const std::string areas = (root / "shapes" / "areas.yaml").string();
  const ResultSet h100 =
      load_results_or_bundle((root / "results" / "nvidia-h100-80gb-hbm3").string(), Statistic::median);
  const ResultSet h200 = load_results_or_bundle((root / "results" / "nvidia-h200").string(), Statistic::median);
  const ScoreReport a = score_report(h100, models, areas, {}, "fp16"), b = score_report(h200, models, areas, {}, "fp16");
  const SpeedupReport r = speedup_report({"h100", &h100, &a}, {"h200", &h200, &b});
  ASSERT_EQ(r.models.size(), 7u);
  for (const auto& m : r.models) {
    ASSERT_TRUE(m.real().has_value()) << m.name << ": " << m.why_not;
    EXPECT_NEAR(*m.error(), m.predicted() / *m.real() - 1, 1e-12) << m.name;
  }
  EXPECT_EQ(r.models[0].name, "resnet50");
  EXPECT_EQ(r.models[0].real_kind, "graph");
  EXPECT_NEAR(*r.models[0].real(), 3.6707 / 3.9300, 1e-12);  // the tables' graph_ms of each GPU
  EXPECT_EQ(r.models[3].name, "bert_base");  // flagged on both GPUs: the kernel times
  EXPECT_EQ(r.models[3].real_kind, "kernel");
  EXPECT_NEAR(*r.models[3].real(), 7.3270 / 7.8359, 1e-12);
  for (const auto& area : r.areas) {
    EXPECT_EQ(area.models_with_real, area.models) << area.name;
    EXPECT_NEAR(*area.error(), area.predicted() / *area.real() - 1, 1e-12) << area.name;
  }

  // The results page over the two (page_speedups, as `page` calls it) holds the same numbers, to the last bit: each
  // model's predicted and measured ratio and error, and each area's measured ratio and error (its predicted ratio
  // too where the page's area, over every model of the rules, has the same models). The page's script prints them
  // as `scores` does (page_script_test.js), and cli.aggregate_page_width compares the rendered table with `scores`.
  const nlohmann::json page = page_speedups({{"nvidia-h100-80gb-hbm3", &h100}, {"nvidia-h200", &h200}},
                                            (root / "shapes" / "submission.yaml").string(), (root / "shapes").string());
  const nlohmann::json& pair = page["pairs"][0][1];
  ASSERT_TRUE(pair.contains("models")) << pair.dump();
  const auto row_of = [](const nlohmann::json& rows, const std::string& name) {
    for (const auto& row : rows)
      if (row["name"] == name) return row;
    return nlohmann::json();
  };
  for (const auto& m : r.models) {
    const nlohmann::json row = row_of(pair["models"], m.name);
    ASSERT_FALSE(row.is_null()) << m.name << " is not on the page";
    EXPECT_EQ(row["predicted"].get<double>(), m.predicted()) << m.name;
    EXPECT_EQ(row["real"].get<double>(), *m.real()) << m.name;
    EXPECT_EQ(row["real_kind"], m.real_kind) << m.name;
    EXPECT_EQ(row["error"].get<double>(), *m.error()) << m.name;
    EXPECT_EQ(row["miss"], std::abs(*m.error()) > kModelErrorBar) << m.name;
    EXPECT_EQ(row["partial"], false) << m.name;
  }
  for (const auto& a : r.areas) {
    const nlohmann::json row = row_of(pair["areas"], a.name);
    ASSERT_FALSE(row.is_null()) << a.name << " is not on the page";
    EXPECT_EQ(row["models_with_real"], a.models_with_real) << a.name;
    EXPECT_EQ(row["real"].get<double>(), *a.real()) << a.name;
    EXPECT_EQ(row["error"].get<double>(), *a.error()) << a.name;
    EXPECT_EQ(row["miss"], std::abs(*a.error()) > kAreaErrorBar) << a.name;
    if (row["models"] == a.models) EXPECT_EQ(row["predicted"].get<double>(), a.predicted()) << a.name;
  }
  EXPECT_TRUE(row_of(pair["models"], "dgcnn")["real"].is_null()) << "the H200 has no measured entry of dgcnn";
}

// Several systems' scores in one table, the later ones with their ratio to the first; a model one system did not
// score shows "-".
TEST(SideBySide, ScoresOfSeveralSystemsInOneTable) {
  ResultSet a, b;
  a.context["gpu"] = "GPU A";
  b.context["gpu"] = "GPU B";
  ScoreReport ra, rb;
  ModelScore m;
  m.calls = m.covered_calls = 1;  // scored: a model no case of which was measured shows "-"
  m.name = "fast";
  m.area = "nlp";
  m.score_ms = 2.0;
  ra.models.push_back(m);
  m.score_ms = 1.5;
  rb.models.push_back(m);
  m.name = "only_a";
  m.score_ms = 4.0;
  ra.models.push_back(m);
  ra.areas.push_back({"nlp", {"fast", "only_a"}, 3.0, false, true});
  rb.areas.push_back({"nlp", {"fast"}, 1.5, false, true});
  const std::string text = side_by_side_text({{"a.jsonl", &a, &ra}, {"b.jsonl", &b, &rb}});
  EXPECT_NE(text.find("GPU A"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU B"), std::string::npos) << text;
  EXPECT_NE(text.find("2.0000"), std::string::npos) << text;
  EXPECT_NE(text.find("1.5000 (0.750x)"), std::string::npos) << text;
  EXPECT_NE(text.find("area nlp"), std::string::npos) << text;
  EXPECT_NE(text.find("1.5000 (0.500x)"), std::string::npos) << text;
  const std::size_t only_a = text.find("only_a");
  ASSERT_NE(only_a, std::string::npos);
  const std::string row = text.substr(only_a, text.find('\n', only_a) - only_a);
  EXPECT_EQ(row.back(), '-') << row;
  EXPECT_EQ(side_by_side_text({{"a.jsonl", &a, &ra}}), "");

  // With real times: each system's beside its score, held against that system's own entry only.
  ra.models[0].graph_ms = 2.5;  // fast on GPU A: 2.0 ms scored, 2.5 ms real
  ra.models[0].measured_device = "GPU A";
  rb.models[0].graph_ms = 2.5;  // GPU A's entry seen from GPU B's run: no real time of B
  rb.models[0].measured_device = "GPU A";
  const std::string with_real = side_by_side_text({{"a.jsonl", &a, &ra}, {"b.jsonl", &b, &rb}});
  EXPECT_NE(with_real.find("real ms score/real"), std::string::npos) << with_real;
  const std::size_t fast = with_real.find("\nfast");
  ASSERT_NE(fast, std::string::npos) << with_real;
  EXPECT_NE(with_real.substr(fast, with_real.find('\n', fast + 1) - fast)
                .find("2.0000    2.5000      0.800          1.5000 (0.750x)         -          -"),
            std::string::npos)
      << with_real;
}
