#pragma once
// Google Benchmark's JSON (benchmark.json) as results records (core/result_record.h): the one place outside bench/
// that knows Google Benchmark's conventions (the "/manual_time" suffix of a manually timed case's name, the
// "SKIPPED " prefix opmark's harness gives a skip message, "opmark_" context keys, time units, aggregates by
// name), so the aggregator and the checker read one kind of record whichever file a run left.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result_record.h"

namespace opmark::aggregate {

struct BenchmarkJsonRecords {
  core::ResultRecord context;  // the "opmark_" keys of Google Benchmark's context, without the prefix
  // A record per benchmark entry that is a time or a status (the median and mean aggregates, not stddev or cv),
  // with where it came from ("b.json: benchmarks[3]") for messages.
  std::vector<std::pair<std::string, core::ResultRecord>> cases;
};

// Throws opmark::Error naming the file, the entry and the field ("b.json: benchmarks[0]: field 'real_time':
// expected a number, got a string"), and a time outside [kMinTimeUs, kMaxTimeUs] after its unit (results.h).
BenchmarkJsonRecords records_from_benchmark_json(const nlohmann::json& root, const std::string& path);

// Google Benchmark writes a counter's undefined statistic (the cv of a constant) as a bare NaN, which JSON has no
// word for: `text` with the bare tokens NaN, -NaN, Infinity, -Infinity, inf, -inf outside strings as null.
std::string nan_as_null(const std::string& text);

}  // namespace opmark::aggregate
