#include "bench/harness/cases/case_filter.h"

#include <regex.h>

#include <algorithm>
#include <numeric>
#include <regex>

#include "core/error.h"
#include "core/text.h"

namespace opmark::bench {

namespace {

// The filter split as Google Benchmark splits it: the pattern, and whether it excludes what it matches.
struct Pattern {
  std::string text;
  bool negate = false;
};

Pattern split(const std::string& filter) {
  if (!filter.empty() && filter[0] == '-') return {filter.substr(1), true};
  return {filter, false};
}

bool matches_everything(const std::string& pattern) { return pattern.empty() || pattern == "all" || pattern == "."; }

}  // namespace

void check_benchmark_filter(const std::string& filter) {
  const std::string pattern = split(filter).text;
  if (pattern.empty()) return;
  // Google Benchmark compiles it as POSIX extended (regcomp, or std::regex's extended grammar where it has no
  // regcomp). Each must take it, whichever the library was built with.
  regex_t re;
  const int rc = ::regcomp(&re, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
  std::string why;
  if (rc != 0) {
    char text[256];
    ::regerror(rc, &re, text, sizeof text);
    why = text;
  } else {
    ::regfree(&re);
    try {
      const std::regex checked(pattern, std::regex::extended);
    } catch (const std::regex_error& e) {
      why = e.what();
    }
  }
  if (!why.empty())
    throw Error("--benchmark_filter: '" + filter + "' is not a valid regular expression (" + why + ")");
}

std::vector<std::size_t> select_cases(const std::vector<std::string>& names, const std::string& filter,
                                      const std::vector<std::string>& short_names) {
  const Pattern p = split(filter);
  std::vector<std::size_t> kept;
  if (matches_everything(p.text)) {
    if (!p.negate) {
      kept.resize(names.size());
      std::iota(kept.begin(), kept.end(), std::size_t{0});
    }
    return kept;
  }
  check_benchmark_filter(filter);
  regex_t re;
  ::regcomp(&re, p.text.c_str(), REG_EXTENDED | REG_NOSUB);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const bool hit = ::regexec(&re, names[i].c_str(), 0, nullptr, 0) == 0 ||
                     ::regexec(&re, (names[i] + "/manual_time").c_str(), 0, nullptr, 0) == 0 ||
                     (i < short_names.size() && short_names[i] != names[i] &&
                      ::regexec(&re, short_names[i].c_str(), 0, nullptr, 0) == 0);
    if (hit != p.negate) kept.push_back(i);
  }
  ::regfree(&re);
  return kept;
}

std::vector<std::string> near_names(const std::vector<std::string>& names, const std::string& filter,
                                    std::size_t limit) {
  std::string literal = split(filter).text;
  const bool anchored_start = !literal.empty() && literal.front() == '^';
  if (anchored_start) literal.erase(0, 1);
  const bool anchored_end = !literal.empty() && literal.back() == '$' &&
                            (literal.size() < 2 || literal[literal.size() - 2] != '\\');
  if (anchored_end) literal.pop_back();
  std::string plain;  // "\." is the character '.'
  for (std::size_t i = 0; i < literal.size(); ++i) plain += literal[i] == '\\' && i + 1 < literal.size() ? literal[++i]
                                                                                                          : literal[i];
  if (plain.empty()) return {};
  const std::size_t most = std::max<std::size_t>(1, plain.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (edits, index)
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::size_t d = core::edit_distance(plain, names[i], !anchored_start, !anchored_end);
    if (d <= most) scored.emplace_back(d, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> near;
  for (const auto& [d, i] : scored) {
    if (near.size() == limit) break;
    near.push_back(names[i]);
  }
  return near;
}

void check_filter_selects(const std::vector<std::string>& names, const std::string& filter,
                          const std::vector<std::size_t>& selected) {
  if (names.empty() || !selected.empty()) return;
  std::string message = "--benchmark_filter: '" + filter + "' matches none of the " + std::to_string(names.size()) +
                        " case names";
  const std::vector<std::string> near = split(filter).negate ? std::vector<std::string>{} : near_names(names, filter);
  if (near.empty()) {
    message += "; --benchmark_list_tests lists their names";
  } else {
    message += "; near names:";
    for (const auto& name : near) message += "\n  " + name;
    message += "\n(--benchmark_list_tests lists every name; '^NAME$' selects exactly one)";
  }
  throw Error(message);
}

}  // namespace opmark::bench
