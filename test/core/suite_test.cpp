// The submission rules: parsing with file:line errors, and the required cases (tables and models, each once).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "core/model_table.h"
#include "core/suite.h"
#include "core/table.h"

using namespace opmark;
using namespace opmark::core;

namespace {

const char* kRules = R"(submission:
  rules_version: 1
  repetitions: 3
  min_time_s: 0.01
  max_noise: 0.1
  max_median_noise: 0.02
  tables:
    - {family: gemm, sets: [train], precisions: [fp16]}
  models: {names: [tiny], precision: fp16}
)";

const char* kGemm = R"(family: gemm
sets:
  train:
    precisions: [fp32, fp16]
    rows:
      - {m: 64, n: 32, k: 16}
      - {m: 768, n: 1024, k: 768}
  other:
    precisions: [fp16]
    rows:
      - {m: 8, n: 8, k: 8}
)";

const char* kTiny = R"(model: tiny
area: nlp
task: testing
source: fixture
inputs: {B: 8, L: 128}
ops:
  - {family: gemm, calls: 2, source_op: aten::mm, m: 768, n: B, k: 768}
  - {family: gemm, calls: 1, source_op: aten::mm, m: 8, n: 8, k: 8}
  - {family: other, calls: 3, source_op: aten::embedding}
)";

std::string error_of(const std::string& yaml) {
  try {
    parse_suite(yaml, "rules.yaml");
  } catch (const TableError& e) {
    return e.what();
  }
  return "no error";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST(Suite, ParsesTheRules) {
  const Suite s = parse_suite(kRules, "rules.yaml");
  EXPECT_EQ(s.rules_version, 1);
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_DOUBLE_EQ(s.min_time_s, 0.01);
  EXPECT_DOUBLE_EQ(s.max_noise, 0.1);
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].selection.families, std::set<std::string>{"gemm"});
  EXPECT_EQ(s.model_names, std::vector<std::string>{"tiny"});
  EXPECT_EQ(s.model_precision, "fp16");
  // Version 1 has neither noise_target nor timing: the defaults (0.01, either timing).
  EXPECT_DOUBLE_EQ(s.noise_target, 0.01);
  EXPECT_FALSE(s.timing);
}

TEST(Suite, Version2KeysNoiseTargetAndTiming) {
  const Suite s = parse_suite(replace(replace(kRules, "rules_version: 1", "rules_version: 2"), "min_time_s: 0.01\n",
                                      "min_time_s: 0.01\n  noise_target: 0.005\n  timing: graph\n"),
                              "rules.yaml");
  EXPECT_EQ(s.rules_version, 2);
  EXPECT_DOUBLE_EQ(s.noise_target, 0.005);
  EXPECT_EQ(s.timing, TimingMode::graph);
  EXPECT_EQ(parse_suite(replace(kRules, "min_time_s: 0.01\n", "min_time_s: 0.01\n  timing: eager\n"), "r.yaml").timing,
            TimingMode::eager);
}

TEST(Suite, BadNoiseTargetAndTimingAreNamedWithTheirLine) {
  const auto with = [](const std::string& lines) {
    return error_of(replace(kRules, "min_time_s: 0.01\n", "min_time_s: 0.01\n" + lines));
  };
  EXPECT_EQ(with("  noise_target: 1.5\n"),
            "rules.yaml:5:17: field 'noise_target': expected a fraction between 0 and 1 (exclusive) such as 0.01, got '1.5'");
  EXPECT_EQ(with("  noise_target: 0\n"),
            "rules.yaml:5:17: field 'noise_target': expected a fraction between 0 and 1 (exclusive) such as 0.01, got '0'");
  EXPECT_NE(with("  noise_target: 1\n").find("got '1'"), std::string::npos);
  EXPECT_NE(with("  noise_target: -0.01\n").find("field 'noise_target'"), std::string::npos);
  EXPECT_NE(with("  noise_target: low\n").find("got 'low'"), std::string::npos);
  EXPECT_EQ(with("  timing: cuda_events\n"),
            "rules.yaml:5:11: field 'timing': expected graph or eager, got 'cuda_events'");
  EXPECT_NE(with("  timing: [graph]\n").find("field 'timing': expected a single value"), std::string::npos);
  EXPECT_EQ(with("  regime: fast\n"), "rules.yaml:5:11: field 'regime': expected burst or sustained, got 'fast'");
  EXPECT_EQ(with("  l2: warm\n"), "rules.yaml:5:7: field 'l2': expected hot or cold, got 'warm'");
  EXPECT_NE(with("  max_repetitions: 2\n").find("field 'max_repetitions': expected at least `repetitions`"),
            std::string::npos);
  EXPECT_NE(with("  max_unstable_fraction: 1\n").find("field 'max_unstable_fraction': expected a fraction under 1"),
            std::string::npos);
  EXPECT_NE(with("  max_unstable_fraction: -0.1\n").find("field 'max_unstable_fraction'"), std::string::npos);
}

TEST(Suite, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of(replace(kRules, "repetitions: 3", "repetitions: -3")),
            "rules.yaml:3:16: field 'repetitions': expected a positive number, got '-3'");
  EXPECT_EQ(error_of(replace(kRules, "max_noise: 0.1", "max_noise: 0.1\n  extra: 1")),
            "rules.yaml:6:3: field 'extra': unknown key in submission (keys: l2, max_median_noise, max_noise, "
            "max_repetitions, max_unstable_fraction, min_time_s, models, noise_target, regime, repetitions, "
            "rules_version, tables, timing)");
  EXPECT_NE(error_of(replace(kRules, "  min_time_s: 0.01\n", "")).find("field 'min_time_s': missing"),
            std::string::npos);
  const std::string empty_sets = error_of(replace(kRules, "sets: [train]", "sets: []"));
  EXPECT_EQ(empty_sets.rfind("rules.yaml:8:", 0), 0u) << empty_sets;
  EXPECT_NE(empty_sets.find("field 'sets': expected a non-empty list"), std::string::npos) << empty_sets;
  EXPECT_NE(error_of("submission: [").find("not valid YAML"), std::string::npos);
}

TEST(Suite, RequiredCasesAreTheTablesSetsAndTheModelsEachOnce) {
  const Suite s = parse_suite(kRules, "rules.yaml");
  const std::vector<Table> tables = {parse_table(kGemm, "gemm.yaml")};
  const std::vector<ModelTable> models = {parse_model_table(kTiny, "tiny.yaml")};
  const std::vector<Case> cases = suite_cases(s, tables, models);
  // train fp16: 2 rows; the model: 768x8x768 and 8x8x8 (other: not a case). None twice; fp32 not named.
  ASSERT_EQ(cases.size(), 4u);
  std::set<std::string> names;
  for (const auto& c : cases) {
    names.insert(make_case_name(c));
    EXPECT_EQ(c.precision, "fp16");
  }
  EXPECT_EQ(names.size(), 4u);
  EXPECT_TRUE(names.count("gemm/fwd/fp16/m=768/n=8/k=768/ta=N/tb=N/batch=1"));
  EXPECT_TRUE(names.count("gemm/fwd/fp16/m=8/n=8/k=8/ta=N/tb=N/batch=1"));
}

TEST(Suite, MergesProvenanceOfACaseBothATableAndAModelNeed) {
  Suite s = parse_suite(replace(kRules, "sets: [train]", "sets: [train, other]"), "rules.yaml");
  const std::vector<Case> cases = suite_cases(s, {parse_table(kGemm, "gemm.yaml")}, {parse_model_table(kTiny, "t.yaml")});
  ASSERT_EQ(cases.size(), 4u);  // 8x8x8 is in set `other` and in the model: once
  for (const auto& c : cases)
    if (make_case_name(c) == "gemm/fwd/fp16/m=8/n=8/k=8/ta=N/tb=N/batch=1") {
      EXPECT_EQ(c.sets, std::set<std::string>{"other"});
      EXPECT_EQ(c.models, std::set<std::string>{"tiny"});
    }
}

TEST(Suite, ARuleThatMatchesNothingIsAnError) {
  const std::vector<Table> tables = {parse_table(kGemm, "gemm.yaml")};
  const auto error = [&](const std::string& rules) {
    try {
      suite_cases(parse_suite(rules, "rules.yaml"), tables, {});
    } catch (const TableError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(replace(kRules, "sets: [train]", "sets: [trian]")),
            "rules.yaml:8:7: field 'sets': family 'gemm' has no set 'trian'");
  EXPECT_EQ(error(replace(kRules, "precisions: [fp16]", "precisions: [bf16]")),
            "rules.yaml:8:7: field 'precisions': set 'train' of family 'gemm' has no precision bf16");
}

TEST(Suite, TheRepositoryRulesLoadAndExpand) {
  const std::string shapes = std::string(OPMARK_SOURCE_DIR) + "/shapes";
  const Suite s = load_suite(shapes + "/submission.yaml");
  EXPECT_EQ(s.rules_version, 5);
  EXPECT_EQ(s.repetitions, 3);
  // Version 5: the burst regime's settings; its tables and models are version 4's (kept as submission_v4.yaml).
  EXPECT_EQ(s.regime, Regime::burst);
  EXPECT_EQ(s.l2, L2Mode::hot);
  EXPECT_DOUBLE_EQ(s.min_time_s, 0.005);
  EXPECT_EQ(s.max_repetitions, 10);
  EXPECT_DOUBLE_EQ(s.max_unstable_fraction, 0.01);
  const Suite v4 = load_suite(shapes + "/submission_v4.yaml");
  EXPECT_EQ(v4.rules_version, 4);
  EXPECT_FALSE(v4.regime);
  EXPECT_FALSE(v4.l2);
  EXPECT_EQ(v4.max_repetitions, 0);
  EXPECT_EQ(suite_cases(v4, load_tables({shapes}), load_models(v4.model_names, {shapes}, v4.model_folder)).size(),
            suite_cases(s, load_tables({shapes}), load_models(s.model_names, {shapes}, s.model_folder)).size());
  EXPECT_DOUBLE_EQ(s.noise_target, 0.01);
  EXPECT_EQ(s.timing, TimingMode::graph);
  EXPECT_EQ(s.model_folder, "models");
  // The rules files beside the tables are no shape tables.
  const std::vector<Table> tables = load_tables({shapes});
  for (const auto& t : tables) EXPECT_EQ(t.path.find("submission"), std::string::npos) << t.path;
  const std::vector<Case> cases = suite_cases(s, tables, load_models(s.model_names, {shapes}, s.model_folder));
  EXPECT_GT(cases.size(), 1000u);
  std::set<std::string> families;
  for (const auto& c : cases) families.insert(c.family);
  // Every family: the nine the rules name, and attention, gather and permute from the model tables' cases.
  EXPECT_EQ(families.size(), 12u);
  // Version 3, kept for the committed bundles made under it: its own tables, the 1367 cases those bundles ran; version
  // 4's retraced tables add cases (embeddings as gather, log_softmax as reduce, ...).
  const Suite v3 = load_suite(shapes + "/submission_v3.yaml");
  EXPECT_EQ(v3.rules_version, 3);
  EXPECT_EQ(v3.model_folder, "models_rules_v3");
  const std::size_t v3_cases =
      suite_cases(v3, tables, load_models(v3.model_names, {shapes}, v3.model_folder)).size();
  EXPECT_EQ(v3_cases, 1367u);
  EXPECT_GT(cases.size(), v3_cases);
  // Versions 1 and 2, kept for the bundles made under them: the model tables they were made with (their own
  // folder), so the same cases as when they were current; 1 asked for 5 fixed repetitions and named no timing.
  const Suite v2 = load_suite(shapes + "/submission_v2.yaml");
  EXPECT_EQ(v2.rules_version, 2);
  EXPECT_EQ(v2.model_folder, "models_rules_v2");
  const std::vector<Case> v2_cases = suite_cases(v2, tables, load_models(v2.model_names, {shapes}, v2.model_folder));
  EXPECT_EQ(v2_cases.size(), 1322u);  // the committed v2 H100 bundle's cases
  const Suite v1 = load_suite(shapes + "/submission_v1.yaml");
  EXPECT_EQ(v1.rules_version, 1);
  EXPECT_EQ(v1.repetitions, 5);
  EXPECT_FALSE(v1.timing);
  EXPECT_DOUBLE_EQ(v1.max_noise, s.max_noise);
  EXPECT_DOUBLE_EQ(v1.max_median_noise, s.max_median_noise);
  EXPECT_EQ(suite_cases(v1, tables, load_models(v1.model_names, {shapes}, v1.model_folder)).size(), v2_cases.size());
}

// Issue 21: a rule given twice is an error (which one yaml-cpp's lookup sees differs between versions).
TEST(Suite, DuplicateKeysAreErrors) {
  EXPECT_EQ(error_of(replace(kRules, "repetitions: 3", "repetitions: 3\n  repetitions: 1")),
            "rules.yaml:4:3: field 'repetitions': duplicate key (first at line 3, column 3)");
}

// Issue 21: numbers past what a rule can mean (1e300 repetitions were cast to an int; inf seconds) are errors.
TEST(Suite, NumbersAreFiniteAndBounded) {
  EXPECT_EQ(error_of(replace(kRules, "repetitions: 3", "repetitions: 1e300")),
            "rules.yaml:3:16: field 'repetitions': expected a whole number from 1 to 1000000");
  EXPECT_EQ(error_of(replace(kRules, "min_time_s: 0.01", "min_time_s: inf")),
            "rules.yaml:4:15: field 'min_time_s': expected a positive number, got 'inf'");
  EXPECT_EQ(error_of(replace(kRules, "min_time_s: 0.01", "min_time_s: 7200")),
            "rules.yaml:4:15: field 'min_time_s': expected at most 3600 seconds");
  EXPECT_EQ(error_of(replace(kRules, "max_noise: 0.1", "max_noise: nan")),
            "rules.yaml:5:14: field 'max_noise': expected a positive number, got 'nan'");
}

// The rules name models of their own shapes folder: a path as a model's name, or a models folder that climbs out of
// the shapes folder (or is absolute), is an error with its line.
TEST(Suite, ModelNamesAndTheirFolderStayInsideTheShapesFolder) {
  const auto with = [](const std::string& models) {
    return error_of(replace(kRules, "  models: {names: [tiny], precision: fp16}\n", models));
  };
  EXPECT_NE(with("  models: {names: [../../etc/passwd], precision: fp16}\n")
                .find("field 'names': '../../etc/passwd' is no model name"),
            std::string::npos);
  EXPECT_NE(with("  models: {names: [tiny], precision: fp16, folder: ../../elsewhere}\n")
                .find("field 'folder': '../../elsewhere' leaves the shapes folder"),
            std::string::npos);
  EXPECT_NE(with("  models: {names: [tiny], precision: fp16, folder: /tmp/models}\n").find("leaves the shapes folder"),
            std::string::npos);
  EXPECT_EQ(with("  models: {names: [tiny], precision: fp16, folder: models_rules_v2}\n"), "no error");
}
