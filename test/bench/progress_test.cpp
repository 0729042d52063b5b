// Progress lines (case i of N, elapsed, time left) and the host facts of the context.
#include <gtest/gtest.h>

#include <cstdio>

#include "bench/harness/gpu_state/host_info.h"
#include "bench/harness/output/progress.h"

using namespace opmark::bench;

namespace {
// What was written to `out`, which is closed.
std::string read_and_close(std::FILE* out) {
  std::rewind(out);
  char line[256];
  std::string text;
  while (std::fgets(line, sizeof line, out)) text += line;
  std::fclose(out);
  return text;
}
}  // namespace

TEST(Progress, LineSaysDoneTotalElapsedAndLeft) {
  EXPECT_EQ(progress_line(0, 10, 0), "[0/10] 0s elapsed");
  // 4 cases in 100 s: 25 s each, 6 left: 150 s.
  EXPECT_EQ(progress_line(4, 10, 100), "[4/10] 1m40s elapsed, about 2m30s left");
  EXPECT_EQ(progress_line(10, 10, 4000), "[10/10] 1h06m elapsed");
}

TEST(Progress, EachCaseCountsOnce) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Progress p(2, out, /*every_s=*/0);
  p.reported("a");
  p.reported("a");  // its aggregates, reported after its repetitions
  p.reported("b");
  const std::string text = read_and_close(out);
  EXPECT_NE(text.find("[1/2]"), std::string::npos);
  EXPECT_NE(text.find("[2/2]"), std::string::npos);
  EXPECT_EQ(text.find("[3/2]"), std::string::npos);
}

TEST(Progress, PrintsAtMostEveryFewSecondsAndAtTheLastCase) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Progress p(3, out, /*every_s=*/3600);
  p.reported("a");
  p.reported("b");
  p.reported("c");
  const std::string text = read_and_close(out);
  EXPECT_EQ(text.find("[1/3]"), std::string::npos) << text;
  EXPECT_EQ(text.find("[2/3]"), std::string::npos) << text;
  EXPECT_NE(text.find("[3/3]"), std::string::npos) << text;
}

TEST(HostInfo, ParsesCpuModelAndDriverVersion) {
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n"
                            "processor\t: 1\nmodel name\t: other\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(parse_cpu_model("processor: 0\n"), "");
  EXPECT_EQ(parse_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build"
                                 "  (dvs-builder@U22)  Thu Oct  2 2025\nGCC version:  gcc version 12\n"),
            "580.159.04");
  EXPECT_EQ(parse_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"),
            "535.104.05");
  EXPECT_EQ(parse_driver_version(""), "");
}
