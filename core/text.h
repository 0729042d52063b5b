#pragma once
// Text helpers shared by the tables, the flags and the aggregator.
#include <algorithm>
#include <cstddef>
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

// Edits turning `pattern` into `text`, or into the best part of it: free_start lets the part begin anywhere,
// free_end end anywhere (near names for a filter or a misspelt command).
inline std::size_t edit_distance(const std::string& pattern, const std::string& text, bool free_start = false,
                                 bool free_end = false) {
  std::vector<std::size_t> row(text.size() + 1), next(text.size() + 1);
  for (std::size_t j = 0; j <= text.size(); ++j) row[j] = free_start ? 0 : j;
  for (std::size_t i = 1; i <= pattern.size(); ++i) {
    next[0] = i;
    for (std::size_t j = 1; j <= text.size(); ++j)
      next[j] = std::min({row[j] + 1, next[j - 1] + 1, row[j - 1] + (pattern[i - 1] == text[j - 1] ? 0 : 1)});
    std::swap(row, next);
  }
  return free_end ? *std::min_element(row.begin(), row.end()) : row.back();
}

// "m=256" before "m=1024": digit runs compare as numbers, so a table reads in size order.
inline bool natural_less(const std::string& a, const std::string& b) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      const std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      if (x.size() != y.size() || x != y) return x.size() != y.size() ? x.size() < y.size() : x < y;
      i = ie, j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

// Calls f(i, c) for each character of JSON text from `from` on that lies outside strings (escapes skipped), until f
// returns false: the brackets, braces, colons and commas a scanner of unparsed JSON counts.
template <class F>
void for_each_json_structure(std::string_view text, std::size_t from, F&& f) {
  bool in_string = false;
  for (std::size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (!f(i, c)) {
      return;
    }
  }
}

}  // namespace opmark::core
