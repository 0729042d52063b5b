// What the aggregator writes can neither lose the previous file nor reach further than it should (issue 37): a full
// disk leaves the previous page, sheet or workbook whole and the command exits non-zero naming the file; text a
// spreadsheet would run as a formula is written as text; control characters from a results file never reach the
// terminal raw; two runs joined into one results.jsonl are refused, not merged.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "aggregate/cli.h"
#include "aggregate/files.h"
#include "aggregate/results.h"
#include "aggregate/score_command.h"
#include "aggregate/spreadsheet.h"
#include "aggregate/xlsx.h"
#include "core/error.h"
#include "core/file_access.h"
#include "../file_util.h"

namespace fs = std::filesystem;
using namespace opmark;
using namespace opmark::aggregate;

namespace {

const fs::path kData = fs::path(OPMARK_SOURCE_DIR) / "test" / "data";

using test::read_file;
using test::write_file;

int run(std::vector<std::string> words) {
  words.insert(words.begin(), "opmark-aggregate");
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

class OutputFiles : public test::ScratchFolder {
 protected:
  void TearDown() override {
    if (mounted_) ::umount2(full_.c_str(), MNT_DETACH);
    ScratchFolder::TearDown();
  }
  // A 64 KiB tmpfs at dir_/full holding `files` (name -> previous text), then filled to the last byte: a full disk.
  fs::path full_disk_with(const std::vector<std::pair<std::string, std::string>>& files) {
    full_ = dir_ / "full";
    fs::create_directories(full_);
    if (::mount("tmpfs", full_.c_str(), "tmpfs", 0, "size=64k") != 0) {
      ADD_FAILURE() << "cannot mount the tmpfs: " << std::strerror(errno);
      return full_;
    }
    mounted_ = true;
    for (const auto& [name, previous] : files) {
      fs::create_directories((full_ / name).parent_path());
      write_file(full_ / name, previous);
    }
    std::FILE* filler = std::fopen((full_ / "filler").c_str(), "wb");
    const std::string block(4096, 'x');
    while (filler && std::fwrite(block.data(), 1, block.size(), filler) == block.size() && std::fflush(filler) == 0) {
    }
    if (filler) std::fclose(filler);
    return full_;
  }
  bool can_mount() {
    const fs::path probe = dir_ / "probe";
    fs::create_directories(probe);
    if (::mount("tmpfs", probe.c_str(), "tmpfs", 0, "size=64k") != 0) {
      why_not_ = std::string("cannot mount a small tmpfs here (") + std::strerror(errno) +
                 "): the full-disk tests need root (CI runs them as root)";
      return false;
    }
    ::umount2(probe.c_str(), MNT_DETACH);
    return true;
  }
  // Only the previous file and the filler: no temporary file is left behind.
  std::vector<std::string> names_in(const fs::path& d) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path full_;
  bool mounted_ = false;
  std::string why_not_;
};

#define REQUIRE_TMPFS()                                   \
  do {                                                    \
    if (!can_mount()) GTEST_SKIP() << why_not_;           \
  } while (0)

}  // namespace

TEST_F(OutputFiles, AFullDiskLeavesThePreviousFileWhole) {
  REQUIRE_TMPFS();
  const fs::path d = full_disk_with({{"scores.json", "{\"previous\": true}\n"}});
  try {
    write_output_file((d / "scores.json").string(), std::string(32 << 10, 'n'));
    FAIL() << "a write to a full disk succeeded";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find((d / "scores.json").string() + ": cannot write (No space left on device)"), std::string::npos) << m;
    EXPECT_NE(m.find("the previous file, if any, is left as it was"), std::string::npos) << m;
  }
  EXPECT_EQ(read_file(d / "scores.json"), "{\"previous\": true}\n");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"filler", "scores.json"}));
}

TEST_F(OutputFiles, AFullDiskLeavesThePreviousWorkbookWhole) {
  if (!xlsx_available()) GTEST_SKIP() << "this build has no libxlsxwriter";
  REQUIRE_TMPFS();
  const fs::path d = full_disk_with({{"opmark.xlsx", "previous workbook"}});
  Sheet s;
  s.name = "specs";
  s.header = {"key", "value"};
  for (int i = 0; i < 4000; ++i) s.rows.push_back({SheetCell::of_text("k" + std::to_string(i)), SheetCell::of_number(i)});
  EXPECT_THROW(write_xlsx({s}, (d / "opmark.xlsx").string()), Error);
  EXPECT_EQ(read_file(d / "opmark.xlsx"), "previous workbook");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"filler", "opmark.xlsx"}));
}

// The commands: page and spreadsheet onto a full disk exit 2 and leave what was there.
TEST_F(OutputFiles, PageAndSpreadsheetOnAFullDiskExitNonZero) {
  REQUIRE_TMPFS();
  const fs::path d = full_disk_with({{"index.html", "previous page"}, {"sheet/specs.csv", "previous sheet"}});
  fs::create_directories(dir_ / "results");
  fs::copy(kData / "bundles" / "good", dir_ / "results" / "good", fs::copy_options::recursive);
  EXPECT_EQ(run({"page", (dir_ / "results").string(), "--out=" + (d / "index.html").string()}), 2);
  EXPECT_EQ(read_file(d / "index.html"), "previous page");

  EXPECT_EQ(run({"spreadsheet", (kData / "bundles" / "good").string(), "--out", (d / "sheet").string()}), 2);
  EXPECT_EQ(read_file(d / "sheet" / "specs.csv"), "previous sheet");
}

// A set of files where the disk holds the first but not the second: neither is replaced, and no temporary file is
// left (spreadsheet's sheets are such a set: some of each run's sheets mixed would be no run's).
TEST_F(OutputFiles, ASetOfFilesIsReplacedWholeOrNotAtAll) {
  REQUIRE_TMPFS();
  const fs::path d = full_disk_with({{"a.csv", "old a"}, {"b.csv", "old b"}});
  fs::resize_file(d / "filler", fs::file_size(d / "filler") - 4096);  // one page free: room for a.csv alone
  EXPECT_THROW(core::write_files_atomically({{(d / "a.csv").string(), std::string(100, 'a')},
                                             {(d / "b.csv").string(), std::string(20000, 'b')}}),
               Error);
  EXPECT_EQ(read_file(d / "a.csv"), "old a");
  EXPECT_EQ(read_file(d / "b.csv"), "old b");
  EXPECT_EQ(names_in(d), (std::vector<std::string>{"a.csv", "b.csv", "filler"}));
}

// A temporary file renames over the target: the previous content is gone only once the new one is whole; a folder
// or a link at the target is refused.
TEST_F(OutputFiles, WritesReplaceWholeAndRefuseFoldersAndLinks) {
  write_output_file((dir_ / "a.csv").string(), "old");
  write_output_file((dir_ / "a.csv").string(), "new");
  EXPECT_EQ(read_file(dir_ / "a.csv"), "new");
  EXPECT_EQ(names_in(dir_), (std::vector<std::string>{"a.csv"}));
  fs::create_directories(dir_ / "folder.csv");
  try {
    write_output_file((dir_ / "folder.csv").string(), "x");
    FAIL() << "wrote over a folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("folder.csv: a folder, not a regular file: not overwritten"),
              std::string::npos) << e.what();
  }
  write_file(dir_ / "victim", "precious");
  fs::create_symlink(dir_ / "victim", dir_ / "opmark.xlsx");
  if (xlsx_available()) {
    EXPECT_THROW(write_xlsx({}, (dir_ / "opmark.xlsx").string()), Error);
    EXPECT_EQ(read_file(dir_ / "victim"), "precious");
  }
}

// OWASP's advice for CSV injection: text that begins with =, +, -, @, a tab or a CR gets a leading single quote
// inside a quoted cell; numbers stay numbers.
TEST(CsvCells, FormulasAreWrittenAsText) {
  EXPECT_EQ(csv_field("=cmd|' /C calc'!A0"), "\"'=cmd|' /C calc'!A0\"");
  EXPECT_EQ(csv_field("@SUM(A1:A9)"), "\"'@SUM(A1:A9)\"");
  EXPECT_EQ(csv_field("+1+cmd"), "\"'+1+cmd\"");
  EXPECT_EQ(csv_field("-"), "\"'-\"");
  EXPECT_EQ(csv_field("\t=1"), "\"'\t=1\"");
  EXPECT_EQ(csv_field("\r=1"), "\"'\r=1\"");
  EXPECT_EQ(csv_field("=\"a\",b"), "\"'=\"\"a\"\",b\"");
  // Numbers, plain text and text with a comma as before.
  for (const char* number : {"-0.25", "+3", "-1e-05", "12", "0.294912", "-7E+3"}) EXPECT_EQ(csv_field(number), number);
  EXPECT_EQ(csv_field("NVIDIA H200"), "NVIDIA H200");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("a=b"), "a=b");
}

// A submitter's context value reaches specs.csv as text.
TEST(CsvCells, AContextFormulaReachesSpecsAsText) {
  ResultSet results;
  results.context["host"] = "=cmd|' /C calc'!A0";
  results.context["sm_count"] = "132";
  const std::vector<Sheet> sheets = deepbench_sheets(results);
  const std::string csv = csv_text(sheets.back());
  EXPECT_NE(csv.find("host,\"'=cmd|' /C calc'!A0\"\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("sm_count,132\n"), std::string::npos) << csv;
}

// Two runs joined into one log: scores and compare say where the second begins, instead of merging them.
TEST_F(OutputFiles, TwoRunsInOneLogAreRefused) {
  const std::string one = read_file(kData / "results_before.jsonl");
  write_file(dir_ / "two.jsonl", one + one);
  try {
    load_results_or_bundle((dir_ / "two.jsonl").string(), Statistic::median);
    FAIL() << "two runs merged";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "two.jsonl").string() +
                                         ":5: a second run's context line: this file holds 2 runs (logs joined into "
                                         "one?); give each run's results.jsonl on its own");
  }
  EXPECT_EQ(run({"compare", (dir_ / "two.jsonl").string(), (kData / "results_before.jsonl").string()}), 2);
  EXPECT_EQ(run({"scores", (dir_ / "two.jsonl").string()}), 2);
  EXPECT_NO_THROW(load_results_or_bundle((kData / "results_before.jsonl").string(), Statistic::median));
}

// Names and context values with ESC, CR, NUL and DEL are printed escaped by compare (check prints its problems
// through the same helper, core::terminal_text).
TEST_F(OutputFiles, CompareEscapesControlCharacters) {
  const std::string line =
      "{\"type\":\"run\",\"name\":\"evil\\u001b[31mred\\r\\u0000x\\u007f\",\"status\":\"ok\",\"repetition\":0,"
      "\"time_us\":10.0}\n";
  write_file(dir_ / "evil.jsonl", "{\"type\":\"context\",\"context\":{\"gpu\":\"G\\u001b[2J\"}}\n" + line);
  for (const char* format : {"--format=md", "--format=csv"}) {
    ::testing::internal::CaptureStdout();
    run({"compare", "--all", format, (dir_ / "evil.jsonl").string(), (dir_ / "evil.jsonl").string()});
    const std::string out = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << format;
    EXPECT_EQ(out.find('\r'), std::string::npos) << format;
    EXPECT_EQ(out.find('\0'), std::string::npos) << format;
    EXPECT_EQ(out.find('\x7f'), std::string::npos) << format;
    if (std::string(format) == "--format=md") EXPECT_NE(out.find("G\\x1b[2J"), std::string::npos) << out;
    EXPECT_NE(out.find("evil\\x1b[31mred\\x0d\\x00x\\x7f"), std::string::npos) << out;
  }
}

// scores over two systems quotes their GPU names in its tables and notes: a name with a title-setting sequence (ESC
// ... BEL) is printed escaped.
TEST_F(OutputFiles, ScoresEscapesControlCharacters) {
  std::string text = read_file(kData / "results_before.jsonl");
  const std::string gpu = "\"gpu\":\"";
  const std::size_t at = text.find(gpu);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + gpu.size(), "G\\u001b]0;title\\u0007");
  write_file(dir_ / "evil.jsonl", text);
  ::testing::internal::CaptureStdout();
  run({"scores", "--allow-missing", (dir_ / "evil.jsonl").string(), (kData / "results_before.jsonl").string()});
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_NE(out.find("G\\x1b]0;title\\x07"), std::string::npos) << out;
}

// A plain run's --opmark_out folder (results.jsonl in it, no run/ inside) is read as that run: the README's scoring
// command takes the folder the main command wrote.
TEST_F(OutputFiles, APlainRunFolderIsReadAsItsResults) {
  const std::string one = read_file(kData / "results_before.jsonl");
  fs::create_directories(dir_ / "run_folder");
  write_file(dir_ / "run_folder" / "results.jsonl", one);
  const ResultSet folder = load_results_or_bundle((dir_ / "run_folder").string(), Statistic::median);
  const ResultSet file = load_results_or_bundle((kData / "results_before.jsonl").string(), Statistic::median);
  EXPECT_EQ(folder.cases.size(), file.cases.size());
  EXPECT_GT(folder.cases.size(), 0u);
  EXPECT_EQ(run({"scores", (dir_ / "run_folder").string()}), run({"scores", (kData / "results_before.jsonl").string()}));
}

// The page over a plain run's folder, and over a folder of runs: never checked, so shown only with --runs, apart.
TEST_F(OutputFiles, ThePageShowsAPlainRunFolderOnlyWhenAsked) {
  const std::string one = read_file(kData / "results_before.jsonl");
  fs::create_directories(dir_ / "runs" / "first");
  write_file(dir_ / "runs" / "first" / "results.jsonl", one);
  EXPECT_EQ(run({"page", (dir_ / "runs").string(), "--out=" + (dir_ / "index.html").string()}), 2);
  EXPECT_FALSE(fs::exists(dir_ / "index.html"));
  EXPECT_EQ(run({"page", (dir_ / "runs").string(), "--runs", "--out=" + (dir_ / "index.html").string()}), 0);
  const std::string html = read_file(dir_ / "index.html");
  EXPECT_NE(html.find("0 submission bundles under"), std::string::npos);
  EXPECT_NE(html.find("1 plain run</a> shown apart at the end, <strong>not checked</strong>"), std::string::npos);
  EXPECT_EQ(run({"page", (dir_ / "runs" / "first").string(), "--runs", "--out=" + (dir_ / "one.html").string()}), 0);
  // A bundle's own run/ folder is no plain run of its own.
  fs::create_directories(dir_ / "bundle" / "run");
  write_file(dir_ / "bundle" / "system.yaml", "not checked here\n");
  write_file(dir_ / "bundle" / "run" / "results.jsonl", one);
  EXPECT_EQ(run({"page", (dir_ / "bundle").string(), "--runs", "--out=" + (dir_ / "b.html").string()}), 2);
}
