#include "bench/harness/output/benchmark_json_join.h"

#include <filesystem>
#include <map>

#include "core/file_access.h"
#include "core/text.h"

namespace opmark::bench {

namespace {

// The end (one past the closing brace) of the object opening at `open`, or npos where the text ends first.
std::size_t object_end(const std::string& text, std::size_t open) {
  int depth = 0;
  std::size_t end = std::string::npos;
  core::for_each_json_structure(text, open, [&](std::size_t i, char c) {
    if (c == '{' || c == '[') ++depth;
    else if ((c == '}' || c == ']') && --depth == 0) end = i + 1;
    return end == std::string::npos;
  });
  return end;
}

constexpr std::size_t kMaxPartBytes = std::size_t{1} << 30;

}  // namespace

BenchmarkJsonText split_benchmark_json(const std::string& text) {
  BenchmarkJsonText out;
  const std::size_t context_key = text.find("\"context\":");
  if (context_key != std::string::npos) {
    const std::size_t open = text.find('{', context_key);
    const std::size_t end = open == std::string::npos ? open : object_end(text, open);
    if (end != std::string::npos) out.context = text.substr(open, end - open);
  }
  const std::size_t list_key = text.find("\"benchmarks\":");
  if (list_key == std::string::npos) return out;
  std::size_t at = text.find('[', list_key);
  if (at == std::string::npos) return out;
  for (++at;;) {
    at = text.find_first_not_of(" \t\r\n,", at);
    if (at == std::string::npos || text[at] != '{') break;
    const std::size_t end = object_end(text, at);
    if (end == std::string::npos) break;  // the entry the kill cut short
    out.entries.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

std::string benchmark_entry_case(const std::string& entry) {
  const std::string key = "\"name\":";
  const std::size_t at = entry.find(key);
  if (at == std::string::npos) return "";
  const std::size_t open = entry.find('"', at + key.size());
  if (open == std::string::npos) return "";
  std::string name;
  for (std::size_t i = open + 1; i < entry.size() && entry[i] != '"'; ++i) {
    if (entry[i] == '\\' && i + 1 < entry.size()) ++i;
    name += entry[i];
  }
  const std::string manual = "/manual_time";
  if (name.size() > manual.size() && name.compare(name.size() - manual.size(), manual.size(), manual) == 0)
    name.resize(name.size() - manual.size());
  return name;
}

std::string join_benchmark_json(const std::string& context, const std::vector<std::string>& entries) {
  std::map<std::string, std::size_t> last;  // each case's last entry
  for (std::size_t i = 0; i < entries.size(); ++i) last[benchmark_entry_case(entries[i])] = i;
  std::string out = "{\n  \"context\": " + (context.empty() ? std::string("{}") : context) + ",\n  \"benchmarks\": [";
  bool first = true;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (last[benchmark_entry_case(entries[i])] != i) continue;
    out += (first ? "\n    " : ",\n    ") + entries[i];
    first = false;
  }
  return out + "\n  ]\n}\n";
}

void join_resumed_benchmark_json(const std::string& dir, const std::set<std::string>* keep) {
  namespace fs = std::filesystem;
  const fs::path first = fs::path(dir) / "benchmark.json", resumed = fs::path(dir) / "benchmark.resumed.json";
  std::string context;
  std::vector<std::string> entries;
  for (const fs::path& part : {first, resumed}) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(part, ec))) continue;
    BenchmarkJsonText text = split_benchmark_json(
        core::read_regular_file(part.string(), "Google Benchmark's JSON", kMaxPartBytes, core::Links::refuse));
    if (context.empty()) context = text.context;
    for (auto& e : text.entries)
      if (!keep || keep->count(benchmark_entry_case(e))) entries.push_back(std::move(e));
  }
  core::write_file_atomically(first.string(), join_benchmark_json(context, entries));
  std::error_code ec;
  fs::remove(resumed, ec);
}

}  // namespace opmark::bench
