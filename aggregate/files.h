#pragma once
// The files the aggregator reads and writes, within limits: a results file is someone else's text (a bundle comes
// from a submitter), so nothing here trusts its size, its nesting, what kind of file it is or where a link in it
// points. Readers take regular files only (never a device or a pipe: /dev/zero would be read until memory runs
// out), inflate gzip with a bound on the size and on the ratio (a gzip bomb), and say when a compressed stream
// stops short of its end (a cut file). Writers never follow a symbolic link: a link planted where an output goes
// would otherwise have any file it points to overwritten.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/file_access.h"
#include "core/json_fields.h"

namespace opmark::aggregate {

// The limits on what a reader takes. The defaults are far above any real run and far below what hurts:
// - max_bytes: 1 GiB of text, decompressed. A full rules-v1 run is 8.5 MB of results.jsonl and 15 MB of
//   benchmark.json (1322 cases x 5 repetitions); rules v2's up to 30 repetitions and every precision of every table
//   stay under a few hundred MB.
// - max_ratio over ratio_free_bytes: a compressed file may inflate to ratio_free_bytes (16 MiB) plus max_ratio (100)
//   times its own size. Results compress about 14:1 (the committed bundles' results.jsonl and benchmark.json: 8.5 MB
//   in 606 KB, 15 MB in 976 KB); deflate's best is about 1000:1 (a gzip bomb: 1 MB that inflates to 1 GB), so
//   100:1 is well above any results log and far under a bomb, which is refused after at most 16 MiB + 100 times
//   its size of text.
// - max_line_bytes: 1 MiB per results.jsonl line. opmark-bench writes about 1.2 KB per line (a few KB with a
//   re-time's remeasured repetitions); one line is parsed whole, at several times its size in memory.
// - max_depth: 64 levels of JSON nesting. opmark writes 3 (a line, its counters or sets); the JSON library copies,
//   compares and writes nested values recursively, so 100 000 levels crash it (a stack overflow, not an exception).
struct ReadLimits {
  std::size_t max_bytes = std::size_t{1} << 30;
  double max_ratio = 100;
  std::size_t ratio_free_bytes = std::size_t{16} << 20;
  std::size_t max_line_bytes = std::size_t{1} << 20;
  int max_depth = 64;
};

// How a reader treats a symbolic link at the path (core/file_access.h): a file inside a bundle may not be one
// (bundle_file_text).
using core::Links;

// The whole of a regular file; gzip-inflated where `inflate` and it is compressed (zlib reads a plain file as it is).
// Throws opmark::Error naming the file and `what` it is for when it cannot be opened, is not a regular file (a
// folder, device or pipe), is a symbolic link under Links::refuse, is larger than the limits allow, is compressed
// but cut short or corrupt, or is compressed and this build has no zlib.
std::string read_input_file(const std::string& path, const std::string& what, bool inflate, Links links,
                            const ReadLimits& limits = ReadLimits{});

// Writes `text` to `path` (creating its folder) atomically, through a temporary file renamed over it
// (core::write_file_atomically): a failed write (a full disk) leaves the previous file whole. Refuses to write
// through a symbolic link at the path or into anything but a regular file. Throws opmark::Error naming the path.
void write_output_file(const std::string& path, const std::string& text);

// The brackets of JSON text outside its strings: the depth at the end, where it first went past `max_depth` (npos:
// never), and the colons (in valid JSON, the objects' keys: more of them than the parsed objects hold members means
// a key given twice in one object, which the JSON library keeps once, silently).
struct BracketScan {
  int depth = 0;
  std::size_t too_deep_at = std::string_view::npos;
  std::size_t keys = 0;
};
BracketScan scan_brackets(std::string_view text, int max_depth);
// The offset in `text` at which JSON nesting ([ and { outside strings) first goes deeper than `max_depth`, or npos.
std::size_t json_too_deep(std::string_view text, int max_depth);

// The members of every object in `value`, nested ones too: what BracketScan::keys counts in its text when no key
// repeats.
std::size_t json_members(const nlohmann::json& value);
// Throws opmark::Error "<where>: the key "K" appears twice in one object ..." where `parsed` (from `text`, whose
// scan is `scan`) holds fewer members than the text has keys. For opmark's own lines: Google Benchmark's JSON writes
// "repetitions" twice in each run.
void require_unique_keys(std::string_view text, const BracketScan& scan, const nlohmann::json& parsed,
                         const std::string& where);

// A whole JSON document (scores.json, benchmark.json) parsed after json_too_deep: throws opmark::Error
// "<path>:<line>: JSON nested deeper than N levels" or "<path>:<line>: not valid JSON (...)".
nlohmann::json parse_json_document(std::string_view text, const std::string& path, const ReadLimits& limits = ReadLimits{});

// The line (1-based) of a byte offset in `text`.
int line_at(std::string_view text, std::size_t offset);

// What a JSON value is, for messages (core/json_fields.h).
using core::json_kind;

}  // namespace opmark::aggregate
