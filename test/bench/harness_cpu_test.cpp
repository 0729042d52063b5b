// The harness's host-side logic, without a GPU: batching, throughput, energy and % of peak, classification of
// failures, seeds, the peak table, the results-log record, the stopping rule, the throttle and agreement guards,
// and the tuner's counters and the choice of its finalists.
#include <gtest/gtest.h>

#include <limits>

#include "bench/harness/tuning/autotune.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/harness.h"
#include "bench/harness/timing/measure.h"
#include "bench/harness/gpu_state/peaks.h"
#include "bench/harness/output/counters.h"
#include "bench/harness/output/results_log.h"
#include "bench/harness/timing/timer.h"
#include "bench/harness/tuning/tuning_report.h"
#include "core/error.h"

using namespace opmark;
using namespace opmark::bench;

TEST(Timer, ShortLaunchesAreBatched) {
  EXPECT_EQ(choose_batch(5e-3), 1);
  EXPECT_EQ(choose_batch(1e-3), 1);
  EXPECT_EQ(choose_batch(0.5e-3), 2);  // a batch lasts about 1 ms
  EXPECT_EQ(choose_batch(10e-6), 100);
  EXPECT_EQ(choose_batch(2e-6), 500);
  EXPECT_EQ(choose_batch(1e-9), kMaxBatch);
  EXPECT_EQ(choose_batch(0), 1);
  EXPECT_EQ(choose_batch(10e-6, 0.2e-3), 20);  // another target
}

TEST(Stopping, RepeatsUntilTheSpreadIsSmallWithAtLeastTheMinimum) {
  const StoppingRule rule{3, 10, 0.01, 2.0};
  EXPECT_EQ(stopping_decision({1.0, 1.0}, 0.1, rule), StopReason::more);  // two are never enough
  EXPECT_EQ(stopping_decision({1.0, 1.001, 0.999}, 0.1, rule), StopReason::steady);
  // Median 1.0, deviations {0, 0.1, 0.2}: spread 0.1 > 0.01, so more.
  EXPECT_EQ(stopping_decision({1.0, 1.1, 0.8}, 0.1, rule), StopReason::more);
  EXPECT_EQ(stopping_decision({1.0, 1.1, 0.8}, 2.5, rule), StopReason::time_cap);
  EXPECT_EQ(stopping_decision({1.0, 1.1}, 2.5, rule), StopReason::more);  // the cap never cuts below the minimum
  EXPECT_EQ(stopping_decision({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1, rule),
            StopReason::max_repetitions);
  // One outlier among steady repetitions does not keep it going: the median absolute deviation ignores it.
  EXPECT_EQ(stopping_decision({1.0, 1.0, 1.001, 3.0}, 0.1, rule), StopReason::steady);
  EXPECT_STREQ(name_of(StopReason::time_cap), "time_cap");
}

TEST(Stopping, RelativeSpreadIsTheMedianAbsoluteDeviationOverTheMedian) {
  EXPECT_DOUBLE_EQ(relative_spread({}), 0.0);
  EXPECT_DOUBLE_EQ(relative_spread({5.0}), 0.0);
  EXPECT_DOUBLE_EQ(relative_spread({2.0, 2.0, 2.0}), 0.0);
  EXPECT_NEAR(relative_spread({1.0, 1.1, 0.8}), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(median_of({3.0, 1.0, 2.0, 4.0}), 2.5);
}

// The span an ok case may show, shared with the checker: the H100 submission run of 2335f61 kept as ok a GEMM
// whose ten repetitions ran 3.83-11.02 us (two slow ones) with a spread of 2.7%, and the checker rejected it.
TEST(Guard, RepetitionsSpanAtMostWhatTheirSpreadAllows) {
  const std::vector<double> reps = {11.016, 4.027, 10.742, 4.113, 4.105, 4.741, 3.830, 4.189, 4.084, 3.972};
  EXPECT_NEAR(core::span_of(reps), 11.016 / 3.830, 1e-12);
  EXPECT_GT(core::span_of(reps), core::allowed_span(relative_spread(reps)));
  EXPECT_LE(core::span_of({4.0, 4.1, 5.0}), core::allowed_span(relative_spread({4.0, 4.1, 5.0})));  // one slow
  EXPECT_DOUBLE_EQ(core::allowed_span(0.01, 0.05), 1.3 * 1.2);  // the checker's floor: the rules' noise limit
  EXPECT_DOUBLE_EQ(core::span_of({}), 0.0);
}

TEST(Throttle, ClockEventNames) {
  EXPECT_EQ(clock_event::names(0), "none");
  EXPECT_EQ(clock_event::names(clock_event::sw_power_cap | clock_event::hw_thermal), "sw_power_cap+hw_thermal");
}

TEST(Guard, TimesAgreeWithinTheFactorEitherWay) {
  EXPECT_TRUE(times_agree(12e-6, 12.3e-6));
  EXPECT_TRUE(times_agree(10e-6, 13e-6));
  EXPECT_FALSE(times_agree(12.3e-6, 112e-6));  // the tuner's probe against a median from a slow spell
  EXPECT_FALSE(times_agree(112e-6, 12.3e-6));
  EXPECT_TRUE(times_agree(0, 5e-6));  // nothing to hold against
  EXPECT_TRUE(is_launch_bound(7.5e-6, 5.8e-6));
  EXPECT_FALSE(is_launch_bound(1376e-6, 1375e-6));
  EXPECT_FALSE(is_launch_bound(0, 1e-6));
}

TEST(Autotune, EveryTunedFamilyWritesTheSameCounters) {
  TuningResult r;
  const double inf = std::numeric_limits<double>::infinity();
  r.seconds = {4e-6, 2e-6, inf};
  r.best = 1;
  r.default_index = 0;
  const auto c = r.counters();
  EXPECT_DOUBLE_EQ(c.at("candidates"), 3);
  EXPECT_DOUBLE_EQ(c.at("default_us"), 4.0);
  EXPECT_DOUBLE_EQ(c.at("autotune_speedup"), 2.0);
  EXPECT_DOUBLE_EQ(c.at("tuning_finalists"), 0);  // no confirmation ran
  EXPECT_DOUBLE_EQ(c.at("runner_up_us"), 4.0);      // the next fastest that ran
  TuningResult alone;
  alone.seconds = {3e-6, inf};
  alone.best = 0;
  EXPECT_EQ(alone.counters().count("runner_up_us"), 0u);  // no other candidate ran
  r.finalists = 3;
  EXPECT_DOUBLE_EQ(r.counters().at("tuning_finalists"), 3);
  r.default_index = 2;  // the default failed: unknown, not infinite
  EXPECT_DOUBLE_EQ(r.counters().at("default_us"), 0.0);
  EXPECT_DOUBLE_EQ(r.counters().at("autotune_speedup"), 0.0);
  r.default_index = -1;  // the library has no default
  EXPECT_DOUBLE_EQ(r.speedup(), 0.0);
}

// The confirmation's finalists: within kConfirmMargin of the fastest round median, the fastest first, at most
// kMaxFinalists; a candidate not timed in the rounds (infinity) or with no number (NaN) is never one.
TEST(Autotune, FinalistsAreTheCandidatesCloseToTheFastest) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(choose_finalists({10.4e-6, inf, 10e-6, 12e-6, nan, 10.45e-6}), (std::vector<int>{2, 0, 5}));
  EXPECT_EQ(choose_finalists({10e-6, 10.6e-6}), (std::vector<int>{0}));  // alone: nothing to confirm
  std::vector<int> first_ones(static_cast<std::size_t>(kMaxFinalists));  // capped at kMaxFinalists, in order
  for (int i = 0; i < kMaxFinalists; ++i) first_ones[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(choose_finalists({5e-6, 5e-6, 5e-6, 5e-6, 5e-6, 5e-6}), first_ones);
  EXPECT_EQ(choose_finalists({5e-6, 5.1e-6, 5.2e-6}, 1.05, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(choose_finalists({1.0, 1.1, 1.3}, 1.2), (std::vector<int>{0, 1}));
  EXPECT_TRUE(choose_finalists({inf, nan}).empty());
  EXPECT_TRUE(choose_finalists({}).empty());
  EXPECT_GT(kConfirmMargin, 1.0);
  EXPECT_GE(kMaxFinalists, 2);
}

// The confirmation's winner: the lowest median of its samples, which may overturn the rounds' order (finalists
// come fastest first, so the rounds' faster one wins a tie).
TEST(Autotune, TheConfirmationsLowestMedianWins) {
  // The rounds' fastest (position 0) is slower with measurement-length batches; one outlier does not decide.
  EXPECT_EQ(fastest_median({{15.6e-6, 15.5e-6, 15.7e-6, 15.6e-6, 15.5e-6},
                            {15.2e-6, 15.3e-6, 99e-6, 15.2e-6, 15.3e-6}}),
            1);
  EXPECT_EQ(fastest_median({{2.0, 3.0, 1.0}, {2.0, 2.0, 2.0}}), 0);  // equal medians: the first
  EXPECT_EQ(fastest_median({{}, {3.0}, {2.0, 4.0, 1.0}}), 2);        // no samples: never the winner
  EXPECT_EQ(fastest_median({{}, {}}), -1);
  EXPECT_EQ(fastest_median({}), -1);
}

// Where a workload lists PyTorch's call, its tuning time and whether it won are counters; where it lists none, or
// the call failed, neither appears.
TEST(Autotune, PyTorchsCallHasItsOwnCounters) {
  const double inf = std::numeric_limits<double>::infinity();
  TuningResult r;
  r.seconds = {4e-6, 2e-6, 3e-6};
  r.best = 1;
  EXPECT_EQ(r.counters().count("torch_path_us"), 0u);
  r.reference_index = 2;
  EXPECT_DOUBLE_EQ(r.counters().at("torch_path_us"), 3.0);
  EXPECT_DOUBLE_EQ(r.counters().at("torch_path_chosen"), 0.0);
  r.best = 2;
  EXPECT_DOUBLE_EQ(r.counters().at("torch_path_chosen"), 1.0);
  r.seconds[2] = inf;  // it failed
  EXPECT_EQ(r.counters().count("torch_path_us"), 0u);
}

// A tie is won by the earliest candidate in the fixed order, so noise between two runs does not flip the choice;
// a candidate clearly faster wins whatever its place.
TEST(Autotune, ATieGoesToTheEarliestCandidate) {
  // Candidates 4 and 1 within kTieMargin: 1 comes first in the candidates' order and wins though 4 measured faster.
  EXPECT_EQ(stable_fastest({{10.00e-6, 10.00e-6, 10.00e-6}, {10.05e-6, 10.04e-6, 10.06e-6}}, {4, 1}), 1);
  EXPECT_EQ(stable_fastest({{10.05e-6}, {10.00e-6}}, {1, 4}), 0);
  // 3% apart is no tie.
  EXPECT_EQ(stable_fastest({{10.00e-6}, {10.30e-6}}, {4, 1}), 0);
  EXPECT_EQ(stable_fastest({{}, {3.0}}, {0, 1}), 1);  // no samples: never chosen
  EXPECT_EQ(stable_fastest({{}, {}}, {0, 1}), -1);
  EXPECT_EQ(stable_fastest({{1.0}, {1.0}, {1.0}}, {2, 0, 1}, 1.0), 1);  // equal medians: the earliest candidate
  EXPECT_GT(kTieMargin, 1.0);
  EXPECT_LT(kTieMargin, kConfirmMargin);
}

// The rounds take the candidates close to the fastest probe, at least kRoundsAtLeast of them, and the default and
// PyTorch's call whatever their probes; a candidate with no probe never.
TEST(Autotune, TheRoundsTakeTheCloseTheFewFastestAndTheAlwaysTimed) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto none = [](int) { return false; };
  // 1.0 fastest; 1.2 within kProbeMargin; 2.0 the third fastest; 3.0 and 4.0 left out, and the one without a probe.
  const std::vector<char> c = competes_in_rounds({4.0, 1.0, 2.0, inf, 1.2, 3.0}, none);
  EXPECT_EQ(c, (std::vector<char>{0, 1, 1, 0, 1, 0}));
  const std::vector<char> with_default =
      competes_in_rounds({4.0, 1.0, 2.0, inf, 1.2, 3.0}, [](int i) { return i == 0; });
  EXPECT_EQ(with_default, (std::vector<char>{1, 1, 1, 0, 1, 0}));
  EXPECT_EQ(competes_in_rounds({inf, inf}, [](int) { return true; }), (std::vector<char>{0, 0}));
  EXPECT_TRUE(competes_in_rounds({}, none).empty());
}

TEST(Throughput, CountersFromTimeAndPeak) {
  core::Work w{2e12, 3e9, 1e9};
  Peaks peaks{"test", {{"bf16", 1000.0}}, 4000.0};
  auto c = throughput_counters(w, 0.004, "bf16", peaks);  // 2 TFLOP in 4 ms
  EXPECT_DOUBLE_EQ(c.at("tflops"), 500.0);
  EXPECT_DOUBLE_EQ(c.at("gb_per_s"), 1000.0);
  EXPECT_DOUBLE_EQ(c.at("pct_peak"), 50.0);
  EXPECT_DOUBLE_EQ(c.at("pct_peak_bw"), 25.0);
  auto unknown = throughput_counters(w, 0.004, "fp8", peaks);
  EXPECT_EQ(unknown.count("pct_peak"), 0u);  // no peak for fp8 in this table: no made-up percentage
  EXPECT_TRUE(throughput_counters(w, 0, "bf16", peaks).empty());
}

// A collective's bytes cross the links: its bus bandwidth (gb_per_s x busbw_factor) is held to one GPU's NVLink
// bandwidth in one direction, never to the memory's peak or the copy ceiling.
TEST(Throughput, ACollectiveIsHeldToTheLinksNotTheMemory) {
  CaseFacts facts;
  facts.work = core::Work{0, 4e9, 0};
  facts.precision = "fp32";
  facts.collective = true;
  facts.workload_counters = {{"ranks", 4}, {"busbw_factor", 1.5}};
  Measurement m;
  m.median_s = 0.02;  // 200 GB/s algbw, 300 GB/s busbw
  Peaks peaks{"test", {}, 4800.0};
  peaks.link_gb_per_s = 450;
  const auto k = case_counters(facts, m, peaks);
  EXPECT_DOUBLE_EQ(k.at("gb_per_s"), 200.0);
  EXPECT_NEAR(k.at("pct_link_bw"), 100.0 * 300 / 450, 1e-9);
  EXPECT_EQ(k.count("pct_peak_bw"), 0u);
  EXPECT_EQ(k.count("pct_copy_bw"), 0u);
  peaks.link_gb_per_s = 0;  // no NVLink, or NVML cannot say: no percentage at all
  EXPECT_EQ(case_counters(facts, m, peaks).count("pct_link_bw"), 0u);
  facts.workload_counters["busbw_factor"] = 0;  // one rank: nothing crosses a link
  peaks.link_gb_per_s = 450;
  EXPECT_EQ(case_counters(facts, m, peaks).count("pct_link_bw"), 0u);
}

TEST(Peaks, TheLinksPeakComesFromNvmlUnlessTheUserGivesIt) {
  const Peaks from_nvml = resolve_peaks("NVIDIA H200", {}, 450, "18 x NVLink 4 (450 GB/s per direction)");
  EXPECT_DOUBLE_EQ(from_nvml.link_gb_per_s, 450);
  EXPECT_EQ(from_nvml.link_source, "18 x NVLink 4 (450 GB/s per direction)");
  const Peaks given = resolve_peaks("NVIDIA H200", {{"link", 400}}, 450, "18 x NVLink 4 (450 GB/s per direction)");
  EXPECT_DOUBLE_EQ(given.link_gb_per_s, 400);
  EXPECT_EQ(given.link_source, "--opmark_peak");
  EXPECT_DOUBLE_EQ(given.memory_gb_per_s, 4800);
}

TEST(Outcome, UnsupportedAndOutOfMemorySkipEverythingElseFails) {
  auto of = [](auto ex) { return outcome_from_exception(std::make_exception_ptr(ex)); };
  Outcome u = of(UnsupportedError("no fp8 here"));
  EXPECT_EQ(u.status, Status::skipped);
  EXPECT_EQ(u.reason, "unsupported: no fp8 here");
  Outcome m = of(OutOfMemoryError("cudaMalloc"));
  EXPECT_EQ(m.status, Status::skipped);
  EXPECT_EQ(m.reason, "out of memory: cudaMalloc");
  Outcome e = of(Error("cublasLtMatmul returned CUBLAS_STATUS_EXECUTION_FAILED"));
  EXPECT_EQ(e.status, Status::failed);
  Outcome r = of(std::runtime_error("boom"));
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.reason, "boom");
}

TEST(Seeds, StablePerCaseAndDistinctAcrossCases) {
  EXPECT_EQ(case_seed(1, "gemm/fwd/fp16/m=1"), case_seed(1, "gemm/fwd/fp16/m=1"));
  EXPECT_NE(case_seed(1, "gemm/fwd/fp16/m=1"), case_seed(1, "gemm/fwd/fp16/m=2"));
  EXPECT_NE(case_seed(1, "gemm/fwd/fp16/m=1"), case_seed(2, "gemm/fwd/fp16/m=1"));
}

TEST(Peaks, DatasheetByDeviceNameWithOverrides) {
  auto h100 = datasheet_peaks("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100);
  EXPECT_DOUBLE_EQ(h100->tflops.at("bf16"), 989.4);
  EXPECT_DOUBLE_EQ(h100->memory_gb_per_s, 3350);
  auto pcie = datasheet_peaks("NVIDIA H100 PCIe");
  ASSERT_TRUE(pcie);
  EXPECT_DOUBLE_EQ(pcie->tflops.at("fp16"), 756);
  auto h200 = datasheet_peaks("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_DOUBLE_EQ(h200->memory_gb_per_s, 4800);
  EXPECT_FALSE(datasheet_peaks("Some Future GPU"));
  Peaks p = resolve_peaks("NVIDIA H200", {{"bf16", 790.0}, {"bw", 4300.0}});
  EXPECT_DOUBLE_EQ(p.tflops.at("bf16"), 790.0);
  EXPECT_DOUBLE_EQ(p.tflops.at("fp16"), 989.4);
  EXPECT_DOUBLE_EQ(p.memory_gb_per_s, 4300.0);
  EXPECT_NE(p.source.find("--opmark_peak"), std::string::npos);
}

TEST(ResultsLog, RecordCarriesStatusAndNoTimeWhenNotOk) {
  core::Case c = core::parse_case_name("gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1");
  c.sets = {"train"};
  Outcome ok{Status::ok, "", "all 28160 elements within tolerance", "cublasLt algo 1", {}};
  auto j = run_record("gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1", &c, &ok, false, "", 2, 100, 12.5,
                      {{"tflops", 7.9}});
  EXPECT_EQ(j["type"], "run");
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["repetition"], 2);
  EXPECT_DOUBLE_EQ(j["time_us"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ(j["counters"]["tflops"].get<double>(), 7.9);
  EXPECT_EQ(j["sets"][0], "train");
  EXPECT_EQ(j["precision"], "fp16");

  Outcome wrong{Status::failed, "wrong result: 1 of 28160 elements wrong", "1 of 28160 elements wrong", "", {}};
  auto f = run_record("gemm/fwd/fp16/m=1760/n=16/k=1760/ta=N/tb=N/batch=1", &c, &wrong, false, "", 0, 1, 3.0, {});
  EXPECT_EQ(f["status"], "failed");
  EXPECT_FALSE(f.contains("time_us"));  // a wrong result never reports a time
  EXPECT_EQ(f["reason"], "wrong result: 1 of 28160 elements wrong");

  auto agg = run_record("x", nullptr, nullptr, true, "median", 0, 0, 1.0, {});
  EXPECT_EQ(agg["type"], "aggregate");
  EXPECT_EQ(agg["aggregate"], "median");
  EXPECT_EQ(agg["status"], "failed");
}

TEST(Autotune, DroppingTheBestFallsBackToTheNextFastestThatRan) {
  bench::TuningResult r;
  const double inf = std::numeric_limits<double>::infinity();
  r.seconds = {3e-6, 1e-6, inf, 2e-6};  // candidate 2 failed to run
  r.errors = {"", "", "launch failed", ""};
  r.best = 1;
  EXPECT_EQ(r.dropped_note(), "");
  ASSERT_TRUE(r.drop_best("algo 1", "3 of 8 elements wrong"));
  EXPECT_EQ(r.best, 3);
  ASSERT_TRUE(r.drop_best("algo 3", "8 of 8 elements wrong"));
  EXPECT_EQ(r.best, 0);
  EXPECT_DOUBLE_EQ(r.best_seconds(), 3e-6);
  EXPECT_FALSE(r.drop_best("algo 0", "1 of 8 elements wrong"));  // the failed candidate never comes back
  EXPECT_EQ(r.best, -1);
  EXPECT_EQ(r.dropped_note(), " | left out after a wrong result: algo 1 (3 of 8 elements wrong; 1 us in tuning); "
                              "algo 3 (8 of 8 elements wrong; 2 us in tuning); algo 0 (1 of 8 elements wrong; 3 us "
                              "in tuning)");
}

// Why a run traces no kernels, asked once for the context and again by each case; the option-decided reasons need
// no CUPTI (they are checked before it is loaded).
TEST(HarnessCpu, KernelTraceOffSaysWhy) {
  bench::Options o;
  o.kernel_trace = false;
  EXPECT_EQ(bench::kernel_trace_off(o, false).value_or(""), "off (--opmark_kernel_trace=off)");
  o.kernel_trace = true;
  o.profile_launches = 5;
  EXPECT_EQ(bench::kernel_trace_off(o, false).value_or(""), "off (a profiler holds CUPTI: --opmark_profile_launches)");
  o.profile_launches = 0;
  EXPECT_EQ(bench::kernel_trace_off(o, true).value_or(""), "off (a multi-process run)");
}

// The tuning log's table: every candidate, the fastest by its last stage first, "-" where a stage did not time it,
// the chosen and default marked and a failure's reason given; the label's note counts the failures and names the
// first.
TEST(TuningReport, TheTableListsEveryStageAndTheNoteNamesFailures) {
  TuningResult r;
  r.stages.resize(3);
  r.errors = {"", "CUDNN_STATUS_NOT_SUPPORTED", ""};
  r.stages[0].screen = 160e-6;  // screened in, probed, in the rounds
  r.stages[0].probe = 156e-6;
  r.stages[0].rounds = 155e-6;
  r.stages[2].screen = 95e-6;  // the fastest, confirmed
  r.stages[2].probe = 93e-6;
  r.stages[2].rounds = 92.5e-6;
  r.stages[2].confirm = 92.8e-6;
  r.best = 2;
  r.default_index = 0;
  const auto name = [](int i) { return std::string("cand") + std::to_string(i); };
  const std::string table = tuning_table(r, name);
  const auto chosen = table.find("cand2  [chosen]"), dflt = table.find("cand0  [default]");
  const auto failed = table.find("cand1  [failed: CUDNN_STATUS_NOT_SUPPORTED]");
  ASSERT_NE(chosen, std::string::npos) << table;
  ASSERT_NE(dflt, std::string::npos) << table;
  ASSERT_NE(failed, std::string::npos) << table;
  EXPECT_LT(chosen, dflt);  // fastest first; the failed one, never timed, last
  EXPECT_LT(dflt, failed);
  EXPECT_NE(table.find("92.800"), std::string::npos) << table;
  EXPECT_EQ(failed_note(r, name), " | 1 of the candidates failed in tuning (first: cand1: CUDNN_STATUS_NOT_SUPPORTED)");
  r.errors = {"", std::string(500, 'x'), "y"};  // a long reason is cut; the count is of all
  const std::string cut = failed_note(r, name);
  EXPECT_LT(cut.size(), 260u) << cut;
  EXPECT_NE(cut.find(" | 2 of the candidates failed in tuning (first: cand1: xxx"), std::string::npos) << cut;
  EXPECT_NE(cut.find("...)"), std::string::npos) << cut;
  r.errors = {"", "", ""};
  EXPECT_EQ(failed_note(r, name), "");
}
