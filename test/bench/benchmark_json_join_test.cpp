// A resumed run's benchmark.json: the killed part (cut off anywhere) and the resumed part joined into one file.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "../file_util.h"
#include "bench/harness/output/benchmark_json_join.h"

using namespace opmark::bench;
namespace fs = std::filesystem;

namespace {

std::string entry(const std::string& name, const std::string& time) {
  return "{\n      \"name\": \"" + name + "/manual_time\",\n      \"real_time\": " + time +
         ",\n      \"noise\": nan,\n      \"label\": \"a \\\"quoted\\\" {brace\"\n    }";
}
const std::string kContext = "{\n    \"date\": \"today\",\n    \"opmark_gpu\": \"G\"\n  }";
std::string document(const std::vector<std::string>& entries) {
  std::string out = "{\n  \"context\": " + kContext + ",\n  \"benchmarks\": [\n    ";
  for (std::size_t i = 0; i < entries.size(); ++i) out += (i ? ",\n    " : "") + entries[i];
  return out + "\n  ]\n}\n";
}

}  // namespace

TEST(BenchmarkJsonJoin, AFileCutAnywhereGivesItsWholeEntries) {
  const std::string whole = document({entry("gemm/a", "1.5"), entry("gemm/b", "inf")});
  const BenchmarkJsonText parts = split_benchmark_json(whole);
  EXPECT_EQ(parts.context, kContext);
  ASSERT_EQ(parts.entries.size(), 2u);
  EXPECT_EQ(benchmark_entry_case(parts.entries[0]), "gemm/a");
  EXPECT_EQ(benchmark_entry_case(parts.entries[1]), "gemm/b");
  // Cut at every byte: never more entries than were whole there, and each one as written.
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    const BenchmarkJsonText part = split_benchmark_json(whole.substr(0, cut));
    ASSERT_LE(part.entries.size(), 2u);
    for (std::size_t i = 0; i < part.entries.size(); ++i) EXPECT_EQ(part.entries[i], parts.entries[i]) << cut;
    if (!part.context.empty()) EXPECT_EQ(part.context, kContext);
  }
}

TEST(BenchmarkJsonJoin, TheTwoPartsBecomeOneFileOfTheCasesKept) {
  const fs::path dir = fs::temp_directory_path() / "opmark_benchmark_json_join";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The first part, killed in its third entry; a resumed part, killed too.
  const std::string first = document({entry("gemm/a", "1"), entry("gemm/b", "2"), entry("gemm/c", "3")});
  opmark::test::write_file(dir / "benchmark.json", first.substr(0, first.find("gemm/c") + 10));
  const std::string second = document({entry("gemm/d", "4"), entry("gemm/e", "5")});
  opmark::test::write_file(dir / "benchmark.resumed.json", second.substr(0, second.find("gemm/e") + 3));
  // The resumed run's start: b was cut off in the log (measured again), a and d kept.
  const std::set<std::string> kept = {"gemm/a", "gemm/d"};
  join_resumed_benchmark_json(dir.string(), &kept);
  EXPECT_FALSE(fs::exists(dir / "benchmark.resumed.json"));
  EXPECT_EQ(opmark::test::read_file(dir / "benchmark.json"), document({entry("gemm/a", "1"), entry("gemm/d", "4")}));
  // Its end: its own part joined after them, b again among it.
  opmark::test::write_file(dir / "benchmark.resumed.json", document({entry("gemm/b", "2.5"), entry("gemm/c", "3")}));
  join_resumed_benchmark_json(dir.string(), nullptr);
  EXPECT_EQ(opmark::test::read_file(dir / "benchmark.json"),
            document({entry("gemm/a", "1"), entry("gemm/d", "4"), entry("gemm/b", "2.5"), entry("gemm/c", "3")}));
  fs::remove_all(dir);
}
