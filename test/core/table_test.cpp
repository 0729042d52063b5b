#include "core/table.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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
  // The known families come from the registry: a new family changes no test.
  std::string known;
  for (const std::string& f : opmark::core::known_families()) known += (known.empty() ? "" : ", ") + f;
  EXPECT_EQ(error_of("family: gemmm\nsets: {}\n"),
            "t.yaml:1:9: field 'family': unknown family 'gemmm' (known: " + known + ")");
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

// ---- Issue 21: bad input is an error naming the file, line, column and field ----

TEST(TableErrors, Int64MinOverMinusOneIsAnOverflowAtItsColumn) {
  const std::string head = "family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n";
  EXPECT_EQ(error_of(head + "      - {m: (-9223372036854775807-1)/-1, n: 16, k: 1760}\n"),
            "t.yaml:6:37: field 'm': integer overflow");
  EXPECT_EQ(error_of(head + "      - {m: -(-9223372036854775807-1), n: 16, k: 1760}\n"),
            "t.yaml:6:13: field 'm': integer overflow");
}

TEST(TableErrors, ValuesPastAFieldsRangeAreRejectedAtLoad) {
  const std::string head = "family: rnn\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n";
  EXPECT_EQ(error_of(head + "      - {cell: lstm, hidden: 512, batch: 16, steps: 50, layers: 9223372036854775807}\n"),
            "t.yaml:6:65: field 'layers': expected an integer from 1 to 1024, got 9223372036854775807");
  // Through a symbol, at expansion, with the expression.
  Table t = parse_table(head + "      - {cell: lstm, hidden: 512, batch: 16, steps: 50, layers: L}\n", "t.yaml");
  Selection s;
  s.symbols = {{"L", 2048}};
  try {
    expand_tables({t}, s);
    FAIL() << "layers = 2048 accepted";
  } catch (const opmark::TableError& e) {
    EXPECT_STREQ(e.what(), "t.yaml:6:65: field 'layers': expected an integer from 1 to 1024, got 2048 (with L)");
  }
}

TEST(TableErrors, EmptyListsAreErrorsNamingTheField) {
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: []\n    rows:\n      - {m: 1, n: 2, k: 3}\n"),
            "t.yaml:4:17: field 'precisions': empty: list at least one");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    directions: []\n    rows:\n"
                     "      - {m: 1, n: 2, k: 3}\n"),
            "t.yaml:5:17: field 'directions': empty: list at least one");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows: []\n"),
            "t.yaml:5:11: field 'rows': empty: set 'train' has no rows");
  EXPECT_EQ(error_of("family: gemm\nsets: {}\n"), "t.yaml:2:7: field 'sets': empty: a table needs at least one set");
}

TEST(TableErrors, SetSymbolsMustBeSizes) {
  const std::string rows = "    rows:\n      - {m: B, n: 2, k: 3}\n";
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    symbols: {B: -4}\n" + rows),
            "t.yaml:5:18: field 'B': expected a positive integer, got -4");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    symbols: {B: 0}\n" + rows),
            "t.yaml:5:18: field 'B': expected a positive integer, got 0");
}

TEST(TableErrors, DuplicateKeysAreErrorsAtEveryLevel) {
  // A row's field given twice: yaml-cpp keeps both, and which one a lookup sees differs between versions.
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n"
                     "      - {m: 1760, n: 16, k: 1760, m: 2048}\n"),
            "t.yaml:6:35: field 'm': duplicate key (first at line 6, column 10)");
  EXPECT_EQ(error_of("family: gemm\nfamily: conv\nsets: {}\n"),
            "t.yaml:2:1: field 'family': duplicate key (first at line 1, column 1)");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows: [{m: 1, n: 2, k: 3}]\n"
                     "  train:\n    precisions: [fp32]\n    rows: [{m: 1, n: 2, k: 3}]\n"),
            "t.yaml:6:3: field 'train': duplicate key (first at line 3, column 3)");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    symbols: {B: 1, B: 2}\n"
                     "    rows: [{m: B, n: 2, k: 3}]\n"),
            "t.yaml:5:21: field 'B': duplicate key (first at line 5, column 15)");
}

TEST(TableErrors, ComplexKeysAreErrorsNotBadConversions) {
  EXPECT_EQ(error_of("family: gemm\n? [sets]\n: {}\n"),
            "t.yaml:2:3: keys must be plain names, not a map, a list or nothing");
  EXPECT_EQ(error_of("family: gemm\nsets:\n  train:\n    precisions: [fp16]\n    rows:\n      - {{m: 1}: 2}\n"),
            "t.yaml:6:10: keys must be plain names, not a map, a list or nothing");
}

TEST(TableErrors, AliasesThatNameTheirOwnAncestorEndInAnErrorNotALoop) {
  EXPECT_THROW(parse_table("family: gemm\nsets: &s {train: *s}\n", "t.yaml"), opmark::TableError);
  EXPECT_THROW(parse_table("family: gemm\nsets:\n  train:\n    precisions: &p [fp16, *p]\n    rows: []\n", "t.yaml"),
               opmark::TableError);
}

TEST(TableErrors, FractionsThatWouldPrintAlikeAreRejected) {
  EXPECT_EQ(error_of("family: spmm\nsets:\n  s:\n    precisions: [fp16]\n    rows:\n"
                     "      - {m: 64, n: 16, k: 64, sparsity: 0.5}\n"
                     "      - {m: 64, n: 16, k: 64, sparsity: 0.50000000001}\n"),
            "t.yaml:7:41: field 'sparsity': '0.50000000001' and 0.5 would have the same case name (0.5): give at "
            "most 10 significant digits");
}

namespace {

std::string selection_error(const Selection& s) {
  try {
    check_selection({parse_table(kGood, "t.yaml")}, s);
  } catch (const opmark::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(TableErrors, SelectionNamesOnlySetsPrecisionsAndSymbolsTheTablesHave) {
  Selection ok;
  ok.sets = {"models"};
  ok.precisions = {"bf16"};
  ok.symbols = {{"B", 8}, {"L", 64}};
  EXPECT_EQ(selection_error(ok), "no error");
  Selection set;
  set.sets = {"train", "nosuchset"};
  EXPECT_EQ(selection_error(set),
            "--opmark_set: the selected tables have no set 'nosuchset' (their sets: inference_server, models, train)");
  Selection family;  // a family filter leaves no table, so no set
  family.families = {"conv"};
  family.sets = {"train"};
  EXPECT_EQ(selection_error(family), "--opmark_set: the selected tables have no set 'train' (their sets: none)");
  Selection precision;
  precision.sets = {"train"};
  precision.precisions = {"bf16"};  // only the models set runs bf16
  EXPECT_EQ(selection_error(precision),
            "--opmark_precision: the selected sets have no precision 'bf16' (their precisions: fp16, fp32)");
  Selection symbol;
  symbol.symbols = {{"b", 16}};
  EXPECT_EQ(selection_error(symbol), "--opmark_symbols: the selected sets use no symbol 'b' (their symbols: B, L)");
  Selection choice_text;  // ta: T is a choice, not a symbol T
  choice_text.symbols = {{"T", 1}};
  EXPECT_EQ(selection_error(choice_text),
            "--opmark_symbols: the selected sets use no symbol 'T' (their symbols: B, L)");
}

// A shape table's batchnorm and pool rows take a layout (NCHW by default, as before it existed); the table's errors
// name the row where NHWC asks for opmark's NCHW-only kernels.
TEST(Table, BatchnormAndPoolRowsTakeALayout) {
  const char* yaml = R"(family: batchnorm
sets:
  cl:
    precisions: [fp16]
    rows:
      - {n: 8, c: 64, h: 56, w: 56}
      - {n: 8, c: 64, h: 56, w: 56, layout: NHWC}
      - {n: 8, c: 64, h: 56, w: 56, layout: NHWC, mode: train, impl: cudnn}
)";
  const std::vector<Case> cases = expand_tables({parse_table(yaml, "t.yaml")}, {});
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(make_case_name(cases[0]), "batchnorm/fwd/fp16/n=8/c=64/h=56/w=56/mode=inference/impl=opmark");
  EXPECT_EQ(make_case_name(cases[1]), "batchnorm/fwd/fp16/n=8/c=64/h=56/w=56/mode=inference/impl=opmark/layout=NHWC");
  EXPECT_EQ(make_case_name(cases[2]), "batchnorm/fwd/fp16/n=8/c=64/h=56/w=56/mode=train/impl=cudnn/layout=NHWC");
  const std::string pool = R"(family: pool
sets:
  cl:
    precisions: [fp16]
    rows:
      - {n: 8, c: 64, h: 112, w: 112, r: 3, s: 3, pad_h: 1, pad_w: 1, stride_h: 2, stride_w: 2, layout: NHWC}
)";
  std::string message;
  try {
    expand_tables({parse_table(pool, "t.yaml")}, {});
  } catch (const opmark::Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("t.yaml:6"), std::string::npos) << message;
  EXPECT_NE(message.find("layout=NHWC runs through cuDNN only (impl=cudnn)"), std::string::npos) << message;
}

// A FIFO named like a table in a shapes folder is named as an error, not read (which would block) nor skipped (which
// would leave its table out of the run without a word).
TEST(Table, AFifoAmongTheTablesIsAnErrorNamingIt) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("opmark_fifo_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  { std::ofstream(dir / "gemm.yaml") << "family: gemm\nsets: {}\n"; }
  EXPECT_EQ(find_table_files(dir.string()).size(), 1u);
  ASSERT_EQ(::mkfifo((dir / "pipe.yaml").c_str(), 0600), 0);
  try {
    find_table_files(dir.string());
    FAIL() << "no error";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("pipe.yaml: a .yaml entry that is no regular file"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}
