// The family lists of the two layers: the bench list (bench/families/list.cpp) and core's (core/schemas.cpp) name
// the same families, a family in one alone is named at start-up, and a throwaway family of a few lines (its schema
// and work, its workload and factory, one entry in each list) lists from a table, runs on a CPU stand-in and reports.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench/families/factories.h"
#include "bench/harness/output/counters.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/cases/registry.h"
#include "bench/harness/timing/repetitions.h"
#include "core/error.h"
#include "core/case.h"
#include "core/schema.h"
#include "core/table.h"

using namespace opmark;
using namespace opmark::bench;

namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

TEST(FamilyList, TheBenchListAndCoresNameTheSameFamilies) {
  EXPECT_TRUE(family_list_mismatches(family_list(), core::known_families()).empty());
  EXPECT_NO_THROW(check_family_lists(family_list(), core::known_families()));
  EXPECT_NO_THROW(WorkloadRegistry{family_list()});
}

TEST(FamilyList, AFamilyInOneLayerAloneIsNamed) {
  FamilyList bench = family_list();
  bench.push_back({"toy", nullptr});
  const std::vector<std::string> only_bench = family_list_mismatches(bench, core::known_families());
  ASSERT_EQ(only_bench.size(), 1u);
  EXPECT_NE(only_bench[0].find("family 'toy' is in the bench list"), std::string::npos) << only_bench[0];
  std::vector<std::string> core = core::known_families();
  core.push_back("toy");
  const std::vector<std::string> only_core = family_list_mismatches(family_list(), core);
  ASSERT_EQ(only_core.size(), 1u);
  EXPECT_NE(only_core[0].find("family 'toy' is in core/schemas.cpp but not in the bench list"), std::string::npos)
      << only_core[0];
  // Every family of core's list, left out of the bench list, is named; the start-up check says them all at once.
  for (const std::string& f : core::known_families()) {
    FamilyList without;
    for (const FamilyWorkload& w : family_list())
      if (f != w.family) without.push_back(w);
    EXPECT_TRUE(mentions(family_list_mismatches(without, core::known_families()), "'" + f + "'")) << f;
  }
  try {
    check_family_lists(bench, core::known_families());
    FAIL() << "no error for a family in the bench list alone";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'toy'"), std::string::npos) << e.what();
  }
}

TEST(FamilyList, ATypoInTheBenchListIsNamedBothWays) {
  FamilyList bench = family_list();
  for (FamilyWorkload& w : bench)
    if (std::string(w.family) == "gather") w.family = "gahter";
  const std::vector<std::string> m = family_list_mismatches(bench, core::known_families());
  EXPECT_TRUE(mentions(m, "'gather' is in core/schemas.cpp but not in the bench list")) << m.size();
  EXPECT_TRUE(mentions(m, "'gahter' is in the bench list")) << m.size();
}

TEST(FamilyList, AFamilyListedTwiceIsRefused) {
  FamilyList bench = family_list();
  bench.push_back(bench.front());
  EXPECT_THROW(WorkloadRegistry{bench}, Error);
}

namespace {

// The throwaway family: its own few lines, as docs/adding_a_family.md says. Core's side: a schema and its work.
core::Schema toy_schema() {
  core::Schema s;
  s.family = "toy";
  s.help = "a throwaway family: n elements, read and written once";
  s.fields = {{"n", core::FieldKind::positive_int, std::nullopt, {}, "elements", ""}};
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16"};
  return s;
}
core::Work toy_work(const core::Case& c) {
  core::Work w;
  w.flops = 2.0 * static_cast<double>(c.int_field("n"));
  w.bytes_read = w.bytes_written = 4.0 * static_cast<double>(c.int_field("n"));
  return w;
}

// The bench's side: a workload and its factory.
class ToyWorkload final : public Workload {
 public:
  void launch(cudaStream_t) override {}
  kernels::CompareResult verify(cudaStream_t) override { return {}; }
  std::string label() const override { return "toy's own label"; }
  std::map<std::string, double> counters() const override { return {{"toy_counter", 7}}; }
};
std::unique_ptr<Workload> make_toy_workload(const core::Case&, const RunContext&) {
  return std::make_unique<ToyWorkload>();
}

// A stand-in for the GPU's timer: 100 us a launch at the maximum clock, ten launches a sample.
struct StandInSource final : SampleSource {
  Sample sample() override {
    Sample s;
    s.seconds_per_launch = 100e-6;
    s.launches = 10;
    s.wall_seconds = 1e-3;
    s.clock.sm_mhz = 1980;
    return s;
  }
};

}  // namespace

TEST(FamilyList, AThrowawayFamilyListsRunsOnAStandInAndReports) {
  // One entry in each layer's list: core's registry for the test's lifetime, and a copy of the bench list.
  core::FamilyInfo info;
  info.schema = toy_schema();
  info.work = &toy_work;
  info.title = "Toy";
  info.library = "ours";
  const core::ScopedFamily toy_in_core(info);
  FamilyList bench = family_list();
  bench.push_back({"toy", make_toy_workload});
  ASSERT_TRUE(family_list_mismatches(bench, core::known_families()).empty());
  const WorkloadRegistry registry(bench);
  ASSERT_TRUE(registry.has("toy"));
  EXPECT_FALSE(registry.has("toy2"));

  // Lists: a shape table of the new family validates and expands into named cases, as any table does.
  const core::Table table = core::parse_table(
      "family: toy\n"
      "sets:\n"
      "  small:\n"
      "    precisions: [fp32, fp16]\n"
      "    directions: [fwd]\n"
      "    symbols: {N: 4096}\n"
      "    rows:\n"
      "      - {n: N}\n"
      "      - {n: 2*N}\n",
      "toy.yaml");
  const std::vector<core::Case> cases = core::expand_tables({table}, core::Selection{});
  std::vector<std::string> names;
  for (const core::Case& listed : cases) names.push_back(core::make_case_name(listed));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"toy/fwd/fp16/n=4096", "toy/fwd/fp16/n=8192", "toy/fwd/fp32/n=4096",
                                             "toy/fwd/fp32/n=8192"}));
  EXPECT_DOUBLE_EQ(core::work_of(cases.front()).flops, 2.0 * cases.front().int_field("n"));
  const core::Case c = core::parse_case_name("toy/fwd/fp32/n=4096");
  const DeviceInfo device;
  const Options options;
  const RunContext ctx{nullptr, device, options, 1, nullptr};
  std::unique_ptr<Workload> w = registry.make(c, ctx);
  ASSERT_NE(w, nullptr);

  // Runs: the burst loop over the stand-in, with a host clock that moves a millisecond a reading.
  StandInSource source;
  double t = 0;
  const HostTime host{[&] { return t += 1e-3; }, [&](double s) { t += s; }};
  BurstRule rule;
  rule.max_mhz = 1980;
  const Measurement m = measurement_of(run_burst_repetitions(source, nullptr, rule, host));
  EXPECT_EQ(m.stop, StopReason::steady);
  EXPECT_DOUBLE_EQ(m.median_s, 100e-6);

  // Reports: its own counter and label beside the harness's.
  CaseFacts facts;
  facts.work = {2e9, 1e6, 1e6};
  facts.precision = c.precision;
  facts.workload_counters = w->counters();
  facts.batch = 10;
  facts.graph = true;
  const std::map<std::string, double> k = case_counters(facts, m, Peaks{});
  EXPECT_DOUBLE_EQ(k.at("toy_counter"), 7);
  EXPECT_DOUBLE_EQ(k.at("tflops"), 20);  // 2 GFLOP in 100 us
  EXPECT_DOUBLE_EQ(k.at("repetitions"), 3);
  EXPECT_EQ(case_label(*w, false, false, TuningResult{}, "timing: a stand-in"),
            "toy's own label | timing: a stand-in");
}

TEST(FamilyList, AFamilyThisBuildCannotRunIsListedButHasNoWorkload) {
  const WorkloadRegistry registry(FamilyList{{"gemm", make_gemm_workload}, {"toy", nullptr}});
  EXPECT_TRUE(registry.has("gemm"));
  EXPECT_FALSE(registry.has("toy"));
  core::Case c;
  c.family = "toy";
  const DeviceInfo device;
  const Options options;
  const RunContext ctx{nullptr, device, options, 0, nullptr};
  try {
    registry.make(c, ctx);
    FAIL() << "a family without a factory made a workload";
  } catch (const UnsupportedError& e) {
    EXPECT_EQ(std::string(e.what()), "family 'toy' has no benchmark in this build");
  }
}

TEST(FamilyList, AScopedFamilyLeavesWithItsGuardAndCannotShadowARealOne) {
  core::FamilyInfo info;
  info.schema = toy_schema();
  info.work = &toy_work;
  {
    const core::ScopedFamily toy_in_core(info);
    EXPECT_TRUE(core::is_family("toy"));
  }
  EXPECT_FALSE(core::is_family("toy"));
  info.schema.family = "gemm";
  EXPECT_THROW(core::ScopedFamily{info}, Error);
  EXPECT_EQ(core::known_families().size(), family_list().size());
}
