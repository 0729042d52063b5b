#include "bench/harness/progress.h"

#include <regex.h>

#include <regex>

#include "core/error.h"

namespace opmark::bench {

void check_benchmark_filter(const std::string& filter) {
  const std::string pattern = !filter.empty() && filter[0] == '-' ? filter.substr(1) : filter;
  if (pattern.empty()) return;
  // Google Benchmark compiles it as POSIX extended (regcomp, or std::regex's extended grammar where it has no
  // regcomp); count_selected uses std::regex. Each must take it.
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

std::size_t count_selected(const std::vector<std::string>& names, const std::string& filter) {
  std::string pattern = filter;
  bool negate = false;
  if (!pattern.empty() && pattern[0] == '-') {
    negate = true;
    pattern.erase(0, 1);
  }
  if (pattern.empty() || pattern == "all" || pattern == ".") return negate ? 0 : names.size();
  const std::regex re(pattern, std::regex::extended);  // Google Benchmark's own regex is POSIX extended
  std::size_t n = 0;
  for (const auto& name : names) n += std::regex_search(name, re) != negate;
  return n;
}

static std::string duration(double s) {
  const long total = static_cast<long>(s + 0.5);
  char buf[32];
  if (total >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", total / 3600, (total / 60) % 60);
  else if (total >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", total / 60, total % 60);
  else std::snprintf(buf, sizeof buf, "%lds", total);
  return buf;
}

std::string progress_line(std::size_t done, std::size_t total, double elapsed_s) {
  std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + duration(elapsed_s) + " elapsed";
  if (done > 0 && total > done) line += ", about " + duration(elapsed_s / double(done) * double(total - done)) + " left";
  return line;
}

void Progress::reported(const std::string& case_name) {
  if (!seen_.insert(case_name).second) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_, "opmark: %s  %s\n", progress_line(seen_.size(), total_, elapsed).c_str(), case_name.c_str());
  std::fflush(out_);
}

}  // namespace opmark::bench
