// core/result_record.h: every line opmark ever committed (the submitted bundles, v1 and v2, and the test fixtures)
// reads into a record and writes back as the same JSON, byte for byte where the writer wrote it; unknown keys
// survive; errors name the line and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "aggregate/results.h"
#include "aggregate/system_description.h"
#include "core/error.h"
#include "core/result_record.h"

using namespace opmark;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> committed_logs() {
  const fs::path root(OPMARK_SOURCE_DIR);
  std::vector<fs::path> logs;
  for (const char* dir : {"results", "test/data"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string name = e.path().filename().string();
      if (name == "results.jsonl" || name == "results.jsonl.gz" ||
          (name.rfind("results_", 0) == 0 && e.path().extension() == ".jsonl"))
        logs.push_back(e.path());
    }
  return logs;
}

}  // namespace

TEST(ResultRecord, EveryCommittedLineRoundTrips) {
  const std::vector<fs::path> logs = committed_logs();
  ASSERT_GE(logs.size(), 8u);
  std::size_t bundles = 0;
  for (const auto& path : logs) {
    bundles += path.extension() == ".gz";
    std::istringstream text(aggregate::read_results_text(path.string()));
    std::string line;
    for (int number = 1; std::getline(text, line); ++number) {
      if (line.empty()) continue;
      const std::string where = path.string() + ":" + std::to_string(number);
      const json read = json::parse(line);
      const core::ResultRecord record = core::from_json(read, where);
      const json written = core::to_json(record);
      EXPECT_EQ(written, read) << where;
      // The writer's own lines come back as the same bytes (hand-written fixtures may space or order theirs).
      if (path.extension() == ".gz") EXPECT_EQ(written.dump(), line) << where;
    }
  }
  EXPECT_EQ(bundles, 3u);  // the H100 and H200 submissions, and the v4 H200 bundle kept as a checker fixture
}

TEST(ResultRecord, UnknownKeysSurvive) {
  const json line = json::parse(R"({"type":"run","name":"c","status":"ok","time_us":5,"repetition":0,
                                    "from_the_future":{"a":[1,2]},"aggregate":"stray"})");
  const core::ResultRecord r = core::from_json(line, "r.jsonl:2");
  EXPECT_EQ(r.extra.at("from_the_future"), json::parse(R"({"a":[1,2]})"));
  EXPECT_EQ(r.extra.at("aggregate"), "stray");  // a run line's "aggregate" is no field of a run line
  EXPECT_EQ(core::to_json(r), line);
  const json other = json::parse(R"({"type":"heartbeat","at":3})");
  EXPECT_EQ(core::to_json(core::from_json(other, "r.jsonl:3")), other);
  const json summary = json::parse(R"({"type":"summary","ok":3,"skipped":0,"failed":1,"wall_s":2.5})");
  EXPECT_EQ(core::to_json(core::from_json(summary, "r.jsonl:4")), summary);
}

TEST(ResultRecord, TypedFields) {
  const core::ResultRecord r = core::from_json(
      json::parse(R"({"type":"aggregate","aggregate":"median","name":"c","status":"unstable","time_us":2.5,
                      "iterations":40,"counters":{"flops":1e9,"noise":null},"sets":["train"],
                      "kernels":["nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_NNT","splitKreduce_kernel"]})"),
      "r.jsonl:2");
  EXPECT_EQ(r.kind, core::RecordKind::aggregate);
  EXPECT_EQ(r.status, core::CaseStatus::unstable);
  EXPECT_TRUE(r.timed());
  EXPECT_EQ(r.aggregate, "median");
  EXPECT_EQ(*r.iterations, 40);
  EXPECT_DOUBLE_EQ(*r.time_us, 2.5);
  EXPECT_TRUE(std::isnan(r.counters->at("noise")));  // NaN is written as null, and read back as NaN
  EXPECT_EQ(r.sets->at(0), "train");
  ASSERT_TRUE(r.kernels);
  EXPECT_EQ(r.kernels->at(1), "splitKreduce_kernel");
  EXPECT_TRUE(r.extra.empty());  // kernels is a field, not an unknown key
  EXPECT_FALSE(r.repetition);
}

TEST(ResultRecord, ContextValuesKeepTheirTypes) {
  const json line = json::parse(R"({"type":"context","context":{"gpu":"G","sm_count":132,"power_limit_w":700.0,
                                    "noise_target":0.01,"results_format":2,"old":"79.178711"}})");
  const core::ResultRecord r = core::from_json(line, "r.jsonl:1");
  EXPECT_TRUE(r.context.at("sm_count").is_number_integer());
  EXPECT_EQ(core::to_json(r).dump(), line.dump());
  EXPECT_EQ(core::context_text(r.context.at("sm_count")), "132");
  EXPECT_EQ(core::context_text(r.context.at("noise_target")), "0.01");
  EXPECT_EQ(core::context_text(r.context.at("results_format")), "2");
  EXPECT_EQ(core::context_text(r.context.at("old")), "79.178711");  // an older file's text stays text
}

TEST(ResultRecord, ErrorsNameTheLineAndTheField) {
  const auto error = [](const std::string& text) {
    try {
      core::from_json(json::parse(text), "r.jsonl:7");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"type":"run","name":"c","status":"ok","time_us":"5"})"),
            "r.jsonl:7: field 'time_us': expected a number, got a string");
  EXPECT_EQ(error(R"({"type":"run","name":"c","status":"ok","time_us":1,"iterations":1.5})"),
            "r.jsonl:7: field 'iterations': expected a count, got 1.5");
  EXPECT_EQ(error(R"({"type":"run","name":"c","status":"ok","time_us":1,"counters":{"x":"y"}})"),
            "r.jsonl:7: field 'counters': expected numbers, got a string for 'x'");
  EXPECT_EQ(error(R"({"type":"run","name":"","status":"ok","time_us":1})"),
            "r.jsonl:7: field 'name': expected a case name, got an empty string");
  EXPECT_EQ(error("[1]"), "r.jsonl:7: expected a JSON object, got an array");
}

// A run's context as the writer types it now (numbers) and as the committed bundles hold it (all text): the
// aggregator reads the same facts, and pack writes the same system.yaml from both.
TEST(ResultRecord, TypedAndTextContextsPackTheSameSystemDescription) {
  const std::string text = R"({"type":"context","context":{"gpu":"G","gpu_count_used":"1","memory_gib":"79.178711",)"
                           R"("rules_version":"2","results_format":"2","compute_capability":"9.0","git":"abc"}})";
  const std::string typed = R"({"type":"context","context":{"gpu":"G","gpu_count_used":1,"memory_gib":79.1787109375,)"
                            R"("rules_version":2,"results_format":2,"compute_capability":"9.0","git":"abc"}})";
  const auto context_of = [](const std::string& line) {
    return aggregate::parse_results(line + "\n", "r.jsonl", aggregate::Statistic::median).context;
  };
  const auto old_context = context_of(text), new_context = context_of(typed);
  EXPECT_EQ(new_context.at("rules_version"), "2");
  EXPECT_EQ(new_context.at("results_format"), "2");
  aggregate::Submitter who;
  who.vendor = "V";
  EXPECT_EQ(aggregate::system_yaml(new_context, who), aggregate::system_yaml(old_context, who));
  EXPECT_EQ(aggregate::system_value(new_context, "memory_gib"), "79.2");
}
