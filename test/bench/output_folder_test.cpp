// What opmark-bench writes can neither be spliced nor lost (issue 37), decided on the host: one run per
// --opmark_out (a second process is refused at once), no rerun over a folder's results unless asked, every write of
// the results log and benchmark.json checked (a full disk ends the run naming the file), neither opened through a
// link; and what it reads or is given is checked first (pins from /dev/zero or a pipe, a filter that is no regex).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench/harness/output/console_json_reporter.h"
#include "bench/harness/output/output_folder.h"
#include "bench/harness/tuning/pins.h"
#include "bench/harness/output/results_log.h"
#include "core/error.h"
#include "../file_util.h"

namespace fs = std::filesystem;
using namespace opmark;
using namespace opmark::bench;

namespace {

using test::error_message;
using test::read_file;

// The folder a run writes: dir_ (a fresh one per test).
class RunFolder : public test::ScratchFolder {};

class NullDisplay : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

// Two processes on one folder: the child, trying while the parent holds the folder, is refused at once; once the
// parent's run ends (its lock released and its lock file gone) the folder can be taken again.
TEST_F(RunFolder, ASecondRunOnTheFolderIsRefusedAtOnce) {
  std::optional<OutputFolderLock> held;
  held.emplace(lock_output_folder(dir_.string()));
  EXPECT_TRUE(fs::exists(dir_ / kLockFileName));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const auto start = std::chrono::steady_clock::now();
    const std::string m = error_message([&] { lock_output_folder(dir_.string()); });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool refused = m.find(dir_.string() + " is in use by another opmark-bench run (process " +
                                std::to_string(::getppid()) + ")") != std::string::npos &&
                         m.find("give this run another --opmark_out") != std::string::npos;
    ::_exit(refused && s < 1.0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the second process was not refused at once";

  held.reset();
  EXPECT_FALSE(fs::exists(dir_ / kLockFileName));
  const pid_t again = ::fork();
  ASSERT_GE(again, 0);
  if (again == 0) ::_exit(error_message([&] { lock_output_folder(dir_.string()); }).empty() ? 0 : 1);
  ASSERT_EQ(::waitpid(again, &status, 0), again);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the folder stayed locked after its run";
}

// A folder holding an earlier run's results is refused unless --opmark_overwrite; an empty log (a run that stopped
// before measuring) is no results.
// A lock file that is a hard link to another file is refused, and the other file left as it was: the lock writes its
// process id into the file it holds.
TEST_F(RunFolder, AHardLinkPlantedAsTheLockFileIsRefused) {
  const fs::path victim = dir_ / "victim.txt";
  { std::ofstream(victim) << "precious"; }
  fs::create_directories(dir_ / "out");
  fs::create_hard_link(victim, dir_ / "out" / kLockFileName);
  const std::string m = error_message([&] { lock_output_folder((dir_ / "out").string()); });
  EXPECT_NE(m.find("is a hard link to another file"), std::string::npos) << m;
  EXPECT_EQ(read_file(victim), "precious");
}

TEST_F(RunFolder, AFolderWithResultsIsRefusedUnlessOverwriting) {
  fs::create_directories(dir_);
  EXPECT_NO_THROW(check_output_folder(dir_.string(), false));
  { std::ofstream(dir_ / "results.jsonl"); }
  EXPECT_NO_THROW(check_output_folder(dir_.string(), false));
  { std::ofstream(dir_ / "benchmark.json") << "{}"; }
  EXPECT_EQ(error_message([&] { check_output_folder(dir_.string(), false); }),
            "--opmark_out: " + dir_.string() + " already holds a run's results (" + (dir_ / "benchmark.json").string() +
                "): this run would replace them; give another --opmark_out, or add --opmark_overwrite to replace them");
  EXPECT_NO_THROW(check_output_folder(dir_.string(), true));
  fs::remove(dir_ / "benchmark.json");
  fs::create_symlink("/tmp/elsewhere.jsonl", dir_ / "benchmark.json");
  EXPECT_NE(error_message([&] { check_output_folder(dir_.string(), false); }), "");
}

// A full disk under the results log: the first line that cannot be written throws naming the file (main ends the
// run with it, exit 2), where the log used to drop it and exit 0.
TEST_F(RunFolder, AResultsLogThatCannotBeWrittenStopsTheRun) {
  const std::string full = "/dev/full: cannot write (No space left on device)";
  EXPECT_EQ(error_message([&] { ResultsLog log("/dev/full", {{"gpu", "test"}}); }), full);  // its context line
  const core::ResumeState resumed;  // goes on from a log: no context line to write first
  ResultsLog log("/dev/full", {{"gpu", "test"}}, &resumed);
  const std::string name = "gemm/fwd/fp16/m=64/n=64/k=64/ta=N/tb=N/batch=1";
  const core::Case c = core::parse_case_name(name);
  EXPECT_EQ(error_message([&] { log.finished({c, name, Outcome{Status::skipped, "test", "", "", {}, {}}}); }), full);
  EXPECT_EQ(error_message([&] { log.append_summary(); }), full);
}

// Neither log is opened through a link: a planted link would have the run overwrite what it points to.
TEST_F(RunFolder, LogsAreNotOpenedThroughLinks) {
  fs::create_directories(dir_);
  { std::ofstream(dir_ / "victim") << "precious"; }
  fs::create_symlink(dir_ / "victim", dir_ / "results.jsonl");
  fs::create_symlink(dir_ / "victim", dir_ / "benchmark.json");
  EXPECT_NE(error_message([&] { ResultsLog log((dir_ / "results.jsonl").string(), {}); })
                .find("results.jsonl: a symbolic link, not written through"),
            std::string::npos);
  EXPECT_NE(error_message([&] {
              ConsoleJsonReporter r(std::make_unique<NullDisplay>(), (dir_ / "benchmark.json").string());
            }).find("benchmark.json: a symbolic link, not written through"),
            std::string::npos);
  EXPECT_EQ(read_file(dir_ / "victim"), "precious");
}

// benchmark.json is Google Benchmark's JSON, written by opmark's reporter: whole after Finalize.
TEST_F(RunFolder, BenchmarkJsonIsWrittenBesideTheLog) {
  fs::create_directories(dir_);
  const std::string name = "gemm/fwd/fp16/m=64/n=64/k=64/ta=N/tb=N/batch=1";
  ConsoleJsonReporter reporter(std::make_unique<NullDisplay>(), (dir_ / "benchmark.json").string());
  reporter.ReportContext({});
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.iterations = 1;
  run.repetitions = 1;
  run.real_accumulated_time = 1e-5;
  run.time_unit = benchmark::kMicrosecond;
  reporter.ReportRuns({run});
  reporter.Finalize();
  const nlohmann::json j = nlohmann::json::parse(read_file(dir_ / "benchmark.json"));
  ASSERT_EQ(j["benchmarks"].size(), 1u);
  EXPECT_EQ(j["benchmarks"][0]["name"], name);
  EXPECT_TRUE(j.contains("context"));
}

// --opmark_pin from /dev/zero or a pipe: refused at once, not read to gigabytes or waited on.
TEST_F(RunFolder, PinsFromADeviceOrAPipeAreRefusedAtOnce) {
  fs::create_directories(dir_);
  ASSERT_EQ(::mkfifo((dir_ / "pins").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_message([] { read_pins("/dev/zero"); }),
            "--opmark_pin: /dev/zero: a device, not a regular file: pin file must be a file");
  EXPECT_EQ(error_message([&] { read_pins((dir_ / "pins").string()); }),
            "--opmark_pin: " + (dir_ / "pins").string() + ": a pipe, not a regular file: pin file must be a file");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}
