// The results page shows checked bundles as results and nothing else (issue 53): a plain run appears only with
// --runs, in a part of its own, every time marked "not checked", and in no score, speedup or case table; a bundle with
// files missing stays a rejected bundle. On copies of the committed bundles, beside a run fabricated from one of them
// (every time x0.25, the GPU renamed "B200"), as the issue found published as "4.0x over H100".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../file_util.h"
#include "aggregate/cli.h"
#include "aggregate/results.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace opmark::aggregate;

namespace {

const fs::path kResults = fs::path(OPMARK_SOURCE_DIR) / "results";
const char* kH100 = "nvidia-h100-80gb-hbm3";
const char* kH200 = "nvidia-h200";

int run(std::vector<std::string> words) {
  words.insert(words.begin(), "opmark-aggregate");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

// The page's embedded data: what its script draws every table from.
json page_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"opmark-data\">";
  const std::size_t from = html.find(open);
  if (from == std::string::npos) return nullptr;
  const std::size_t start = from + open.size();
  return json::parse(html.substr(start, html.find("</script>", start) - start));
}

class PageRuns : public opmark::test::ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    results_ = dir_ / "results";
    fs::create_directories(results_);
    for (const char* bundle : {kH100, kH200})
      fs::copy(kResults / bundle, results_ / bundle, fs::copy_options::recursive);
  }
  // The H100 run as a plain run: every time x0.25, the GPU "NVIDIA B200".
  void fabricate_run(const fs::path& dir) {
    std::istringstream in(read_results_text((kResults / kH100 / "run" / "results.jsonl.gz").string()));
    std::string text;
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line);
      if (j.value("type", "") == "context") j["context"]["gpu"] = "NVIDIA B200";
      if (j.contains("time_us") && j["time_us"].is_number()) j["time_us"] = j["time_us"].get<double>() * 0.25;
      text += j.dump() + "\n";
    }
    fs::create_directories(dir);
    opmark::test::write_file(dir / "results.jsonl", text);
  }
  std::string page(const std::vector<std::string>& extra, int expect = 0) {
    const fs::path out = dir_ / "index.html";
    fs::remove(out);
    std::vector<std::string> words = {"page", results_.string(), "--out=" + out.string()};
    words.insert(words.end(), extra.begin(), extra.end());
    EXPECT_EQ(run(words), expect);
    return fs::exists(out) ? opmark::test::read_file(out) : std::string();
  }
  fs::path results_;
};

TEST_F(PageRuns, AFabricatedRunReachesNoHeadlineScoreOrSpeedup) {
  fabricate_run(results_ / "b200");
  // Without --runs: counted, not shown.
  std::string html = page({});
  EXPECT_EQ(html.find("B200"), std::string::npos);
  EXPECT_NE(html.find("1 plain run not shown: no checker has seen them"), std::string::npos);
  // With --runs: apart, after the bundles; the data every table is drawn from holds the two bundles only.
  html = page({"--runs"});
  const json data = page_data(html);
  ASSERT_TRUE(data.is_object());
  EXPECT_EQ(data.dump().find("B200"), std::string::npos);
  EXPECT_EQ(data["bundles"].size(), 2u);
  ASSERT_TRUE(data.contains("speedups"));
  EXPECT_EQ(data["speedups"]["pairs"].size(), 2u);
  for (const auto& k : data["cases"]) EXPECT_EQ(k["r"].size(), 2u) << k["name"];
  const std::size_t part = html.find("<section id=\"runs\">");
  ASSERT_NE(part, std::string::npos);
  EXPECT_LT(html.find("B200"), html.size());
  EXPECT_GT(html.find("B200"), part);  // the name appears in the runs' part only
  EXPECT_NE(html.find("<h2>Plain runs: not checked</h2>"), std::string::npos);
  // Every time of the run carries the mark.
  const std::string runs_part = html.substr(part, html.find("</section>", part) - part);
  const std::regex cell("<td class=\"num unchecked\">([^<]*)(<small>([^<]*)</small>)?</td>");
  int times = 0;
  for (std::sregex_iterator it(runs_part.begin(), runs_part.end(), cell), end; it != end; ++it) {
    if ((*it)[1].str().empty()) continue;  // a case with no time
    ++times;
    EXPECT_EQ((*it)[3].str(), "not checked") << it->str();
  }
  EXPECT_GT(times, 1000);
  // A run cut off mid-line says so in its part, as a bundle's warnings do.
  {
    std::ofstream torn(results_ / "b200" / "results.jsonl", std::ios::app);
    torn << "{\"type\":\"run\",\"name\":\"gemm/fwd";
  }
  EXPECT_NE(page({"--runs"}).find("is incomplete: the run stopped there"), std::string::npos);
}

// A bundle the checker rejects, its system.yaml deleted and its log gunzipped, is still a rejected bundle: it is
// named with the reason and shown nowhere, even with --runs.
TEST_F(PageRuns, ABundleWithFilesMissingStaysRejected) {
  const fs::path broken = results_ / "broken";
  fs::copy(results_ / kH200, broken, fs::copy_options::recursive);
  fs::remove(broken / "system.yaml");
  opmark::test::write_file(broken / "run" / "results.jsonl",
                           read_results_text((broken / "run" / "results.jsonl.gz").string()));
  fs::remove(broken / "run" / "results.jsonl.gz");
  const std::string html = page({"--runs"});
  EXPECT_NE(html.find("an incomplete bundle: it holds part of one"), std::string::npos);
  EXPECT_EQ(html.find("<section id=\"runs\">"), std::string::npos);
  EXPECT_EQ(page_data(html)["bundles"].size(), 2u);
  // Only its run/ left, and that named results.jsonl: the folder still holds part of a bundle.
  for (const char* part : {"scores.json", "spreadsheet"}) fs::remove_all(broken / part);
  EXPECT_EQ(page_data(page({"--runs"}))["bundles"].size(), 2u);
  // Alone, it gives no page.
  for (const char* bundle : {kH100, kH200}) fs::remove_all(results_ / bundle);
  EXPECT_EQ(page({"--runs"}, 2), "");
}

}  // namespace
