// Inputs are read within limits and outputs written whole (core/file_access.h, issue 37): /dev/zero and a pipe
// given as a shape table, suite or rules file are refused at once, not read to gigabytes or waited on forever; a
// failed write names the file; control characters are escaped for the terminal.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/file_access.h"
#include "core/suite.h"
#include "core/table.h"
#include "core/text.h"
#include "../file_util.h"

namespace fs = std::filesystem;
using namespace opmark;

namespace {

class InputFiles : public test::ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  }
};

// The message `read` throws, and checks it came within a second.
template <class Read>
std::string refusal(Read read) {
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    read();
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0) << message;
  return message;
}

// The process's peak memory so far: a test's growth over it is what its reads took (the test binary itself, with
// the CUDA libraries loaded, starts near 200 MiB).
long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;  // KiB on Linux
}

}  // namespace

TEST_F(InputFiles, DevicesPipesAndFoldersAreRefusedAtOnce) {
  const long before_mib = peak_rss_mib();
  const std::string fifo = (dir_ / "fifo").string();
  EXPECT_EQ(refusal([] { core::read_text_file("/dev/zero", "shape table"); }),
            "/dev/zero: a device, not a regular file: shape table must be a file");
  EXPECT_EQ(refusal([&] { core::read_text_file(fifo, "shape table"); }),
            fifo + ": a pipe, not a regular file: shape table must be a file");
  EXPECT_EQ(refusal([&] { core::read_text_file(dir_.string(), "model table"); }),
            dir_.string() + ": a folder, not a regular file: model table must be a file");
  // Through the loaders the command lines use: --opmark_shapes, --opmark_suite and check --rules.
  EXPECT_EQ(refusal([] { core::load_table("/dev/zero"); }),
            "/dev/zero: a device, not a regular file: shape table must be a file");
  EXPECT_EQ(refusal([&] { core::load_tables({fifo}); }), fifo + ": a pipe, not a regular file: shape table must be a file");
  EXPECT_EQ(refusal([] { core::load_suite("/dev/zero"); }),
            "/dev/zero: a device, not a regular file: submission rules must be a file");
  EXPECT_EQ(refusal([&] { core::load_suite(fifo); }), fifo + ": a pipe, not a regular file: submission rules must be a file");
  // A link to a device is followed to it, and refused as the device.
  fs::create_symlink("/dev/zero", dir_ / "zero.yaml");
  EXPECT_NE(refusal([&] { core::load_table((dir_ / "zero.yaml").string()); }).find("a device, not a regular file"),
            std::string::npos);
  EXPECT_LT(peak_rss_mib() - before_mib, 100);
}

TEST_F(InputFiles, AFileOverTheLimitIsRefusedBeforeItIsRead) {
  const long before_mib = peak_rss_mib();
  const fs::path big = dir_ / "big.yaml";
  { std::ofstream(big) << "family: gemm\n"; }
  fs::resize_file(big, core::kMaxTextFileBytes + 1);  // sparse: no 16 MiB written
  EXPECT_EQ(refusal([&] { core::read_text_file(big.string(), "shape table"); }),
            big.string() + ": shape table of 16777217 bytes (16.0 MiB), over the limit of 16 MiB");
  EXPECT_EQ(refusal([&] { core::read_regular_file(big.string(), "pin file", 1000); }),
            big.string() + ": pin file of 16777217 bytes (16.0 MiB), over the limit of 1000 bytes");
  EXPECT_LT(peak_rss_mib() - before_mib, 100);
}

TEST_F(InputFiles, ARegularFileReadsWhole) {
  { std::ofstream(dir_ / "t.txt") << "a\tb\n"; }
  EXPECT_EQ(core::read_text_file((dir_ / "t.txt").string(), "pin file"), "a\tb\n");
  EXPECT_NE(refusal([&] { core::read_text_file((dir_ / "none").string(), "shape table"); })
                .find("none: cannot open shape table (No such file or directory)"),
            std::string::npos);
}

// The results log's writer: every write checked, a link refused.
TEST_F(InputFiles, ALogFileSaysWhenAWriteFails) {
  core::LogFile full("/dev/full");
  try {
    full.append("{\"type\":\"context\"}\n");
    FAIL() << "a write to /dev/full succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: cannot write (No space left on device)");
  }
  { std::ofstream(dir_ / "victim") << "precious"; }
  fs::create_symlink(dir_ / "victim", dir_ / "results.jsonl");
  try {
    core::LogFile linked((dir_ / "results.jsonl").string());
    FAIL() << "opened through a link";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results.jsonl: a symbolic link, not written through"), std::string::npos);
  }
  std::ifstream in(dir_ / "victim");
  std::string kept;
  std::getline(in, kept);
  EXPECT_EQ(kept, "precious");
  // A pipe with no reader: refused at once, not waited on.
  EXPECT_NE(refusal([&] { core::LogFile pipe((dir_ / "fifo").string()); }).find("cannot open for writing"),
            std::string::npos);
  core::LogFile log((dir_ / "log.jsonl").string());
  log.append("one\n");
  log.close();
  std::ifstream written(dir_ / "log.jsonl");
  std::string line;
  std::getline(written, line);
  EXPECT_EQ(line, "one");
}

TEST(TerminalText, ControlCharactersAreEscaped) {
  static constexpr char kRaw[] = "a\x1b[31mb\rc\0d\x7f" "e\tf\n";
  EXPECT_EQ(core::terminal_text(std::string(kRaw, sizeof kRaw - 1)),
            "a\\x1b[31mb\\x0dc\\x00d\\x7fe\\x09f\\x0a");
  EXPECT_EQ(core::terminal_text("line one\nline two\x07\n", true), "line one\nline two\\x07\n");
  EXPECT_EQ(core::terminal_text("gemm/fwd/fp16/m=64 — ok"), "gemm/fwd/fp16/m=64 — ok");  // UTF-8 stays as it is
}

// A folder replaced as one set: created where there was none; an existing one holds exactly the new files after (a
// stale file is gone); a write that fails leaves the previous folder whole and nothing beside it; a symbolic link
// is refused; what a kill between the swap and the cleanup leaves is removed by remove_stale_folder_temps.
TEST_F(InputFiles, AFolderIsReplacedAsOneSet) {
  const fs::path sheets = dir_ / "spreadsheet";
  core::replace_folder_atomically(sheets.string(), {{"a.csv", "1\n"}, {"b.csv", "2\n"}});
  EXPECT_EQ(test::read_file(sheets / "a.csv"), "1\n");
  test::write_file(sheets / "stale.csv", "old\n");
  core::replace_folder_atomically(sheets.string(), {{"a.csv", "3\n"}});
  EXPECT_EQ(test::read_file(sheets / "a.csv"), "3\n");
  EXPECT_FALSE(fs::exists(sheets / "b.csv"));
  EXPECT_FALSE(fs::exists(sheets / "stale.csv"));
  // "a.csv" is then a file, so "a.csv/x.csv" cannot be written: the folder stays as it was.
  EXPECT_THROW(core::replace_folder_atomically(sheets.string(), {{"a.csv", "4\n"}, {"a.csv/x.csv", "5\n"}}), Error);
  EXPECT_EQ(test::read_file(sheets / "a.csv"), "3\n");
  int beside = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) beside += entry.path().filename() != "fifo";
  EXPECT_EQ(beside, 1);
  fs::create_directory_symlink(sheets, dir_ / "link");
  EXPECT_THROW(core::replace_folder_atomically((dir_ / "link").string(), {{"a.csv", "6\n"}}), Error);
  EXPECT_EQ(test::read_file(sheets / "a.csv"), "3\n");
  fs::create_directory(dir_ / (std::string("spreadsheet") + core::kFolderTempInfix + "abc123"));
  core::remove_stale_folder_temps(sheets.string());
  EXPECT_FALSE(fs::exists(dir_ / (std::string("spreadsheet") + core::kFolderTempInfix + "abc123")));
  EXPECT_TRUE(fs::exists(sheets / "a.csv"));
}
