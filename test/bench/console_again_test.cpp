// A logged run prints again, through the console's own formatting, the lines it printed: the case lines from the
// median (or only) line of each case in results.jsonl, the summary from the same records. The README's sample output
// is held to a committed run this way, so it cannot drift from what opmark-bench prints.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "../file_util.h"
#include "aggregate/results.h"
#include "bench/harness/output/case_line.h"
#include "bench/harness/output/run_summary.h"
#include "core/case.h"
#include "core/result_record.h"

using namespace opmark;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The case lines and the summary a logged run printed; `run_s` is the run's length, which the log does not keep.
std::vector<std::string> console_again(const std::string& results, double run_s) {
  std::vector<core::ResultRecord> cases;  // per case: its median line, else its one line (a case that did not run)
  std::map<std::string, std::size_t> index;
  int number = 0;
  for (const std::string& l : lines_of(aggregate::read_results_text(results))) {
    ++number;
    if (l.empty()) continue;
    core::ResultRecord r = core::from_json(nlohmann::json::parse(l), results + ":" + std::to_string(number));
    if (!r.is_case() || (r.kind == core::RecordKind::aggregate && r.aggregate != "median")) continue;
    const auto [it, added] = index.try_emplace(r.name, cases.size());
    if (added) cases.push_back(r);
    else if (r.kind == core::RecordKind::aggregate) cases[it->second] = r;
  }
  std::vector<std::string> out = {bench::case_line_header()};
  std::vector<bench::SummaryCase> summary;
  for (const core::ResultRecord& r : cases) {
    const bench::CaseLine line = bench::case_line_of(r);
    out.push_back(bench::format_case_line(line));
    summary.push_back({core::parse_case_name(r.name).family, line.name, line.status, line.counters});
  }
  for (const std::string& l : bench::run_summary(summary, bench::SummaryPlace{}, run_s)) out.push_back(l);
  return out;
}

// The run's length as its console's summary line gives it ("opmark: 34 cases in 63 s: ...").
double run_seconds(const std::vector<std::string>& console) {
  static const std::regex summary(R"(^opmark: \d+ cases? in (\d+) s: )");
  for (const std::string& l : console) {
    std::smatch m;
    if (std::regex_search(l, m, summary)) return std::stod(m[1]);
  }
  ADD_FAILURE() << "no summary line";
  return 0;
}

// Each of `shown` is in `printed`, in order; but "...", the suite's line before the cases (its table, not its
// results) and what says where the run wrote and what to run next.
void expect_in_order(const std::vector<std::string>& shown, const std::vector<std::string>& printed,
                     const std::string& what) {
  std::size_t at = 0;
  bool next_commands = false;
  for (const std::string& l : shown) {
    next_commands = next_commands || l.rfind("next:", 0) == 0;
    if (l == "..." || l.rfind("opmark: the suite", 0) == 0 || l.rfind("results: ", 0) == 0 || next_commands) continue;
    while (at < printed.size() && printed[at] != l) ++at;
    ASSERT_LT(at, printed.size()) << what << ": this line is not what opmark prints of the run now:\n" << l;
  }
}

}  // namespace

TEST(ConsoleAgain, TheFourGpuAllReduceRunPrintsAgainWhatItPrinted) {
  const std::string dir = OPMARK_SOURCE_DIR "/docs/allreduce/h200x4_488123a/g4/single/";
  std::vector<std::string> printed;
  static const std::set<std::string> statuses = {"status", "ok", "unstable", "skipped", "failed"};
  for (const std::string& l : lines_of(test::read_file(dir + "console.txt"))) {
    if (l.rfind("results: ", 0) == 0) break;  // then where it wrote and what to run next
    if (statuses.count(l.substr(0, l.find(' '))) || l.rfind("opmark: 34 cases", 0) == 0 || l.rfind("  ", 0) == 0)
      printed.push_back(l);
  }
  ASSERT_EQ(printed.size(), 1u + 34 + 3);  // the header, the cases, the summary's count, header and family
  expect_in_order(printed, console_again(dir + "results.jsonl.gz", run_seconds(printed)), "console.txt");
}

TEST(ConsoleAgain, TheReadmesSampleOutputIsWhatItsRunPrints) {
  const std::vector<std::string> readme = lines_of(test::read_file(OPMARK_SOURCE_DIR "/README.md"));
  // The sample: the indented block after the first paragraph that names a run's folder in docs/runs/.
  static const std::regex names_run(R"(`(docs/runs/[^`]+)`)");
  std::string run;
  std::vector<std::string> sample;
  for (const std::string& l : readme) {
    std::smatch m;
    if (run.empty()) {
      if (std::regex_search(l, m, names_run)) run = m[1];
      continue;
    }
    if (l.rfind("    ", 0) == 0) sample.push_back(l.substr(4));
    else if (!l.empty() && !sample.empty()) break;
  }
  ASSERT_FALSE(run.empty()) << "README.md: no paragraph names the sample's run (`docs/runs/...`)";
  ASSERT_GT(sample.size(), 5u);
  expect_in_order(sample, console_again(OPMARK_SOURCE_DIR "/" + run + "/results.jsonl.gz", run_seconds(sample)),
                  "README.md's sample");
}
