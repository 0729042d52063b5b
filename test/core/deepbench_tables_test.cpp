// The shape tables must hold DeepBench's tables row for row: every row of DeepBench's CSVs (copies in test/data,
// so the test needs nothing outside the repository) is in the table's set of the same name, in order, with its
// application, and registers as a case in every precision and direction the issue names.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "../csv_util.h"
#include "core/table.h"

using namespace opmark::core;
using opmark::test::CsvRow;
using opmark::test::read_csv;

namespace {

std::map<std::string, std::vector<CsvRow>> by_set(const std::vector<CsvRow>& rows) {
  std::map<std::string, std::vector<CsvRow>> out;
  for (const auto& r : rows) out[r.at("set")].push_back(r);
  return out;
}

// Checks the DeepBench sets of `table` against `csv`: `fields` maps a table field to its CSV column, `value`
// turns a CSV value into the table's spelling.
void expect_rows_match(const Table& table, const std::vector<CsvRow>& csv,
                       const std::map<std::string, std::string>& fields,
                       const std::function<std::string(const std::string&, const std::string&)>& value) {
  auto sets = by_set(csv);
  std::size_t checked = 0;
  for (const auto& set : table.sets) {
    auto it = sets.find(set.name);
    if (it == sets.end()) continue;
    ASSERT_EQ(set.rows.size(), it->second.size()) << set.name;
    for (std::size_t i = 0; i < set.rows.size(); ++i, ++checked) {
      SCOPED_TRACE(set.name + " row " + std::to_string(i));
      const Row& row = set.rows[i];
      for (const auto& [field, column] : fields)
        EXPECT_EQ(row.fields.at(field).text, value(field, it->second[i].at(column))) << field;
      EXPECT_EQ(row.application, it->second[i].at("application"));
    }
  }
  EXPECT_EQ(checked, csv.size());
}

std::map<std::string, const Case*> index(const std::vector<Case>& cases) {
  std::map<std::string, const Case*> out;
  for (const auto& c : cases) out[make_case_name(c)] = &c;
  return out;
}

std::string same(const std::string&, const std::string& v) { return v; }

}  // namespace

TEST(DeepBenchTables, GemmAll248Rows) {
  const auto csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_gemm.csv");
  ASSERT_EQ(csv.size(), 248u);
  EXPECT_EQ(by_set(csv)["train"].size(), 160u);
  EXPECT_EQ(by_set(csv)["inference_server"].size(), 75u);
  EXPECT_EQ(by_set(csv)["inference_device"].size(), 13u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/gemm.yaml");
  expect_rows_match(table, csv, {{"m", "m"}, {"n", "n"}, {"k", "k"}, {"ta", "trans_a"}, {"tb", "trans_b"}}, same);
  std::vector<Case> cases = expand_tables({table}, {});
  auto by_name = index(cases);
  for (const std::string precision : {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"}) {
    for (const auto& r : csv) {
      const std::string name = "gemm/fwd/" + precision + "/m=" + r.at("m") + "/n=" + r.at("n") + "/k=" + r.at("k") +
                               "/ta=" + r.at("trans_a") + "/tb=" + r.at("trans_b") + "/batch=1";
      auto it = by_name.find(name);
      ASSERT_NE(it, by_name.end()) << name;
      EXPECT_TRUE(it->second->sets.count(r.at("set"))) << name;
      if (!r.at("application").empty()) EXPECT_TRUE(it->second->applications.count(r.at("application"))) << name;
    }
  }
}

TEST(DeepBenchTables, ConvAll217Rows) {
  const auto csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_conv.csv");
  ASSERT_EQ(csv.size(), 217u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/conv.yaml");
  expect_rows_match(table, csv,
                    {{"n", "n"}, {"c", "c"}, {"h", "h"}, {"w", "w"}, {"k", "k"}, {"r", "filter_h"}, {"s", "filter_w"},
                     {"pad_h", "pad_h"}, {"pad_w", "pad_w"}, {"stride_h", "stride_h"}, {"stride_w", "stride_w"}},
                    same);
  const std::vector<Case> cases = expand_tables({table}, {});  // by_name points into it
  auto by_name = index(cases);
  for (const auto& r : csv) {
    const bool train = r.at("set") == "train";
    std::vector<std::string> precisions = {"fp32", "tf32", "fp16", "bf16"};
    if (!train) precisions.push_back("int8");
    for (const std::string direction : {"fwd", "bwd_data", "bwd_filter"}) {
      for (const auto& precision : precisions) {
        const std::string name = "conv/" + direction + "/" + precision + "/n=" + r.at("n") + "/c=" + r.at("c") +
                                 "/d=1/h=" + r.at("h") + "/w=" + r.at("w") + "/k=" + r.at("k") +
                                 "/t=1/r=" + r.at("filter_h") + "/s=" + r.at("filter_w") +
                                 "/pad_d=0/pad_h=" + r.at("pad_h") + "/pad_w=" + r.at("pad_w") +
                                 "/stride_d=1/stride_h=" + r.at("stride_h") + "/stride_w=" + r.at("stride_w") +
                                 "/dil_h=1/dil_w=1/groups=1/layout=NCHW";
        if (direction != std::string("fwd") && !train) continue;  // inference rows time the forward only
        auto it = by_name.find(name);
        ASSERT_NE(it, by_name.end()) << name;
        EXPECT_TRUE(it->second->sets.count(r.at("set"))) << name;
      }
    }
  }
}

TEST(DeepBenchTables, RnnAll125Rows) {
  const auto csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_rnn.csv");
  ASSERT_EQ(csv.size(), 125u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/rnn.yaml");
  auto cell = [](const std::string& field, const std::string& v) {
    return field == "cell" && v == "vanilla" ? std::string("rnn_relu") : v;  // DeepBench's vanilla RNN is ReLU
  };
  expect_rows_match(table, csv, {{"cell", "cell"}, {"hidden", "hidden"}, {"batch", "batch"}, {"steps", "timesteps"}},
                    cell);
  const std::vector<Case> cases = expand_tables({table}, {});  // by_name points into it
  auto by_name = index(cases);
  for (const auto& r : csv) {
    const bool train = r.at("set") == "train";
    const std::vector<std::string> directions =
        train ? std::vector<std::string>{"fwd_train", "bwd_data", "bwd_weights"} : std::vector<std::string>{"fwd"};
    for (const auto& direction : directions) {
      for (const std::string precision : {"fp32", "tf32", "fp16", "bf16"}) {
        // One layer, one direction, input = hidden, skip-input: DeepBench's configuration.
        const std::string name = "rnn/" + direction + "/" + precision + "/cell=" + cell("cell", r.at("cell")) +
                                 "/hidden=" + r.at("hidden") + "/batch=" + r.at("batch") + "/steps=" +
                                 r.at("timesteps") + "/input=" + r.at("hidden") +
                                 "/layers=1/bidir=no/input_mode=skip";
        auto it = by_name.find(name);
        ASSERT_NE(it, by_name.end()) << name;
        EXPECT_TRUE(it->second->sets.count(r.at("set"))) << name;
      }
    }
  }
}

TEST(DeepBenchTables, SparseAll32Rows) {
  const auto csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_sparse_gemm.csv");
  ASSERT_EQ(csv.size(), 32u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/spmm.yaml");
  expect_rows_match(table, csv, {{"m", "m"}, {"n", "n"}, {"k", "k"}, {"sparsity", "sparsity"}}, same);
  const std::vector<Case> cases = expand_tables({table}, {});  // by_name points into it
  auto by_name = index(cases);
  for (const auto& r : csv) {
    ASSERT_EQ(r.at("trans_a") + r.at("trans_b"), "NN");  // DeepBench's sparse rows are all NN, as spmm runs them
    for (const std::string precision : {"fp32", "fp16", "bf16"}) {
      const std::string name = "spmm/fwd/" + precision + "/m=" + r.at("m") + "/n=" + r.at("n") + "/k=" + r.at("k") +
                               "/sparsity=" + r.at("sparsity") + "/format=csr";
      auto it = by_name.find(name);
      ASSERT_NE(it, by_name.end()) << name;
      EXPECT_TRUE(it->second->sets.count(r.at("set"))) << name;
    }
  }
}

TEST(DeepBenchTables, AllReduceAll7Sizes) {
  const auto csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_all_reduce.csv");
  ASSERT_EQ(csv.size(), 7u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/all_reduce.yaml");
  auto sets = by_set(csv);
  const ShapeSet* train = nullptr;
  for (const auto& s : table.sets)
    if (s.name == "train") train = &s;
  ASSERT_NE(train, nullptr);
  ASSERT_EQ(train->rows.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(train->rows[i].fields.at("count").text, csv[i].at("floats"));
  Selection on8;
  on8.symbols = {{"G", 8}};
  const auto cases = expand_tables({table}, on8);
  auto by_name = index(cases);
  for (const auto& r : csv)
    EXPECT_TRUE(by_name.count("allreduce/fwd/fp32/count=" + r.at("floats") + "/ranks=8/op=sum/inplace=no"))
        << r.at("floats");
}
