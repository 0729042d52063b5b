// Model operator tables: parsing, defaults, expressions over the model's inputs, the cases a set of models needs
// (each unique case once), and every error naming the file, line and field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/model_table.h"
#include "core/schema.h"
#include "../file_util.h"

using namespace opmark;
using namespace opmark::core;

namespace {

const char* kTiny = R"(model: tiny_mlp
area: nlp
task: testing
source: hand-written fixture
inputs: {B: 8, L: 128}
measured: {device: NVIDIA H200, precision: fp16, gpu_time_ms: 0.25}
ops:
  - {family: gemm, calls: 2, source_op: aten::mm, traced_us: 10.5, m: 768, n: B*L, k: 768, ta: T}
  - {family: gemm, calls: 1, source_op: aten::mm, m: 3072, n: B*L, k: 768, ta: T}
  - {family: pointwise, calls: 2, source_op: aten::gelu, op_: x, rows: B*L, cols: 3072}
  - {family: other, calls: 3, source_op: aten::embedding, traced_us: 2}
)";

std::string error_of(const std::string& yaml) {
  try {
    parse_model_table(yaml, "m.yaml");
  } catch (const TableError& e) {
    return e.what();
  }
  return "no error";
}

std::string expansion_error_of(const std::string& yaml, const Symbols& inputs) {
  try {
    model_calls(parse_model_table(yaml, "m.yaml"), inputs, "fp16");
  } catch (const TableError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(ModelTable, OpKeysAndFieldsAreChecked) {
  // The fixture's third op has a mistyped key: the error names the file, line, column and key.
  EXPECT_EQ(error_of(kTiny), "m.yaml:10:58: field 'op_': unknown field for family 'pointwise' (fields: op, rows, "
                             "cols, impl; op keys: calls, direction, family, kernels, source_op, traced_us)");
}

TEST(ModelTable, FamilyFieldsAndTheTracedOperatorLiveSideBySide) {
  std::string yaml = kTiny;
  yaml.replace(yaml.find("op_: x, "), 8, "op: gelu, ");  // pointwise's own field `op`
  const ModelTable m = parse_model_table(yaml, "m.yaml");
  EXPECT_EQ(m.name, "tiny_mlp");
  EXPECT_EQ(m.area, "nlp");
  EXPECT_EQ(m.ops[2].source_op, "aten::gelu");
  const auto calls = model_calls(m, {}, "fp16");
  ASSERT_TRUE(calls[2].c.has_value());
  EXPECT_EQ(make_case_name(*calls[2].c), "pointwise/fwd/fp16/op=gelu/rows=1024/cols=3072/impl=opmark");
  EXPECT_EQ(make_case_name(*calls[0].c), "gemm/fwd/fp16/m=768/n=1024/k=768/ta=T/tb=N/batch=1");
  EXPECT_DOUBLE_EQ(m.ops[0].traced_us, 10.5);
  // int8 is not a pointwise precision: the call stays, with no case, and says why.
  const auto int8 = model_calls(m, {}, "int8");
  EXPECT_TRUE(int8[0].c.has_value());
  EXPECT_FALSE(int8[2].c.has_value());
  EXPECT_TRUE(int8[2].precision_not_run);
}

TEST(ModelTable, CasesOfSeveralModelsAreUniqueAndTagged) {
  const std::string base = R"(model: a
inputs: {B: 4}
ops:
  - {family: gemm, calls: 2, m: 64, n: B, k: 32}
  - {family: gemm, calls: 1, m: 64, n: 8, k: 32}
  - {family: other, calls: 5, source_op: aten::embedding}
)";
  std::string other = base;
  other.replace(other.find("model: a"), 8, "model: b");
  const ModelTable a = parse_model_table(base, "a.yaml"), b = parse_model_table(other, "b.yaml");
  ASSERT_EQ(a.ops.size(), 3u);
  EXPECT_EQ(a.ops[0].direction, "fwd");  // the family's first direction by default
  EXPECT_EQ(a.mode, "inference");
  // At the default B = 4 the two gemm ops differ; with B = 8 they are the same case.
  EXPECT_EQ(model_cases({a}, {}, {"fp16"}).size(), 2u);
  const auto at8 = model_cases({a, b}, {{"B", 8}}, {"fp16", "bf16"});
  ASSERT_EQ(at8.size(), 2u);  // one case per precision, shared by both models and both ops
  EXPECT_EQ(make_case_name(at8[0]), "gemm/fwd/fp16/m=64/n=8/k=32/ta=N/tb=N/batch=1");
  EXPECT_EQ(at8[0].models, (std::set<std::string>{"a", "b"}));
  const auto calls = model_calls(a, {{"B", 8}}, "fp16");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].calls, 2);
  EXPECT_FALSE(calls[2].c.has_value());  // family other: kept, with its calls, no case
  EXPECT_EQ(calls[2].calls, 5);
}

TEST(ModelTable, CallsMayBeAnExpressionOverTheInputs) {
  const ModelTable m =
      parse_model_table("model: m\ninputs: {B: 2, L: 3}\nops:\n  - {family: gemm, calls: L*2, m: 4, n: B, k: 3}\n",
                        "m.yaml");
  EXPECT_EQ(model_calls(m, {}, "fp16")[0].calls, 6);
  EXPECT_EQ(model_calls(m, {{"L", 5}}, "fp16")[0].calls, 10);
}

TEST(ModelTable, MeasuredTimeAndTracedTimesAreRead) {
  const std::string yaml = R"(model: m
inputs: {B: 2}
measured: {device: NVIDIA H200, precision: fp16, gpu_time_ms: 1.5}
ops:
  - {family: other, calls: 1, source_op: aten::sort, traced_us: 12.25}
)";
  const ModelTable m = parse_model_table(yaml, "m.yaml");
  ASSERT_EQ(m.measured.size(), 1u);  // an older table's single map: a list of one
  EXPECT_DOUBLE_EQ(m.measured[0].gpu_time_ms, 1.5);
  EXPECT_EQ(m.measured[0].device, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(m.ops[0].traced_us, 12.25);
}

// A channels_last table says so, and each op may list the framework's kernels; a conv case there is NHWC.
TEST(ModelTable, MemoryFormatAndTracedKernelsAreRead) {
  const std::string yaml = R"(model: m_channels_last
memory_format: channels_last
inputs: {B: 2}
ops:
  - {family: conv, calls: 1, kernels: ["sm90_xmma_fprop_implicit_gemm", "nchwToNhwcKernel"], n: B, c: 64, h: 56, w: 56, k: 64, r: 3, s: 3, pad_h: 1, pad_w: 1, layout: NHWC}
)";
  const ModelTable m = parse_model_table(yaml, "m.yaml");
  EXPECT_EQ(m.memory_format, "channels_last");
  ASSERT_EQ(m.ops[0].kernels.size(), 2u);
  EXPECT_EQ(m.ops[0].kernels[1], "nchwToNhwcKernel");
  EXPECT_EQ(parse_model_table("model: m\ninputs: {B: 2}\nops:\n  - {family: other, calls: 1}\n", "m.yaml").memory_format,
            "contiguous");
  EXPECT_NE(error_of("model: m\nmemory_format: nhwc\ninputs: {B: 2}\nops:\n  - {family: other, calls: 1}\n")
                .find("m.yaml:2:16: field 'memory_format': 'nhwc' is not one of channels_last, contiguous"),
            std::string::npos);
  EXPECT_NE(error_of("model: m\ninputs: {B: 2}\nops:\n  - {family: other, calls: 1, kernels: k}\n").find("kernels"),
            std::string::npos);
}

// A table of the framework configured otherwise than by default says which configuration; a variant is any table
// with such a configuration or a layout other than contiguous.
TEST(ModelTable, FrameworkConfigIsReadAndMakesAVariant) {
  const std::string ops = "inputs: {B: 2}\nops:\n  - {family: reduce, calls: 1, op: rmsnorm, rows: B, cols: 64}\n";
  const ModelTable fused =
      parse_model_table("model: m_fused_rmsnorm\nframework_config: fused_rmsnorm\n" + ops, "m.yaml");
  EXPECT_EQ(fused.framework_config, "fused_rmsnorm");
  EXPECT_EQ(fused.memory_format, "contiguous");
  EXPECT_TRUE(is_variant(fused));
  const ModelTable plain = parse_model_table("model: m\n" + ops, "m.yaml");
  EXPECT_TRUE(plain.framework_config.empty());
  EXPECT_FALSE(is_variant(plain));
  EXPECT_TRUE(is_variant(parse_model_table("model: m_channels_last\nmemory_format: channels_last\n" + ops, "m.yaml")));
  EXPECT_EQ(error_of("model: m\nframework_config: fused_rms\n" + ops),
            "m.yaml:2:19: field 'framework_config': 'fused_rms' is not one of fused_rmsnorm");
}

// One entry per GPU: a list of maps, each with its optional date and software; the entry of a device is picked by
// its exact name and precision, and a GPU without an entry gets none.
TEST(ModelTable, MeasuredListHoldsOneEntryPerDevice) {
  const std::string yaml = R"(model: m
measured:
  - {device: "NVIDIA H100 80GB HBM3", precision: fp16, graph_ms: 3.9, eager_ms: 6.9, kernel_ms: 3.8}
  - {device: "NVIDIA H200", precision: fp16, graph_ms: 3.6, eager_ms: 5.5, kernel_ms: 3.5, graph_suspect: true,
     date: "2026-11-26", software: "torch 2.11.0+cu130, cuDNN 9.19.0, driver 580.159.04"}
ops:
  - {family: other, calls: 1, source_op: aten::sort}
)";
  const ModelTable m = parse_model_table(yaml, "m.yaml");
  ASSERT_EQ(m.measured.size(), 2u);
  EXPECT_EQ(m.measured[0].device, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(m.measured[0].date.empty() && m.measured[0].software.empty());  // unknown: not invented
  EXPECT_EQ(m.measured[1].date, "2026-11-26");
  EXPECT_EQ(m.measured[1].software, "torch 2.11.0+cu130, cuDNN 9.19.0, driver 580.159.04");
  EXPECT_TRUE(m.measured[1].graph_suspect);

  const ModelMeasurement* h200 = find_measurement(m, "NVIDIA H200", "fp16");
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(*h200->graph_ms, 3.6);
  EXPECT_DOUBLE_EQ(h200->gpu_time_ms, 5.5);
  ASSERT_NE(find_measurement(m, "NVIDIA H100 80GB HBM3", "fp16"), nullptr);
  EXPECT_DOUBLE_EQ(*find_measurement(m, "NVIDIA H100 80GB HBM3", "fp16")->graph_ms, 3.9);
  EXPECT_EQ(find_measurement(m, "NVIDIA H200", "bf16"), nullptr);
  EXPECT_EQ(find_measurement(m, "NVIDIA H100 PCIe", "fp16"), nullptr);
  EXPECT_EQ(find_measurement(m, "NVIDIA H20", "fp16"), nullptr);  // exact names only, no prefix match
  EXPECT_EQ(find_measurement(m, "", "fp16"), nullptr);
}

TEST(ModelTable, MalformedMeasuredEntrySaysWhereAndWhichField) {
  const auto table = [](const std::string& measured) {
    return "model: m\nmeasured:\n" + measured + "ops:\n  - {family: other, calls: 1}\n";
  };
  EXPECT_EQ(error_of(table("  - {device: A, precision: fp16, graph_ms: 1}\n  - {device: B, kernel_ms: -2}\n")),
            "m.yaml:4:28: field 'kernel_ms': expected a positive number, got '-2'");
  EXPECT_EQ(error_of(table("  - {device: A, date: 26.11.2026}\n")),
            "m.yaml:3:23: field 'date': expected YYYY-MM-DD, got '26.11.2026'");
  EXPECT_EQ(error_of(table("  - {device: A, date: 2026-13-01}\n")),
            "m.yaml:3:23: field 'date': expected YYYY-MM-DD, got '2026-13-01'");
  EXPECT_EQ(error_of(table("  - {device: A, sofware: x}\n")).rfind("m.yaml:3:17: field 'sofware': unknown key", 0),
            0u);
  EXPECT_EQ(error_of(table("  - graph_ms\n")),
            "m.yaml:3:5: field 'measured': an entry must be a map such as {device: ..., graph_ms: ...}");
  EXPECT_EQ(error_of(table("  - {device: A, precision: fp16}\n  - {device: A, precision: fp16}\n")),
            "m.yaml:4:5: field 'measured': a second entry for device 'A' in fp16");
  EXPECT_EQ(error_of("model: m\nmeasured: 3.9\nops:\n  - {family: other, calls: 1}\n"),
            "m.yaml:2:11: field 'measured': expected a list of maps, one per device");
}

TEST(ModelTable, EveryErrorSaysWhere) {
  // The known families come from core's list: a new family changes no test.
  EXPECT_EQ(error_of("model: m\nops:\n  - {family: gemmm, calls: 1}\n"),
            "m.yaml:3:14: field 'family': unknown family 'gemmm' (known: " + opmark::core::family_list() +
                ", and other)");
  EXPECT_EQ(error_of("model: m\nops:\n  - {family: gemm, m: 1, n: 2, k: 3}\n"),
            "m.yaml:3:5: field 'calls': required field is missing");
  EXPECT_EQ(error_of("model: m\nops:\n  - {family: gemm, calls: 1, m: 1, n: 2}\n"),
            "m.yaml:3:5: field 'k': required field is missing");
  EXPECT_EQ(error_of("model: m\nops:\n  - {family: other, calls: 1, m: 4}\n"),
            "m.yaml:3:31: field 'm': an op of family 'other' has only calls, direction, family, kernels, source_op, traced_us");
  EXPECT_EQ(error_of("model: m\nweights: x\nops: []\n"),
            "m.yaml:2:1: field 'weights': unknown key in a model table (keys: area, framework_config, graph, inputs, "
            "measured, memory_format, mode, model, ops, source, task)");
  // Expansion: a missing input and a shape that is not positive name the cell.
  const std::string uses_h = "model: m\ninputs: {B: 2}\nops:\n  - {family: gemm, calls: 1, m: H, n: B, k: 3}\n";
  EXPECT_EQ(expansion_error_of(uses_h, {}).rfind("m.yaml:4:33: field 'm': unknown symbol 'H'", 0), 0u)
      << expansion_error_of(uses_h, {});
  EXPECT_NE(expansion_error_of(uses_h, {}).find("(give it a value with --opmark_inputs=NAME=VALUE)"),
            std::string::npos)
      << expansion_error_of(uses_h, {});
  const std::string shrinks = "model: m\ninputs: {B: 2}\nops:\n  - {family: gemm, calls: 1, m: B-2, n: B, k: 3}\n";
  EXPECT_EQ(expansion_error_of(shrinks, {}),
            "m.yaml:4:33: field 'm': expected a positive integer, got 0 (with B-2)");
  const std::string divides = "model: m\ninputs: {B: 2}\nops:\n  - {family: gemm, calls: 1, m: 4/(B-2), n: B, k: 3}\n";
  EXPECT_NE(expansion_error_of(divides, {}).find("m.yaml:4:"), std::string::npos) << expansion_error_of(divides, {});
}

TEST(ModelTables, EveryShippedModelLoadsAndExpandsAtItsDefaults) {
  const auto files = find_model_files(OPMARK_SOURCE_DIR "/shapes/models");
  ASSERT_GE(files.size(), 14u);
  std::set<std::string> areas;
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const ModelTable m = load_model_table(file);
    EXPECT_FALSE(m.area.empty());
    areas.insert(m.area);
    std::size_t calls = 0, covered = 0;
    for (const auto& call : model_calls(m, {}, "fp16")) {
      calls += static_cast<std::size_t>(call.calls);
      covered += call.c ? static_cast<std::size_t>(call.calls) : 0;
    }
    EXPECT_GT(covered, 0u) << m.name << " has no call a benchmarked family covers";
    EXPECT_GE(calls, covered);
    // Other input sizes evaluate too (the expressions were checked against a trace at 3x the defaults).
    Symbols bigger = m.inputs;
    for (auto& [k, v] : bigger) v *= 2;
    EXPECT_NO_THROW(model_calls(m, bigger, "bf16"));
  }
  EXPECT_GE(areas.size(), 5u);
}

// The committed channels_last tables time what PyTorch ran there: NHWC batch norm (opmark's inference path) and
// NHWC pooling (cuDNN's), as their convolutions; the default-layout tables keep their NCHW cases and names.
TEST(ModelTables, ChannelsLastTablesRunBatchnormAndPoolNhwc) {
  const std::vector<std::string> dirs = {OPMARK_SOURCE_DIR "/shapes"};
  const auto layout_of = [](const Case& c) { return c.str_field("layout"); };
  for (const char* name : {"resnet50_channels_last", "mobilenet_v2_channels_last", "vgg16_channels_last"}) {
    int image_calls = 0;
    for (const auto& call : model_calls(load_models({name}, dirs).at(0), {}, "fp16")) {
      if (!call.c || (call.c->family != "batchnorm" && call.c->family != "pool")) continue;
      ++image_calls;
      EXPECT_EQ(layout_of(*call.c), "NHWC") << name << ": " << make_case_name(*call.c);
      EXPECT_NE(make_case_name(*call.c).find("/layout=NHWC"), std::string::npos);
      if (call.c->family == "pool") EXPECT_EQ(call.c->str_field("impl"), "cudnn") << make_case_name(*call.c);
    }
    EXPECT_GT(image_calls, 0) << name;
  }
  for (const char* name : {"resnet50", "mobilenet_v2", "vgg16"})
    for (const auto& call : model_calls(load_models({name}, dirs).at(0), {}, "fp16"))
      if (call.c && (call.c->family == "batchnorm" || call.c->family == "pool")) {
        EXPECT_EQ(layout_of(*call.c), "NCHW") << name;
        EXPECT_EQ(make_case_name(*call.c).find("layout"), std::string::npos) << make_case_name(*call.c);
      }
}

TEST(ModelTables, LoadByNameAllOrPathAndNameTheUnknown) {
  const std::vector<std::string> dirs = {OPMARK_SOURCE_DIR "/shapes"};
  const auto two = load_models({"resnet50", "bert_base"}, dirs);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].name, "resnet50");
  EXPECT_EQ(two[1].name, "bert_base");
  const auto all = load_models({"all"}, dirs);
  EXPECT_GE(all.size(), 16u);
  for (const auto& m : all) EXPECT_NE(m.mode, "train") << m.name;
  for (const auto& m : all) EXPECT_FALSE(is_variant(m)) << m.name;  // variants by name only
  EXPECT_EQ(load_models({"resnet50_channels_last"}, dirs).at(0).memory_format, "channels_last");
  const auto training = load_models({"all_train"}, dirs);
  EXPECT_GE(training.size(), 4u);
  for (const auto& m : training) {
    EXPECT_EQ(m.mode, "train") << m.name;
    EXPECT_EQ(m.name.substr(m.name.size() - 6), "_train");
  }
  EXPECT_EQ(load_models({OPMARK_SOURCE_DIR "/shapes/models/dlrm.yaml"}, {})[0].name, "dlrm");
  try {
    load_models({"resnet5"}, dirs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no model 'resnet5' (known: bert_base, ", 0), 0u) << e.what();
  }
  // A tables folder that is in no shapes folder (a rules file's models.folder mistyped) is an error, not "all" as
  // none.
  try {
    load_models({"all"}, dirs, "models_rules_v9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no model tables folder 'models_rules_v9' in ", 0), 0u) << e.what();
  }
  EXPECT_EQ(load_models({"all"}, dirs, "models_rules_v2").size(), 16u);
}

// "all" and "all_train" leave every variant out (a layout or a framework configuration other than the default's), so
// the areas score the framework as configured by default; a variant is asked for by name.
class ModelVariants : public test::ScratchFolder {};
TEST_F(ModelVariants, AreAskedForByNameOnly) {
  const std::string ops = "inputs: {B: 2}\nops:\n  - {family: reduce, calls: 1, op: rmsnorm, rows: B, cols: 64}\n";
  std::filesystem::create_directories(dir_ / "models");
  test::write_file(dir_ / "models" / "m.yaml", "model: m\n" + ops);
  test::write_file(dir_ / "models" / "m_fused_rmsnorm.yaml",
                   "model: m_fused_rmsnorm\nframework_config: fused_rmsnorm\n" + ops);
  test::write_file(dir_ / "models" / "m_channels_last.yaml",
                   "model: m_channels_last\nmemory_format: channels_last\n" + ops);
  test::write_file(dir_ / "models" / "m_train.yaml", "model: m_train\nmode: train\n" + ops);
  test::write_file(dir_ / "models" / "m_fused_rmsnorm_train.yaml",
                   "model: m_fused_rmsnorm_train\nmode: train\nframework_config: fused_rmsnorm\n" + ops);
  const std::vector<std::string> dirs = {dir_.string()};
  const auto names = [&](const std::vector<std::string>& asked) {
    std::vector<std::string> out;
    for (const auto& m : load_models(asked, dirs)) out.push_back(m.name);
    return out;
  };
  EXPECT_EQ(names({"all"}), std::vector<std::string>{"m"});
  EXPECT_EQ(names({"all_train"}), std::vector<std::string>{"m_train"});
  EXPECT_EQ(names({"m_fused_rmsnorm", "m_channels_last"}),
            (std::vector<std::string>{"m_fused_rmsnorm", "m_channels_last"}));
  EXPECT_EQ(names({"all", "m_fused_rmsnorm"}), (std::vector<std::string>{"m", "m_fused_rmsnorm"}));
}

// ---- Issue 21: bad input in model tables and --opmark_inputs ----

TEST(ModelTable, CallsOfInt64MinOverMinusOneAreAnOverflowNotACrash) {
  const std::string yaml =
      "model: m\ninputs: {B: 8}\nops:\n  - {family: gemm, calls: (-9223372036854775807-1)/-1, m: 768, n: B, k: 768}\n";
  EXPECT_EQ(expansion_error_of(yaml, {}), "m.yaml:4:51: field 'calls': integer overflow");
  const std::string past_range = "model: m\ninputs: {B: 8}\nops:\n  - {family: rnn, calls: 1, cell: lstm, hidden: 512, "
                                 "batch: B, steps: 50, layers: 9223372036854775807}\n";
  EXPECT_EQ(expansion_error_of(past_range, {}),
            "m.yaml:4:83: field 'layers': expected an integer from 1 to 1024, got 9223372036854775807 (with "
            "9223372036854775807)");
}

TEST(ModelTable, InputsMustBeSizesAndOpsNotEmpty) {
  EXPECT_EQ(error_of("model: m\ninputs: {B: -8}\nops:\n  - {family: other, calls: 1}\n"),
            "m.yaml:2:13: field 'B': expected a positive integer, got -8");
  EXPECT_EQ(error_of("model: m\ninputs: {B: 8}\nops: []\n"),
            "m.yaml:3:6: field 'ops': empty: a model needs at least one operator call");
  EXPECT_EQ(error_of("model: m\ninputs: {B: 8}\nops:\n  - {family: other, calls: 1, calls: 2}\n"),
            "m.yaml:4:31: field 'calls': duplicate key (first at line 4, column 21)");
  EXPECT_EQ(error_of("model: m\n[inputs]: {B: 8}\nops:\n  - {family: other, calls: 1}\n"),
            "m.yaml:2:1: keys must be plain names, not a map, a list or nothing");
  EXPECT_EQ(error_of("model: m\nops:\n  - {family: other, calls: 1, traced_us: inf}\n"),
            "m.yaml:3:42: field 'traced_us': expected a non-negative number, got 'inf'");
}

TEST(ModelTable, InputsFlagNamesOnlyInputsTheModelsHave) {
  const std::vector<ModelTable> models = {parse_model_table(
      "model: m\ninputs: {B: 8}\nops:\n  - {family: gemm, calls: N, m: 4, n: B*L, k: 3, ta: T}\n", "m.yaml")};
  EXPECT_NO_THROW(check_inputs(models, {{"B", 16}, {"L", 4}, {"N", 2}}));  // a default, a shape's, the calls'
  try {
    check_inputs(models, {{"b", 16}});
    FAIL() << "unknown input accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--opmark_inputs: the selected models have no input 'b' (their inputs: B, L, N)");
  }
  EXPECT_THROW(check_inputs(models, {{"T", 1}}), Error);  // ta: T is a choice, not an input
}

// An imported table's dependency graph: one [op row, calls it waits on...] a call; the parallel lower bound is the
// longest path with each call at its row's time, where the sequential bound sums them all.
TEST(ModelTable, TheDependencyGraphGivesTheParallelLowerBound) {
  const std::string head = "model: m\nops:\n  - {family: gemm, calls: 2, m: 8, n: 8, k: 8}\n"
                           "  - {family: pointwise, calls: 1, op: add, rows: 8, cols: 8}\n";
  // two independent products, then the add of both
  const ModelTable m = parse_model_table(head + "graph:\n  - [0]\n  - [0]\n  - [1, 0, 1]\n", "m.yaml");
  ASSERT_EQ(m.graph.size(), 3u);
  EXPECT_EQ(m.graph[2].op, 1u);
  EXPECT_EQ(m.graph[2].after, (std::vector<std::size_t>{0, 1}));
  EXPECT_DOUBLE_EQ(critical_path_ms(m, {2.0, 0.5}), 2.5);  // sequential: 2 x 2.0 + 0.5 = 4.5
  // a chain: no overlap, the bound is the sum
  const ModelTable chain = parse_model_table(head + "graph: [[0], [0, 0], [1, 1]]\n", "m.yaml");
  EXPECT_DOUBLE_EQ(critical_path_ms(chain, {2.0, 0.5}), 4.5);
  EXPECT_TRUE(parse_model_table(head, "m.yaml").graph.empty());  // traced tables have none
}

TEST(ModelTable, ABadGraphIsNamedWithItsLine) {
  const std::string head = "model: m\nops:\n  - {family: gemm, calls: 2, m: 8, n: 8, k: 8}\n";
  EXPECT_NE(error_of(head + "graph:\n  - [0]\n  - [1]\n").find("op row 1 past the 1 rows"), std::string::npos);
  EXPECT_NE(error_of(head + "graph:\n  - [0, 1]\n  - [0]\n").find("waits on call 1, which is not an earlier one"),
            std::string::npos);
  EXPECT_NE(error_of(head + "graph:\n  - [0]\n").find("2 calls, but the graph calls op row 0 1 time(s)"),
            std::string::npos);
  EXPECT_NE(error_of(head + "graph:\n  - [0]\n  - [0, x]\n").find("m.yaml:6:9: field 'graph': expected a "
                                                                   "non-negative index, got 'x'"),
            std::string::npos);
  EXPECT_NE(error_of(head + "graph: 3\n").find("expected a list of calls"), std::string::npos);
}
