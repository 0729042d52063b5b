// Resuming a killed run (--opmark_resume): which cases its log holds in full, what is kept, and the context check.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/file_access.h"
#include "core/resume.h"

using opmark::core::parse_resume_state;
using opmark::core::resume_mismatches;

namespace {

const std::string kContext =
    R"({"type":"context","context":{"gpu":"NVIDIA H100 80GB HBM3","git":"abc","seed":7,"regime":"burst"}})";
std::string run_line(const std::string& name, int rep) {
  return R"({"type":"run","name":")" + name + R"(","status":"ok","repetition":)" + std::to_string(rep) +
         R"(,"time_us":5.0})";
}
std::string median_line(const std::string& name) {
  return R"({"type":"aggregate","aggregate":"median","name":")" + name + R"(","status":"ok","time_us":5.0})";
}
std::string skipped_line(const std::string& name) {
  return R"({"type":"run","name":")" + name + R"(","status":"skipped","repetition":0})";
}
std::string recheck_line(const std::string& name) {
  return R"({"type":"aggregate","aggregate":"recheck","name":")" + name + R"(","status":"ok","time_us":5.1})";
}

// The cases a log holds lines for.
std::set<std::string> cases_in(const std::string& log) {
  std::set<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("\"name\":\"");
    if (at == std::string::npos) continue;
    const auto from = at + 8;
    out.insert(line.substr(from, line.find('"', from) - from));
  }
  return out;
}

}  // namespace

TEST(Resume, KeepsTheCasesMeasuredInFullAndDropsTheOneCutOff) {
  // a: measured; b: did not run (skipped); c: two repetitions, then the kill (no median); d: its line cut short.
  const std::string log = kContext + "\n" + run_line("a", 0) + "\n" + run_line("a", 1) + "\n" + median_line("a") +
                          "\n" + skipped_line("b") + "\n" + run_line("c", 0) + "\n" + run_line("c", 1) + "\n" +
                          R"({"type":"run","name":"d","sta)";
  const auto state = parse_resume_state(log, "runs/x/results.jsonl");
  EXPECT_EQ(state.done, (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(state.counts(), (std::map<std::string, int>{{"ok", 1}, {"skipped", 1}}));
  EXPECT_EQ(state.context.value("git", ""), "abc");
  EXPECT_EQ(state.kept_text, kContext + "\n" + run_line("a", 0) + "\n" + run_line("a", 1) + "\n" + median_line("a") +
                                 "\n" + skipped_line("b") + "\n");
  EXPECT_EQ(state.dropped_lines, 3);
}

TEST(Resume, AKilledRunResumedHoldsTheSameCasesAsAnUnbrokenOne) {
  const std::vector<std::string> all = {"a", "b", "c", "d"};
  std::string unbroken = kContext + "\n";
  for (const auto& n : all) unbroken += run_line(n, 0) + "\n" + median_line(n) + "\n";
  // Killed in c's repetitions: a and b are kept, c and d measured again.
  const std::string killed = kContext + "\n" + run_line("a", 0) + "\n" + median_line("a") + "\n" + run_line("b", 0) +
                             "\n" + median_line("b") + "\n" + run_line("c", 0) + "\n";
  const auto state = parse_resume_state(killed, "results.jsonl");
  std::string resumed = state.kept_text;
  for (const auto& n : all)  // what the resumed run measures: every case not done
    if (!state.done.count(n)) resumed += run_line(n, 0) + "\n" + median_line(n) + "\n";
  EXPECT_EQ(cases_in(resumed), cases_in(unbroken));
  // Each case once: c's cut-off repetition is gone.
  EXPECT_EQ(resumed, unbroken);
}

// Killed in the end-of-run re-time of a run that re-times: the re-time lines written stand, with their verdicts (a
// re-time that made a case unstable keeps it so), and the cases not yet re-timed are handed over with their median
// lines, to be re-timed by the resumed run; then it is one run, as an unbroken one.
TEST(Resume, KeepsTheReTimeLinesAndReTimesWhatTheyLack) {
  const std::string context = R"({"type":"context","context":{"gpu":"G","recheck":"on"}})";
  std::string measured = context + "\n";
  for (const char* n : {"a", "b", "c"}) measured += run_line(n, 0) + "\n" + median_line(n) + "\n";
  const std::string unstable_a =
      R"({"type":"aggregate","aggregate":"recheck","name":"a","status":"unstable","reason":"moved","time_us":5.0})";
  const std::string killed = measured + unstable_a + "\n" + recheck_line("b") + "\n";
  const auto state = parse_resume_state(killed, "results.jsonl");
  EXPECT_EQ(state.kept_text, killed);
  EXPECT_EQ(state.status, (std::map<std::string, std::string>{{"a", "unstable"}, {"b", "ok"}, {"c", "ok"}}));
  ASSERT_EQ(state.to_retime.size(), 1u);
  EXPECT_EQ(state.to_retime.at("c"), nlohmann::json::parse(median_line("c")));
  EXPECT_FALSE(state.whole);
  EXPECT_EQ(state.dropped_lines, 0);
  // The resumed run re-times c and writes the summary: the log is whole, and resuming it again finds nothing to do.
  const std::string finished = state.kept_text + recheck_line("c") + "\n" +
                               R"({"type":"summary","ok":2,"unstable":1,"skipped":0,"failed":0})" + "\n";
  const auto again = parse_resume_state(finished, "results.jsonl");
  EXPECT_TRUE(again.whole);
  EXPECT_TRUE(again.to_retime.empty());
  EXPECT_EQ(again.counts(), (std::map<std::string, int>{{"ok", 2}, {"unstable", 1}}));
  EXPECT_EQ(again.kept_text + R"({"type":"summary","ok":2,"unstable":1,"skipped":0,"failed":0})" + "\n", finished);
  // A run that does not re-time (recheck: off) has no re-time to hand over.
  EXPECT_TRUE(parse_resume_state(kContext + "\n" + median_line("a") + "\n", "r.jsonl").to_retime.empty());
}

TEST(Resume, ABadLogIsAnErrorNamingFileAndLine) {
  EXPECT_THROW(parse_resume_state("", "r.jsonl"), opmark::Error);
  try {
    parse_resume_state(run_line("a", 0) + "\n", "r.jsonl");
    FAIL();
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("r.jsonl:1: the first line is no context line"), std::string::npos);
  }
  try {
    parse_resume_state(kContext + "\nnot json\n" + median_line("a") + "\n", "r.jsonl");
    FAIL();
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("r.jsonl:2: not a JSON line"), std::string::npos) << e.what();
  }
  // A field of the wrong type: named with file, line and field, not a JSON library's type error.
  const std::vector<std::pair<std::string, std::string>> mistyped = {
      {R"({"type":"aggregate","aggregate":"median","name":5,"status":"ok"})", "r.jsonl:2: field 'name': expected text"},
      {R"({"type":7})", "r.jsonl:2: field 'type': expected text, got 7"},
      {R"({"type":"run","name":"a","status":["ok"]})", "r.jsonl:2: field 'status': expected text"},
      {R"({"type":"aggregate","aggregate":"median","status":"ok"})", "r.jsonl:2: a case line with no name"}};
  for (const auto& [line, says] : mistyped) {
    try {
      parse_resume_state(kContext + "\n" + line + "\n", "r.jsonl");
      ADD_FAILURE() << line;
    } catch (const opmark::Error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
  try {
    parse_resume_state(R"({"type":"context","context":"yes"})" "\n", "r.jsonl");
    ADD_FAILURE();
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("r.jsonl:1: field 'context': expected an object"), std::string::npos);
  }
}

TEST(Resume, TheContextMustMatchOnWhatAnswersForATime) {
  const nlohmann::json log = {{"gpu", "NVIDIA H100 80GB HBM3"}, {"git", "abc"}, {"seed", 7}, {"started_at", "t0"}};
  nlohmann::json now = log;
  now["started_at"] = "t1";  // when each part began differs, as it must
  EXPECT_TRUE(resume_mismatches(log, now).empty());
  now["git"] = "def";
  now["regime"] = "sustained";
  const auto differ = resume_mismatches(log, now);
  ASSERT_EQ(differ.size(), 2u);
  EXPECT_EQ(differ[0], "git: \"abc\" in the log, \"def\" in this run");
  EXPECT_EQ(differ[1], "regime: none in the log, \"sustained\" in this run");
  // The host, the power limit and the clocks the run measured under count too (issue 53 found them unchecked).
  for (const char* key : {"host", "power_limit_w", "max_sm_clock_mhz", "ecc", "mig", "nvml", "power_margin"}) {
    nlohmann::json moved = log;
    moved[key] = "changed";
    EXPECT_EQ(resume_mismatches(log, moved).size(), 1u) << key;
  }
}

// The log resumed is the log appended to: a symbolic link there is refused, as the writer refuses one.
TEST(Resume, ALinkInPlaceOfTheLogIsRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "opmark_resume_link";
  fs::remove_all(dir);
  fs::create_directories(dir);
  opmark::core::write_file_atomically((dir / "elsewhere.jsonl").string(), kContext + "\n" + median_line("a") + "\n");
  fs::create_symlink(dir / "elsewhere.jsonl", dir / "results.jsonl");
  EXPECT_THROW(opmark::core::read_resume_state((dir / "results.jsonl").string()), opmark::Error);
  EXPECT_EQ(opmark::core::read_resume_state((dir / "elsewhere.jsonl").string()).done, (std::set<std::string>{"a"}));
  fs::remove_all(dir);
}

// The context is read from the first line alone, before the log is: a later line that is no JSON (which reading the
// whole log would refuse, naming its line) does not stop it, and a first line that is no context is named.
TEST(Resume, TheContextIsReadFromTheFirstLineAlone) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "opmark_resume_context";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string log = (dir / "results.jsonl").string();
  opmark::core::write_file_atomically(log, kContext + "\n" + median_line("a") + "\nnot json\n" + median_line("b") + "\n");
  EXPECT_EQ(opmark::core::read_resume_context(log).value("seed", 0), 7);
  try {
    opmark::core::read_resume_state(log);
    ADD_FAILURE() << "the whole log read";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("results.jsonl:3"), std::string::npos) << e.what();
  }
  opmark::core::write_file_atomically(log, median_line("a") + "\n" + kContext + "\n");
  try {
    opmark::core::read_resume_context(log);
    ADD_FAILURE() << "a first line that is no context";
  } catch (const opmark::Error& e) {
    EXPECT_NE(std::string(e.what()).find("results.jsonl:1: the first line is no context line"), std::string::npos)
        << e.what();
  }
  fs::remove_all(dir);
}
