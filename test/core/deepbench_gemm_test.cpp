// shapes/gemm.yaml must hold DeepBench's GEMM table row for row: every row of DeepBench's CSV (a copy in
// test/data, so the test needs nothing outside the repository) is a registered case, in its set, with its
// application.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/table.h"

using namespace opmark::core;

namespace {

struct CsvRow {
  std::string set, m, n, k, ta, tb, application;
};

std::vector<CsvRow> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<CsvRow> rows;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the CSV has DOS line ends
    if (line.empty()) continue;
    std::stringstream s(line);
    CsvRow r;
    std::getline(s, r.set, ',');
    std::getline(s, r.m, ',');
    std::getline(s, r.n, ',');
    std::getline(s, r.k, ',');
    std::getline(s, r.ta, ',');
    std::getline(s, r.tb, ',');
    std::getline(s, r.application);  // the last column; quoted when it holds a comma
    if (r.application.size() >= 2 && r.application.front() == '"')
      r.application = r.application.substr(1, r.application.size() - 2);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

TEST(DeepBenchGemm, AllRowsAreInTheTable) {
  const std::vector<CsvRow> csv = read_csv(OPMARK_SOURCE_DIR "/test/data/deepbench_gemm.csv");
  ASSERT_EQ(csv.size(), 248u);
  Table table = load_table(OPMARK_SOURCE_DIR "/shapes/gemm.yaml");

  // Row for row, in order, within each DeepBench set.
  std::map<std::string, std::vector<const CsvRow*>> by_set;
  for (const auto& r : csv) by_set[r.set].push_back(&r);
  ASSERT_EQ(by_set["train"].size(), 160u);
  ASSERT_EQ(by_set["inference_server"].size(), 75u);
  ASSERT_EQ(by_set["inference_device"].size(), 13u);
  for (const auto& set : table.sets) {
    auto it = by_set.find(set.name);
    if (it == by_set.end()) continue;
    ASSERT_EQ(set.rows.size(), it->second.size()) << set.name;
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
      const Row& row = set.rows[i];
      const CsvRow& want = *it->second[i];
      SCOPED_TRACE(set.name + " row " + std::to_string(i));
      EXPECT_EQ(row.fields.at("m").text, want.m);
      EXPECT_EQ(row.fields.at("n").text, want.n);
      EXPECT_EQ(row.fields.at("k").text, want.k);
      EXPECT_EQ(row.fields.at("ta").text, want.ta);
      EXPECT_EQ(row.fields.at("tb").text, want.tb);
      EXPECT_EQ(row.application, want.application);
    }
  }

  // Every row registers as a case in every precision the issue names, tagged with its set.
  std::map<std::string, const Case*> by_name;
  std::vector<Case> cases = expand_tables({table}, {});
  for (const auto& c : cases) by_name[make_case_name(c)] = &c;
  for (const std::string precision : {"fp32", "tf32", "fp16", "bf16", "int8", "fp8"}) {
    for (const auto& r : csv) {
      const std::string name = "gemm/fwd/" + precision + "/m=" + r.m + "/n=" + r.n + "/k=" + r.k + "/ta=" + r.ta +
                               "/tb=" + r.tb + "/batch=1";
      auto it = by_name.find(name);
      ASSERT_NE(it, by_name.end()) << name;
      EXPECT_TRUE(it->second->sets.count(r.set)) << name;
      if (!r.application.empty()) EXPECT_TRUE(it->second->applications.count(r.application)) << name;
    }
  }
}
