#include "aggregate/files.h"

#include <algorithm>

#ifdef OPMARK_HAVE_ZLIB
#include <zlib.h>
#endif

#include "core/error.h"

namespace opmark::aggregate {

using core::size_text;

std::string read_input_file(const std::string& path, const std::string& what, bool inflate, Links links,
                            const ReadLimits& limits) {
  core::InputFile file = core::open_regular_file(path, what, links, limits.max_bytes);
  const std::size_t size = file.size();
#ifdef OPMARK_HAVE_ZLIB
  if (inflate) {
    // zlib reads a plain file as it is and inflates a compressed one, within a bound on both the size and the ratio.
    const double by_ratio = static_cast<double>(limits.ratio_free_bytes) + limits.max_ratio * static_cast<double>(size);
    const std::size_t bound =
        by_ratio < static_cast<double>(limits.max_bytes) ? static_cast<std::size_t>(by_ratio) : limits.max_bytes;
    gzFile gz = gzdopen(file.fd(), "rb");
    if (!gz) throw Error(path + ": cannot read " + what);
    file.release();  // gzclose closes it
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(gz, buf, sizeof buf)) > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > bound) {
        gzclose(gz);
        if (bound == limits.max_bytes)
          throw Error(path + ": " + what + " inflates to more than " + size_text(limits.max_bytes) + ", over the limit");
        throw Error(path + ": " + what + " of " + std::to_string(size) + " bytes inflates to more than " +
                    size_text(bound) + " (over " + std::to_string(static_cast<int>(limits.max_ratio)) +
                    " times its size beyond the first " + size_text(limits.ratio_free_bytes) +
                    "): not a results file (a gzip bomb?)");
      }
    }
    int err = Z_OK;
    const std::string message = gzerror(gz, &err);
    gzclose(gz);
    // A compressed stream that stops before its end (no trailer): a file cut short, at a line boundary or not.
    if (err == Z_BUF_ERROR)
      throw Error(path + ": the compressed " + what + " stops short of its end (" + message +
                  "): the file was cut off (an unfinished copy or download?); nothing of it is used");
    if (n < 0 || err != Z_OK) throw Error(path + ": not a readable gzip file (" + message + ")");
    return out;
  }
#endif
  std::string out = core::read_to_limit(file, path, what, limits.max_bytes);
  if (inflate && out.size() >= 2 && static_cast<unsigned char>(out[0]) == 0x1f && static_cast<unsigned char>(out[1]) == 0x8b)
    throw Error(path + ": gzip-compressed, and this build has no zlib (install zlib1g-dev and re-run cmake, or gunzip it)");
  return out;
}

void write_output_file(const std::string& path, const std::string& text) { core::write_file_atomically(path, text); }

BracketScan scan_brackets(std::string_view text, int max_depth) {
  BracketScan scan;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++scan.depth > max_depth && scan.too_deep_at == std::string_view::npos) scan.too_deep_at = i;
    } else if (c == ']' || c == '}') {
      --scan.depth;  // below zero only in text that is no JSON, which the parser refuses at that bracket
    }
  }
  return scan;
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
