#include "aggregate/files.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#ifdef OPMARK_HAVE_ZLIB
#include <zlib.h>
#endif

#include "core/error.h"
#include "core/text.h"

namespace opmark::aggregate {

using core::size_text;

namespace {

// Where bytes begin a gzip member (its magic number).
bool gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace

#ifdef OPMARK_HAVE_ZLIB
namespace {

// Every gzip member of `raw` inflated, within `bound` bytes; bytes after the last member that are no gzip member
// are an error (a file appended to, or two files joined: gzread would skip them silently).
std::string inflate_members(const std::string& raw, const std::string& path, const std::string& what,
                            std::size_t bound, const ReadLimits& limits) {
  if (raw.size() > std::numeric_limits<uInt>::max()) throw Error(path + ": " + what + " over 4 GiB compressed: not read");
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) throw Error(path + ": cannot read " + what + " (zlib)");
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > bound) {
      if (bound == limits.max_bytes)
        throw Error(path + ": " + what + " inflates to more than " + size_text(limits.max_bytes) + ", over the limit");
      throw Error(path + ": " + what + " of " + std::to_string(raw.size()) + " bytes inflates to more than " +
                  size_text(bound) + " (over " + std::to_string(static_cast<int>(limits.max_ratio)) +
                  " times its size beyond the first " + size_text(limits.ratio_free_bytes) +
                  "): not a results file (a gzip bomb?)");
    }
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) return out;
      if (gzip_magic({reinterpret_cast<const char*>(zs.next_in), zs.avail_in}) && inflateReset(&zs) == Z_OK)
        continue;  // another member
      throw Error(path + ": " + std::to_string(zs.avail_in) + " bytes follow the end of the compressed " + what +
                  " (appended to, or two files joined?): not read");
    }
    if (rc == Z_OK) continue;
    // A compressed stream that stops before its end (no trailer): a file cut short, at a line boundary or not.
    if (rc == Z_BUF_ERROR && zs.avail_in == 0)
      throw Error(path + ": the compressed " + what + " stops short of its end (unexpected end of file): the file was "
                  "cut off (an unfinished copy or download?); nothing of it is used");
    throw Error(path + ": not a readable gzip file (" + std::string(zs.msg ? zs.msg : "zlib error " + std::to_string(rc)) +
                ")");
  }
}

}  // namespace
#endif

std::string read_input_file(const std::string& path, const std::string& what, bool inflate, Links links,
                            const ReadLimits& limits) {
  core::InputFile file = core::open_regular_file(path, what, links, limits.max_bytes);
  std::string out = core::read_to_limit(file, path, what, limits.max_bytes);
  const bool compressed = gzip_magic(out);
#ifdef OPMARK_HAVE_ZLIB
  if (inflate && compressed) {
    // Inflated within a bound on both the size and the ratio.
    const double by_ratio =
        static_cast<double>(limits.ratio_free_bytes) + limits.max_ratio * static_cast<double>(out.size());
    const std::size_t bound =
        by_ratio < static_cast<double>(limits.max_bytes) ? static_cast<std::size_t>(by_ratio) : limits.max_bytes;
    return inflate_members(out, path, what, bound, limits);
  }
#endif
  if (inflate && compressed)
    throw Error(path + ": gzip-compressed, and this build has no zlib (install zlib1g-dev and re-run cmake, or gunzip it)");
  return out;
}

void write_output_file(const std::string& path, const std::string& text) { core::write_file_atomically(path, text); }

BracketScan scan_brackets(std::string_view text, int max_depth) {
  BracketScan scan;
  core::for_each_json_structure(text, 0, [&](std::size_t i, char c) {
    if (c == '[' || c == '{') {
      if (++scan.depth > max_depth && scan.too_deep_at == std::string_view::npos) scan.too_deep_at = i;
    } else if (c == ']' || c == '}') {
      --scan.depth;  // below zero only in text that is no JSON, which the parser refuses at that bracket
    } else if (c == ':') {
      ++scan.keys;
    }
    return true;
  });
  return scan;
}

std::size_t json_members(const nlohmann::json& value) {
  std::size_t members = value.is_object() ? value.size() : 0;
  if (value.is_structured())
    for (const auto& item : value) members += json_members(item);
  return members;
}

namespace {

// The first key given twice in one object of `text` (empty: none), found by parsing it again and keeping each
// object's keys: only where the counts already say one repeats.
std::string first_repeated_key(std::string_view text) {
  std::vector<std::set<std::string>> open;
  std::string repeated;
  const nlohmann::json::parser_callback_t note = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::object_start) open.emplace_back();
    else if (event == nlohmann::json::parse_event_t::object_end && !open.empty()) open.pop_back();
    else if (event == nlohmann::json::parse_event_t::key && !open.empty() && repeated.empty() &&
             !open.back().insert(parsed.get<std::string>()).second)
      repeated = parsed.get<std::string>();
    return true;
  };
  try {
    const nlohmann::json reparsed = nlohmann::json::parse(text, note);
    (void)reparsed;
  } catch (const nlohmann::json::exception&) {
  }
  return repeated;
}

}  // namespace

void require_unique_keys(std::string_view text, const BracketScan& scan, const nlohmann::json& parsed,
                         const std::string& where) {
  if (json_members(parsed) == scan.keys) return;
  const std::string key = first_repeated_key(text);
  throw Error(where + ": the key \"" + (key.empty() ? "?" : key) +
              "\" appears twice in one object (a JSON reader keeps one of the two silently; opmark writes each once): "
              "not read");
}

std::size_t json_too_deep(std::string_view text, int max_depth) { return scan_brackets(text, max_depth).too_deep_at; }

int line_at(std::string_view text, std::size_t offset) {
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size()));
  return 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
}

nlohmann::json parse_json_document(std::string_view text, const std::string& path, const ReadLimits& limits) {
  if (text.size() > limits.max_bytes) throw Error(path + ": over the limit of " + size_text(limits.max_bytes));
  const std::size_t deep = json_too_deep(text, limits.max_depth);
  if (deep != std::string_view::npos)
    throw Error(path + ":" + std::to_string(line_at(text, deep)) + ": JSON nested deeper than " +
                std::to_string(limits.max_depth) + " levels (opmark writes a few): not read");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ":" + std::to_string(line_at(text, e.byte)) + ": not valid JSON (" + e.what() + ")");
  } catch (const nlohmann::json::exception& e) {  // a number out of range (1e999)
    throw Error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace opmark::aggregate
