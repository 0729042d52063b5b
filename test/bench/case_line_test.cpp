// The console's line per case (issue 38): the columns a person reads, aligned with the header, and a reason where
// a case did not run.
#include <gtest/gtest.h>

#include <sstream>

#include "bench/harness/output/case_line.h"

using namespace opmark::bench;
using opmark::bench::CaseLine;
using opmark::bench::case_line_header;
using opmark::bench::format_case_line;

TEST(CaseLine, AMeasuredCaseShowsItsTimeRateClockPowerAndEnergy) {
  CaseLine l;
  l.name = "gemm/fwd/bf16/m=8192/n=8192/k=8192/ta=N/tb=N/batch=1";
  l.status = "ok";
  l.time_us = 1388.9;
  l.counters = {{"kernel_us", 1385.2}, {"tflops", 791.6}, {"pct_peak", 80.0},
                {"sm_clock_mhz", 1514}, {"power_w", 759.2}, {"joules_per_op", 1.15}};
  const std::string line = format_case_line(l);
  EXPECT_EQ(line, "ok        1.389 ms  1.385 ms 791.6 TFLOPS    80% 1514 MHz 759 W   1.15 J  " + l.name);
  // Each column starts where its head does.
  const std::string head = case_line_header();
  EXPECT_EQ(head.find("case"), line.find("gemm/"));
  EXPECT_EQ(line.size(), 74 + l.name.size());  // the columns take 74 characters
}

TEST(CaseLine, AMemoryBoundCaseShowsGbPerSecondAndSmallEnergies) {
  CaseLine l;
  l.name = "pointwise/fwd/fp16/op=relu/rows=32/cols=4096/impl=opmark";
  l.status = "ok";
  l.time_us = 2.16;
  l.counters = {{"gb_per_s", 243.1}, {"pct_peak_bw", 7.2}, {"joules_per_op", 3.3e-7}, {"tflops", 0}};
  const std::string line = format_case_line(l);
  EXPECT_NE(line.find("2.16 us"), std::string::npos) << line;
  EXPECT_NE(line.find("243.1 GB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("7.2%"), std::string::npos) << line;
  EXPECT_NE(line.find("0.33 uJ"), std::string::npos) << line;
}

TEST(CaseLine, ACollectiveShowsItsBusBandwidthAndItsShareOfTheLinks) {
  CaseLine l;
  l.name = "allreduce/fwd/fp32/count=1073741824/ranks=4";
  l.status = "ok";
  l.time_us = 17800;
  l.counters = {{"gb_per_s", 241.2}, {"busbw_factor", 1.5}, {"pct_link_bw", 80.4}};
  const std::string line = format_case_line(l);
  EXPECT_NE(line.find("361.8 GB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("80.4%"), std::string::npos) << line;
}

TEST(CaseLine, ACaseThatDidNotRunGivesItsReasonAndAnUnstableOneIsMarked) {
  CaseLine l;
  l.name = "conv/fwd/int8/n=1";
  l.status = "skipped";
  l.reason = std::string(300, 'x');
  std::string line = format_case_line(l);
  EXPECT_EQ(line.rfind("skipped", 0), 0u);
  EXPECT_NE(line.find("conv/fwd/int8/n=1: xxx"), std::string::npos);
  EXPECT_NE(line.find("..."), std::string::npos);  // cut to fit the line
  EXPECT_LE(line.size(), opmark::bench::kCaseLineWidth);
  l.status = "unstable";
  l.reason = "re-timed at 3.6 us against a median of 5.5 us";
  l.time_us = 5.5;
  line = format_case_line(l);
  EXPECT_NE(line.find("conv/fwd/int8/n=1: re-timed at 3.6 us"), std::string::npos) << line;
}

TEST(CaseLine, TinyRatesKeepTheColumnsWidth) {
  CaseLine l;
  l.name = "gemm/fwd/fp16/m=64/n=1/k=1216";
  l.status = "ok";
  l.time_us = 3.832;
  l.counters = {{"tflops", 0.04062}, {"pct_peak", 0.00411}};
  const std::string line = format_case_line(l);
  EXPECT_NE(line.find("40.62 GFLOPS <0.01%"), std::string::npos) << line;
  EXPECT_EQ(line.find(l.name), 74u) << line;
}

// The printer shows what the harness's record says, after the results log has it (CaseSinks hands records on in
// order); a case that did not run shows its reason.
TEST(CaseLine, ThePrinterShowsEachRecordAfterTheLogHasIt) {
  const opmark::core::Case c = opmark::core::make_case(
      "gemm", "fwd", "fp16", {{"m", std::int64_t{512}}, {"n", std::int64_t{16}}, {"k", std::int64_t{1024}}});
  Measurement m;
  m.median_s = 12.5e-6;
  const CaseRecord measured{c, opmark::core::make_case_name(c), {Status::ok, "", "", "", {{"tflops", 3.5}}, {}}, m, true};
  const CaseRecord skipped{c, opmark::core::make_case_name(c), {Status::skipped, "no CUDA device", "", "", {}, {}}, {}, false};

  struct Order final : CaseSink {
    void finished(const CaseRecord&) override { log += "log;"; }
    void retimed(const CaseRecord&) override { log += "retimed;"; }
    std::string log;
  } first;
  std::ostringstream out;
  CaseLinePrinter printer(out);
  CaseSinks sinks({&first, &printer});
  sinks.finished(measured);
  sinks.finished(skipped);
  sinks.retimed(measured);
  EXPECT_EQ(first.log, "log;log;retimed;");
  std::istringstream lines(out.str());
  std::string header, one, two, more;
  std::getline(lines, header);
  std::getline(lines, one);
  std::getline(lines, two);
  EXPECT_EQ(header, case_line_header());
  EXPECT_EQ(one, format_case_line(case_line_of(measured)));
  EXPECT_NE(one.find("12.5"), std::string::npos) << one;
  EXPECT_NE(two.find("no CUDA device"), std::string::npos) << two;
  EXPECT_FALSE(std::getline(lines, more)) << "the re-time prints no line: " << more;
}
