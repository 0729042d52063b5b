#pragma once
// Text helpers shared by the tables, the flags and the aggregator.
#include <string>
#include <string_view>
#include <vector>

namespace opmark::core {

// The parts of `s` between `sep` characters, in order. With keep_empty, "a,,b" gives three parts and "" one
// (case names: every field is there); without, empty parts are dropped (comma lists in flags: "a,,b," is a, b).
inline std::vector<std::string> split(const std::string& s, char sep, bool keep_empty = true) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = s.find(sep, start);
    std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (keep_empty || !part.empty()) parts.push_back(std::move(part));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// `s` safe to print on a terminal: control characters (C0 and DEL) written as \xHH; line breaks kept where
// `keep_line_breaks` (a whole report of our own lines). A name or value from someone else's results file could
// otherwise hold ESC sequences that rewrite the screen, a CR that hides what came before it on the line, or a NUL
// that cuts the line short.
inline std::string terminal_text(std::string_view s, bool keep_line_breaks = false) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !(keep_line_breaks && c == '\n')) || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace opmark::core
