// core/result_record.h: every line opmark ever committed (the submitted bundles, v1 and v2, and the test fixtures)
// reads into a record and writes back as the same JSON, byte for byte where the writer wrote it; unknown keys
// survive; errors name the line and the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "aggregate/case_line_reader.h"
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

// aggregate/case_line_reader.h: the fast reader takes every case line of every committed log, each read as
// core::from_json reads it (compared as written back: a NaN counter writes as null either way).
TEST(CaseLineReader, EveryCommittedCaseLineReadsAsTheJsonLibraryReadsIt) {
  if (!aggregate::CaseLineReader::available()) GTEST_SKIP() << "built without simdjson";
  aggregate::CaseLineReader fast;
  std::size_t case_lines = 0;
  for (const auto& path : committed_logs()) {
    std::istringstream text(aggregate::read_results_text(path.string()));
    std::string line;
    for (int number = 1; std::getline(text, line); ++number) {
      if (line.empty()) continue;
      const std::string where = path.string() + ":" + std::to_string(number);
      const core::ResultRecord slow = core::from_json(json::parse(line), where);
      const std::optional<core::ResultRecord> read = fast.read(line, false);
      if (!slow.is_case() || !slow.extra.empty()) {
        EXPECT_FALSE(read) << where << ": not a case line of known keys, left to the JSON library";
        continue;
      }
      ++case_lines;
      ASSERT_TRUE(read) << where;
      EXPECT_EQ(core::to_json(*read).dump(), core::to_json(slow).dump()) << where;
    }
  }
  EXPECT_GT(case_lines, 10000u);
}

// Every way a case line can be broken or unusual: the fast reader leaves the line to core::from_json wherever that
// throws, and where it takes a line it reads it as from_json does.
TEST(CaseLineReader, AnyLineItDoesNotReadAsTheJsonLibraryWouldIsLeftToIt) {
  if (!aggregate::CaseLineReader::available()) GTEST_SKIP() << "built without simdjson";
  const std::string base = R"({"type":"run","name":"gemm/fwd/fp16/m=8","status":"ok","repetition":2,)"
                           R"("iterations":40,"time_us":2.5,"counters":{"flops":1e9,"noise":null},)"
                           R"("sets":["train"],"applications":["DeepSpeech"],"models":[],"label":"l","regime":"burst"})";
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string line = base;
    const std::size_t at = line.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return line.replace(at, from.size(), to);
  };
  const std::vector<std::string> lines = {
      base,
      with(R"("status":"ok")", R"("status":"ok","status":"failed")"),
      with(R"("noise":null)", R"("noise":null,"noise":1)"),
      with(R"("label":"l")", R"("label":"l","from_the_future":1)"),
      with(R"("repetition":2)", R"("repetition":2,"aggregate":"median")"),
      with(R"("type":"run")", R"("type":"aggregate")"),
      with(R"("type":"run")", R"("type":"aggregate","aggregate":"median")"),
      with(R"("type":"run")", R"("type":"summary")"),
      with(R"("type":"run")", R"("type":7)"),
      with(R"("name":"gemm/fwd/fp16/m=8")", R"("name":"")"),
      with(R"("name":"gemm/fwd/fp16/m=8")", R"("name":8)"),
      with(R"("name":"gemm/fwd/fp16/m=8",)", ""),
      with(R"("status":"ok",)", ""),
      with(R"("status":"ok")", R"("status":"fine")"),
      with(R"("repetition":2)", R"("repetition":-1)"),
      with(R"("repetition":2)", R"("repetition":2.0)"),
      with(R"("repetition":2)", R"("repetition":1e9)"),
      with(R"("iterations":40)", R"("iterations":1.5)"),
      with(R"("iterations":40)", R"("iterations":18446744073709551615)"),
      with(R"("iterations":40)", R"("iterations":9000000000000000000)"),
      with(R"("time_us":2.5)", R"("time_us":"2.5")"),
      with(R"("time_us":2.5)", R"("time_us":1e999)"),
      with(R"("time_us":2.5)", R"("time_us":-0)"),
      with(R"("time_us":2.5)", R"("time_us":12345678901234567890)"),
      with(R"("time_us":2.5)", R"("time_us":true)"),
      with(R"("flops":1e9)", R"("flops":"many")"),
      with(R"("counters":{"flops":1e9,"noise":null})", R"("counters":[1])"),
      with(R"("sets":["train"])", R"("sets":[1])"),
      with(R"("sets":["train"])", R"("sets":"train")"),
      with(R"("label":"l")", R"("label":{"deep":[[[[1]]]]})"),
      with(R"("label":"l")", R"("label":"caf\u00e9 \"q\" \\ \n")"),
      with(R"("label":"l")", "\"label\":\"\xff\""),  // not UTF-8
      with(R"("label":"l")", "\"label\":\"a\tb\""),  // a raw tab inside a string
      base + " x",
      base.substr(0, base.size() - 1),
      "[" + base + "]",
      "",
  };
  aggregate::CaseLineReader fast;
  for (const std::string& line : lines) {
    std::optional<core::ResultRecord> slow;
    try {
      slow = core::from_json(json::parse(line), "r.jsonl:1");
    } catch (const std::exception&) {
    }
    const std::optional<core::ResultRecord> read = fast.read(line, false);
    if (!slow) EXPECT_FALSE(read) << line;
    else if (read) EXPECT_EQ(core::to_json(*read).dump(), core::to_json(*slow).dump()) << line;
  }
  EXPECT_TRUE(fast.read(lines[0], false));
}

// A reader of times alone keeps no lines, and reads the same times, counters and statuses as one that keeps them.
TEST(CaseLineReader, ResultsReadWithoutTheirLinesHoldTheSameCases) {
  for (const auto& path : committed_logs()) {
    const std::string text = aggregate::read_results_text(path.string());
    const auto read = [&](aggregate::Lines lines, std::string& error) {
      try {
        return aggregate::parse_results(text, path.string(), aggregate::Statistic::median, {}, {}, lines);
      } catch (const Error& e) {  // a fixture of a broken log: both ways say the same
        error = e.what();
        return aggregate::ResultSet{};
      }
    };
    std::string keep_error, drop_error;
    const auto keep = read(aggregate::Lines::keep, keep_error);
    const auto drop = read(aggregate::Lines::drop, drop_error);
    EXPECT_EQ(drop_error, keep_error);
    ASSERT_EQ(keep.cases.size(), drop.cases.size()) << path;
    for (const auto& [name, r] : keep.cases) {
      const aggregate::CaseResult& d = drop.cases.at(name);
      EXPECT_TRUE(d.lines.empty());
      EXPECT_EQ(d.status, r.status) << name;
      EXPECT_EQ(d.time_us, r.time_us) << name;
      EXPECT_EQ(d.reps_us, r.reps_us) << name;
      EXPECT_EQ(d.counters, r.counters) << name;
      EXPECT_EQ(d.label, r.label) << name;
    }
  }
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
