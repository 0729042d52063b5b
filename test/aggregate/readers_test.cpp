// The aggregator's readers and writers on what issue 21 found them taking: JSON nested 100 000 deep (a crash),
// gzip bombs, devices and pipes, symbolic links, torn and cut files, and malformed fields surfacing as the JSON
// library's own words. A run killed while writing a line (SIGKILL, for real) stays readable.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "aggregate/bundle.h"
#include "aggregate/cli.h"
#include "aggregate/files.h"
#include "aggregate/results.h"
#include "core/error.h"
#include "../file_util.h"

namespace fs = std::filesystem;
using namespace opmark;
using namespace opmark::aggregate;

namespace {

const std::string kContext = "{\"type\":\"context\",\"context\":{\"gpu\":\"G\"}}\n";

std::string run_line(const std::string& name, int rep, double t) {
  return "{\"type\":\"run\",\"name\":\"" + name + "\",\"status\":\"ok\",\"repetition\":" + std::to_string(rep) +
         ",\"time_us\":" + std::to_string(t) + "}\n";
}

// The message of the Error that parsing `text` as r.jsonl throws ("" where none is thrown).
std::string error_of(const std::string& text, const ReadLimits& limits = ReadLimits{}) {
  try {
    parse_results(text, "r.jsonl", Statistic::median, limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string read_error(const std::string& path, const ReadLimits& limits = ReadLimits{}) {
  try {
    read_results_text(path, limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

using test::read_file;
using test::write_file;

class ReaderFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("opmark_readers_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // `text` gzip-compressed into `path` by the gzip command; false where there is none.
  bool gzip(const std::string& text, const fs::path& path) const {
    write_file(dir_ / "plain", text);
    const std::string command = "gzip -c '" + (dir_ / "plain").string() + "' > '" + path.string() + "' 2>/dev/null";
    return std::system(command.c_str()) == 0;
  }
  fs::path dir_;
};

}  // namespace

// JSON nested 100 000 deep crashed the aggregator, check, pack and page (the JSON library recurses): an error now,
// naming the line, in results.jsonl (a context or a case line) and in a whole document (benchmark.json).
TEST(Readers, DeeplyNestedJsonIsAnErrorNamingTheLine) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(error_of(std::string("{\"type\":\"context\",\"context\":{\"x\":") + deep + "}}\n"),
            "r.jsonl:1: JSON nested deeper than 64 levels (opmark writes 3): not read");
  EXPECT_EQ(error_of(kContext + run_line("c", 0, 5) + "{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"sets\":" +
                     deep + "}\n"),
            "r.jsonl:3: JSON nested deeper than 64 levels (opmark writes 3): not read");
  EXPECT_EQ(error_of("{\n  \"context\": {},\n  \"benchmarks\": [\n" + deep + "\n]}\n"),
            "r.jsonl:4: JSON nested deeper than 64 levels (opmark writes 3): not read");
  // A bracket inside a string is no nesting.
  EXPECT_EQ(error_of(kContext + "{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"time_us\":5,\"label\":\"" +
                     std::string(1000, '[') + "\"}\n"),
            "");
  EXPECT_THROW(parse_json_document(deep, "scores.json"), Error);
}

// A line longer than the limit is refused before it is parsed.
TEST(Readers, ALineOverTheLimitIsRefused) {
  ReadLimits limits;
  limits.max_line_bytes = 100;
  EXPECT_EQ(error_of(kContext + run_line("c", 0, 5) + "{\"type\":\"run\",\"label\":\"" + std::string(200, 'x') + "\"}\n",
                     limits),
            "r.jsonl:3: a line of 225 bytes, over the limit of 100 (opmark-bench writes about 1 KB per line)");
}

// 25 of the aggregator's bad inputs surfaced as the JSON library's "type must be number, but is string": now each
// names the file, the line and the field.
TEST(Readers, MalformedFieldsAreNamedWithFileLineAndField) {
  const std::string head = kContext + run_line("c", 0, 5);
  const auto line2 = [&](const std::string& fields) { return error_of(head + "{" + fields + "}\n"); };
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":"fast")"),
            "r.jsonl:3: field 'time_us': expected a number, got a string");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":5,"time_us":5)"),
            "r.jsonl:3: field 'status': expected a string, got a number");
  EXPECT_EQ(line2(R"("type":"run","name":["c"],"status":"ok","time_us":5)"),
            "r.jsonl:3: field 'name': expected a string, got an array");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":5,"label":7)"),
            "r.jsonl:3: field 'label': expected a string, got a number");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":5,"verification":null)"),
            "r.jsonl:3: field 'verification': expected a string, got null");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":5,"counters":[1])"),
            "r.jsonl:3: field 'counters': expected an object, got an array");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":5,"sets":"train")"),
            "r.jsonl:3: field 'sets': expected a list of names, got a string");
  EXPECT_EQ(line2(R"("type":"aggregate","aggregate":7,"name":"c","status":"ok","time_us":5)"),
            "r.jsonl:3: field 'aggregate': expected a string, got a number");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","repetition":-1,"time_us":5)"),
            "r.jsonl:3: field 'repetition': expected a repetition number (0, 1, ...), got -1");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok")"), "r.jsonl:3: missing key 'time_us'");
  EXPECT_EQ(line2(R"("type":7)"), "r.jsonl:3: field 'type': expected a string, got a number");
  EXPECT_EQ(error_of(head + "[1,2]\n"), "r.jsonl:3: expected a JSON object, got an array");
  EXPECT_EQ(line2(R"("type":"run","name":"c","status":"ok","time_us":1e999)").rfind("r.jsonl:3: not a JSON line (", 0), 0u);
  EXPECT_EQ(error_of(R"({"context": {}, "benchmarks": [)" "\n" R"({"name": "c", "real_time": 1e999})" "\n]}\n")
                .rfind("r.jsonl: not valid JSON (", 0),
            0u);
  EXPECT_EQ(error_of("{\"type\":\"context\",\"context\":\"G\"}\n"),
            "r.jsonl:1: field 'context': expected an object, got a string");
  // benchmark.json: the entry and the field.
  const auto bench = [](const std::string& entry) {
    return error_of(R"({"context": {}, "benchmarks": [)" "\n" + entry + "\n]}\n");
  };
  EXPECT_EQ(bench(R"({"name": "c", "real_time": "5", "time_unit": "us"})"),
            "r.jsonl: benchmarks[0]: field 'real_time': expected a number, got a string");
  EXPECT_EQ(bench(R"({"name": "c", "real_time": 5, "time_unit": "fortnights"})"),
            "r.jsonl: benchmarks[0]: field 'time_unit': expected ns, us, ms or s, got 'fortnights'");
  EXPECT_EQ(bench(R"({"name": "c", "error_occurred": "yes"})"),
            "r.jsonl: benchmarks[0]: field 'error_occurred': expected true or false, got a string");
  EXPECT_EQ(bench(R"({"name": 5, "real_time": 5})"), "r.jsonl: benchmarks[0]: field 'name': expected a string, got a number");
  EXPECT_EQ(error_of(R"({"context": {}, "benchmarks": {"a": 1}})"),
            "r.jsonl: field 'benchmarks': expected a list, got an object");
}

// The statuses opmark writes, and nothing else: "error", "crashed" or "" are no results (they passed the checker).
TEST(Readers, AStatusOpmarkDoesNotWriteIsAnError) {
  for (const std::string status : {"error", "crashed", "", "OK"})
    EXPECT_EQ(error_of(std::string(kContext) + R"({"type":"run","name":"c","status":")" + status + "\"}\n"),
              "r.jsonl:2: field 'status': expected ok, unstable, skipped or failed, got '" + status + "'");
}

// Times: a positive, finite number of us from 1 ns to an hour; the aggregator took -40, 0, 1e-300 and 1e300.
TEST(Readers, TimesOutsideOneNanosecondToAnHourAreErrors) {
  for (const char* t : {"-40", "0", "1e-300", "1e300", "5e-4", "4e9"})
    EXPECT_EQ(error_of(kContext + std::string(R"({"type":"run","name":"c","status":"ok","time_us":)") + t + "}\n")
                  .rfind("r.jsonl:2: field 'time_us': expected a time of one operation from 0.001 us (1 ns) to 3.6e9 "
                         "us (an hour), got ", 0),
              0u) << t;
  EXPECT_EQ(error_of(kContext + run_line("c", 0, 0.001) + run_line("c", 1, 3.6e9)), "");
  // benchmark.json, after its unit: 2e-3 ns is 2e-6 us.
  EXPECT_NE(error_of(R"({"context": {}, "benchmarks": [)" "\n" R"({"name": "c", "real_time": 2e-3, "time_unit": "ns"})"
                     "\n]}\n")
                .find("field 'real_time': expected a time of one operation"),
            std::string::npos);
}

// A results log cut mid-line (what kill -9 leaves): the torn line is left out with a warning, the rest is used.
TEST(Readers, ATornLastLineIsAWarningAndTheRestIsUsed) {
  const std::string whole = kContext + run_line("a", 0, 5) + run_line("a", 1, 7) + run_line("b", 0, 9);
  const ResultSet r = parse_results(whole.substr(0, whole.size() - 20), "r.jsonl", Statistic::median);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("r.jsonl: line 4 is incomplete: the run stopped there", 0), 0u) << r.warnings[0];
  EXPECT_EQ(r.torn_line, 4);
  EXPECT_DOUBLE_EQ(r.cases.at("a").time_us, 6.0);
  EXPECT_EQ(r.cases.count("b"), 0u);
  // A malformed line that ends with its newline is no torn line: an error.
  EXPECT_EQ(error_of(kContext + "{\"type\":\"run\",\"na\n" + run_line("a", 0, 5)).rfind("r.jsonl:2: not a JSON line", 0), 0u);
  // The whole file intact: no warning.
  EXPECT_TRUE(parse_results(whole, "r.jsonl", Statistic::median).warnings.empty());
}

// A writer killed with SIGKILL in the middle of a line, as opmark-bench's log is written (a line, flushed, per
// repetition): every line before the torn one is read.
TEST_F(ReaderFiles, AWriterKilledMidLineLeavesAReadableLog) {
  const fs::path log = dir_ / "results.jsonl";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const auto put = [&](const std::string& text) {
      if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(3);
    };
    put(kContext);
    for (int i = 0; i < 40; ++i) put(run_line("gemm/fwd/fp16/m=" + std::to_string(i), 0, 10 + i));
    const std::string next = run_line("gemm/fwd/fp16/m=40", 0, 50);
    put(next.substr(0, next.size() / 2));  // half a line, then the kill
    ::fsync(fd);
    const char go = 1;
    if (::write(ready[1], &go, 1) != 1) ::_exit(4);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char go = 0;
  ASSERT_EQ(::read(ready[0], &go, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  const ResultSet r = load_results(log.string(), Statistic::median);
  EXPECT_EQ(r.cases.size(), 40u);
  EXPECT_DOUBLE_EQ(r.cases.at("gemm/fwd/fp16/m=39").time_us, 49.0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], log.string() + ": line 42 is incomplete: the run stopped there (its " +
                               std::to_string(run_line("gemm/fwd/fp16/m=40", 0, 50).size() / 2) +
                               " bytes are left out; everything before it is used)");
}

// A key twice in one object of a line (nested too) is refused with the line and the key; the same name in two
// objects is no repeat, nor is a colon inside a string.
TEST(Readers, AKeyTwiceInOneObjectIsRefused) {
  EXPECT_EQ(error_of(kContext + "{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"repetition\":0,"
                                "\"time_us\":1,\"time_us\":2}\n"),
            "r.jsonl:2: the key \"time_us\" appears twice in one object (a JSON reader keeps one of the two silently; "
            "opmark writes each once): not read");
  EXPECT_NE(error_of(kContext + "{\"type\":\"run\",\"name\":\"c\",\"status\":\"ok\",\"repetition\":0,"
                                "\"time_us\":1,\"counters\":{\"noise\":1,\"noise\":2}}\n")
                .find("the key \"noise\" appears twice"),
            std::string::npos);
  EXPECT_EQ(error_of(kContext + "{\"type\":\"run\",\"name\":\"c: a:b\",\"status\":\"ok\",\"repetition\":0,"
                                "\"time_us\":1,\"counters\":{\"time_us\":1}}\n"),
            "");
}

// A gzip file cut short (even at a line boundary, or only its trailer gone) is an error that says so.
TEST_F(ReaderFiles, ACutGzipStreamIsAnError) {
  std::string text = kContext;
  for (int i = 0; i < 2000; ++i) text += run_line("c" + std::to_string(i), 0, 1 + i);
  if (!gzip(text, dir_ / "r.jsonl.gz")) GTEST_SKIP() << "no gzip command";
  const std::string gz = read_file(dir_ / "r.jsonl.gz");
  ASSERT_TRUE(load_results((dir_ / "r.jsonl.gz").string(), Statistic::median).warnings.empty());
  for (const std::size_t keep : {gz.size() - 8, gz.size() / 2}) {
    write_file(dir_ / "cut.jsonl.gz", gz.substr(0, keep));
    EXPECT_EQ(read_error((dir_ / "cut.jsonl.gz").string())
                  .rfind((dir_ / "cut.jsonl.gz").string() + ": the compressed results file stops short of its end", 0),
              0u) << keep;
  }
  std::string corrupt = gz;
  corrupt[corrupt.size() - 6] ^= 0x55;  // the checksum
  write_file(dir_ / "bad.jsonl.gz", corrupt);
  EXPECT_NE(read_error((dir_ / "bad.jsonl.gz").string()).find("not a readable gzip file"), std::string::npos);
}

// Bytes after the gzip stream (a file appended to) are an error naming their count; a second gzip member (two
// compressed files joined, as gzip itself reads them) is read.
TEST_F(ReaderFiles, BytesAfterTheGzipStreamAreAnErrorAndASecondMemberIsRead) {
  const std::string text = kContext + run_line("c1", 0, 1);
  if (!gzip(text, dir_ / "r.jsonl.gz")) GTEST_SKIP() << "no gzip command";
  const std::string gz = read_file(dir_ / "r.jsonl.gz");
  write_file(dir_ / "tail.jsonl.gz", gz + "garbage after the stream");
  EXPECT_EQ(read_error((dir_ / "tail.jsonl.gz").string()),
            (dir_ / "tail.jsonl.gz").string() + ": 24 bytes follow the end of the compressed results file (appended to, "
                                               "or two files joined?): not read");
  const std::string second = run_line("c2", 0, 2);
  ASSERT_TRUE(gzip(second, dir_ / "second.gz"));
  write_file(dir_ / "joined.jsonl.gz", gz + read_file(dir_ / "second.gz"));
  EXPECT_EQ(load_results((dir_ / "joined.jsonl.gz").string(), Statistic::median).cases.size(), 2u);
}

// A gzip bomb (100 MB of zeros in about 100 KB) is refused at 16 MiB + 100 times its size, not read to the end.
TEST_F(ReaderFiles, AGzipBombIsRefused) {
  const std::string command = "head -c 100000000 /dev/zero | gzip -c > '" + (dir_ / "bomb.gz").string() + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "no gzip command";
  const std::string e = read_error((dir_ / "bomb.gz").string());
  EXPECT_NE(e.find("inflates to more than"), std::string::npos) << e;
  EXPECT_NE(e.find("(over 100 times its size beyond the first 16 MiB): not a results file (a gzip bomb?)"),
            std::string::npos) << e;
  // The plain size limit, and a smaller bound where a caller sets one.
  ReadLimits small;
  small.max_bytes = 1000;
  write_file(dir_ / "big.jsonl", std::string(5000, '\n'));
  EXPECT_NE(read_error((dir_ / "big.jsonl").string(), small).find("big.jsonl: results file of 5000 bytes, over the limit of 1000 bytes"), std::string::npos);
}

// Only regular files: /dev/zero (directly, or as a bundle's results.jsonl.gz through a link) was read until
// bad_alloc; a pipe would block.
TEST_F(ReaderFiles, DevicesPipesAndFoldersAreRefused) {
  EXPECT_EQ(read_error("/dev/zero"), "/dev/zero: a device, not a regular file: results file must be a file");
  fs::create_symlink("/dev/zero", dir_ / "zero.jsonl.gz");
  EXPECT_NE(read_error((dir_ / "zero.jsonl.gz").string()).find("a device, not a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_NE(read_error((dir_ / "fifo").string()).find("a pipe, not a regular file"), std::string::npos);
  EXPECT_NE(read_error(dir_.string()).find("a folder, not a regular file"), std::string::npos);
  EXPECT_NE(read_error((dir_ / "none").string()).find("cannot open results file (No such file or directory)"),
            std::string::npos);
}

// Inside a bundle no file may be a link (into another bundle, at a device); the command line's own files may.
TEST_F(ReaderFiles, ABundleFileBehindALinkIsNotRead) {
  write_file(dir_ / "elsewhere.jsonl", kContext + run_line("c", 0, 5));
  fs::create_directories(dir_ / "bundle");
  fs::create_directory_symlink(dir_, dir_ / "bundle" / "run");
  fs::copy_file(dir_ / "elsewhere.jsonl", dir_ / "results.jsonl");
  EXPECT_NO_THROW(load_results((dir_ / "bundle/run/results.jsonl").string(), Statistic::median));
  try {
    load_bundle_results((dir_ / "bundle").string(), Statistic::median);
    FAIL() << "read through a link";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "bundle" / "run").string() +
                                         ": a symbolic link, not read: a bundle holds its own files (copy the file "
                                         "in, not a link to it)");
  }
  EXPECT_EQ(symlink_in_bundle((dir_ / "bundle").string(), "run/results.jsonl"), (dir_ / "bundle" / "run").string());
  EXPECT_EQ(symlink_in_bundle(dir_.string(), "results.jsonl"), "");
}

// Writers never follow a link: a link planted at scores.json or index.html would have any file it points to
// overwritten.
TEST_F(ReaderFiles, WritersRefuseSymbolicLinks) {
  write_file(dir_ / "victim", "precious");
  fs::create_symlink(dir_ / "victim", dir_ / "index.html");
  try {
    write_output_file((dir_ / "index.html").string(), "page");
    FAIL() << "wrote through a link";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index.html: a symbolic link, not written through"), std::string::npos);
  }
  EXPECT_EQ(read_file(dir_ / "victim"), "precious");
  fs::create_symlink(dir_ / "missing-target", dir_ / "dangling");  // a dangling link would create its target
  EXPECT_THROW(write_output_file((dir_ / "dangling").string(), "x"), Error);
  EXPECT_FALSE(fs::exists(dir_ / "missing-target"));
  write_output_file((dir_ / "sub" / "plain.txt").string(), "ok");
  EXPECT_EQ(read_file(dir_ / "sub" / "plain.txt"), "ok");
}

// pack --rederive writes scores.json and the spreadsheet: never through a link there.
TEST_F(ReaderFiles, PackRefusesToWriteThroughALink) {
  const fs::path data = fs::path(OPMARK_SOURCE_DIR) / "test" / "data" / "bundles";
  fs::copy(data / "good", dir_ / "b", fs::copy_options::recursive);
  write_file(dir_ / "victim", "precious");
  fs::remove(dir_ / "b" / "scores.json");
  fs::create_symlink(dir_ / "victim", dir_ / "b" / "scores.json");
  std::vector<std::string> args = {"pack", (dir_ / "b").string(), "--rederive", "--rules=" + (data / "rules.yaml").string(),
                                   "--shapes=" + (data / "shapes").string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(pack_main(static_cast<int>(argv.size()), argv.data()), 2);
  EXPECT_EQ(read_file(dir_ / "victim"), "precious");
  EXPECT_TRUE(fs::exists(dir_ / "b" / "spreadsheet" / "fp16_gemm.csv"));  // refused before anything was removed
}
