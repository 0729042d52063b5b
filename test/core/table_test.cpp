#include "core/table.h"

#include <gtest/gtest.h>

#include "core/error.h"

using namespace opmark::core;

namespace {

std::string error_of(const std::string& yaml) {
  try {
    parse_table(yaml, "t.yaml");
  } catch (const opmark::Error& e) {
    return e.what();
  }
  return "no error";
}

const char* kGood = R"(family: gemm
sets:
  train:
    precisions: [fp16, fp32]
    rows:
      - {m: 1760, n: 16, k: 1760, application: DeepSpeech}
      - {m: 1760, n: 32, k: 1760, ta: T}
  inference_server:
    precisions: [fp16]
    directions: [fwd]
    rows:
      - {m: 1760, n: 16, k: 1760, application: DeepSpeech}
  models:
    precisions: [bf16]
    symbols: {B: 4, L: 128}
    rows:
      - {m: 768, n: B*L, k: 768, ta: T, model: BERT-base}
)";

}  // namespace

TEST(Table, ParsesSetsRowsAndNotes) {
  Table t = parse_table(kGood, "t.yaml");
  EXPECT_EQ(t.family, "gemm");
  ASSERT_EQ(t.sets.size(), 3u);
  EXPECT_EQ(t.sets[0].name, "train");  // document order kept
  EXPECT_EQ(t.sets[0].precisions, (std::vector<std::string>{"fp16", "fp32"}));
  EXPECT_EQ(t.sets[0].directions, (std::vector<std::string>{"fwd"}));  // default: all of the family's
  ASSERT_EQ(t.sets[0].rows.size(), 2u);
  EXPECT_EQ(t.sets[0].rows[0].application, "DeepSpeech");
  EXPECT_EQ(t.sets[0].rows[0].where.line, 6);
  EXPECT_EQ(t.sets[2].symbols.at("L"), 128);
  EXPECT_EQ(t.sets[2].rows[0].model, "BERT-base");
}

TEST(Table, ExpandsDedupsAndMergesProvenance) {
  std::vector<Case> cases = expand_tables({parse_table(kGood, "t.yaml")}, {});
  // train: 2 rows x 2 precisions; inference_server repeats one of them; models: 1
  ASSERT_EQ(cases.size(), 5u);
  const Case& shared = cases[0];
  EXPECT_EQ(make_case_name(shared), "gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1");
  EXPECT_EQ(shared.sets, (std::set<std::string>{"train", "inference_server"}));
  EXPECT_EQ(shared.applications, (std::set<std::string>{"DeepSpeech"}));
  EXPECT_EQ(shared.sources.size(), 2u);
  EXPECT_EQ(make_case_name(cases.back()), "gemm/fwd/bf16/m=768/n=512/k=768/ta=T/tb=N/batch=1");
  EXPECT_EQ(cases.back().models, (std::set<std::string>{"BERT-base"}));
}

TEST(Table, SelectionAndSymbolOverrides) {
  Table t = parse_table(kGood, "t.yaml");
  Selection s;
  s.sets = {"models"};
  s.symbols = {{"B", 32}};
  std::vector<Case> cases = expand_tables({t}, s);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].int_field("n"), 32 * 128);
  Selection p;
  p.precisions = {"fp32"};
  EXPECT_EQ(expand_tables({t}, p).size(), 2u);
  Selection f;
  f.families = {"conv"};
  EXPECT_TRUE(expand_tables({t}, f).empty());
}

TEST(Table, SameCaseFromTwoTablesRegistersOnce) {
  Table a = parse_table(kGood, "a.yaml");
  Table b = parse_table(kGood, "b.yaml");
  EXPECT_EQ(expand_tables({a, b}, {}).size(), 5u);
}

TEST(TableErrors, BadValueNamesFileLineColumnAndField) {
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n      - {m: 1, n: 2, k: -3}\n"),
            "t.yaml:6:25: field 'k': expected a positive integer, got -3");
}

TEST(TableErrors, EveryPathSaysWhere) {
  const std::string head = "family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n";
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2, k: 3, q: 4}\n"),
            "t.yaml:6:28: field 'q': unknown field for family 'gemm' (fields: m, n, k, ta, tb, batch; notes: "
            "application, model, note)");
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2}\n"), "t.yaml:6:9: field 'k': required field is missing");
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2, k: 3, ta: X}\n"),
            "t.yaml:6:32: field 'ta': expected one of N, T, got 'X'");
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2, k: 3*}\n"), "t.yaml:6:27: field 'k': expected a number, a symbol or '('");
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2, k: 0}\n"), "t.yaml:6:25: field 'k': expected a positive integer, got 0");
  EXPECT_EQ(error_of(head + "      - {m: 1, n: 2, k: [3]}\n"), "t.yaml:6:25: field 'k': expected a single value");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16, fp64]\n    rows: []\n"),
            "t.yaml:4:24: field 'precisions': family 'gemm' has no precision 'fp64'");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    directions: [bwd]\n    rows: []\n"),
            "t.yaml:5:18: field 'directions': family 'gemm' has no direction 'bwd'");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    rows: []\n"),
            "t.yaml:4:5: field 'precisions': set 'train' must list its precisions");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    row: []\n"),
            "t.yaml:5:5: field 'row': unknown key in set 'train' (keys: description, directions, precisions, rows, "
            "symbols)");
  EXPECT_EQ(error_of("family: gemmm\nsets: {}\n"), "t.yaml:1:9: field 'family': unknown family 'gemmm' (known: gemm, conv, rnn, spmm, allreduce, pointwise, reduce, batchnorm, pool)");
  EXPECT_EQ(error_of("famly: gemm\n"),
            "t.yaml:1:1: field 'famly': unknown key (keys: description, family, sets)");
  EXPECT_EQ(error_of("sets: {}\n"), "t.yaml:1:1: field 'family': missing: which family the table is for");
  EXPECT_NE(error_of("family: gemm\nsets: {train: [\n").find("t.yaml:"), std::string::npos);
  EXPECT_NE(error_of("family: gemm\nsets: {train: [\n").find("not valid YAML"), std::string::npos);
}

TEST(TableErrors, UnknownSymbolAtExpansionSaysWhereAndHow) {
  Table t = parse_table("family: gemm\nsets:\n  s:\n    precisions: [fp16]\n    rows:\n      - {m: 1, n: B*L, k: 3}\n",
                        "t.yaml");
  try {
    expand_tables({t}, {});
    FAIL() << "missing symbol accepted";
  } catch (const opmark::TableError& e) {
    EXPECT_STREQ(e.what(),
                 "t.yaml:6:19: field 'n': unknown symbol 'B' (give it a value with --opmark_symbols=NAME=VALUE)");
  }
  Selection s;
  s.symbols = {{"B", 2}, {"L", 0}};
  try {
    expand_tables({t}, s);
    FAIL() << "n = 0 accepted";
  } catch (const opmark::TableError& e) {
    EXPECT_STREQ(e.what(), "t.yaml:6:19: field 'n': expected a positive integer, got 0 (with B*L)");
  }
}

TEST(Table, ShippedTablesAllLoad) {
  for (const auto& file : find_table_files(OPMARK_SOURCE_DIR "/shapes")) {
    SCOPED_TRACE(file);
    Table t = load_table(file);
    EXPECT_FALSE(expand_tables({t}, {}).empty());
  }
  EXPECT_THROW(load_table(OPMARK_SOURCE_DIR "/shapes/no_such_table.yaml"), opmark::Error);
}
