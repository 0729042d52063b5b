#pragma once
// The one harness every family uses: registers one Google Benchmark case per opmark case, builds and verifies
// each workload once (outside the timed region), times it with CUDA events, sets the counters, and is the one
// place where a case's failure is caught and classified.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/device_info.h"
#include "bench/options.h"
#include "bench/outcome.h"
#include "bench/peaks.h"
#include "bench/timer.h"
#include "bench/workload.h"
#include "core/case.h"

namespace opmark::bench {

// Verifies a workload: a wrong result becomes a failed outcome carrying the comparison, never a time. A workload
// with other candidates drops the one that computed the wrong result and is verified again on the next fastest,
// at most kMaxVerifyAttempts times in all.
constexpr int kMaxVerifyAttempts = 6;
Outcome verify_workload(Workload& w, cudaStream_t stream);

// A multi-process case's outcome, the same on every rank: ok only where every rank's is; otherwise the most severe
// status (failed over skipped) with its rank's reason ("rank 3: wrong result: ..."). One all-gather, and two
// broadcasts when a rank is not ok: every rank must call it at the same point.
Outcome agree_across_ranks(ProcessGroup& group, Outcome mine);

// A per-case seed: the same case gets the same inputs in every run, different cases get different inputs.
std::uint64_t case_seed(std::uint64_t base, const std::string& case_name);

// Throughput counters from a measured time: tflops, gb_per_s and, where a peak is known, pct_peak (compute)
// and pct_peak_bw (memory). Host-only arithmetic, tested on the CPU.
std::map<std::string, double> throughput_counters(const core::Work& work, double seconds_per_op,
                                                  const std::string& precision, const Peaks& peaks);

class Harness {
 public:
  // `device` is empty on a machine without a GPU: cases still register (so listing works) but do not run.
  // `group`: the processes of the run (null: this one alone). In a multi-process run every decision taken from a
  // measured time uses the value all ranks agree on, a wrong result on any rank fails the case on all, and an error
  // on any rank stops every rank (the others would wait in the collective forever).
  Harness(Options options, std::optional<DeviceInfo> device, std::string no_device_reason,
          ProcessGroup* group = nullptr);
  ~Harness();

  // One RegisterBenchmark per case, manual time, microseconds.
  void register_cases(std::vector<core::Case> cases);

  const std::vector<core::Case>& cases() const { return cases_; }
  const Peaks& peaks() const { return peaks_; }
  // The outcome of a case that has run (by case name), or null.
  const Outcome* outcome(const std::string& case_name) const;
  const core::Case* find_case(const std::string& case_name) const;
  int count(Status s) const;

 private:
  struct Prepared;
  void run(benchmark::State& state, std::size_t case_index);
  Prepared& prepare(std::size_t case_index);
  cudaStream_t stream();
  double copy_ceiling_gb_per_s();  // measured on first use, once per run

  bool multi_process() const { return group_ && group_->multi_process(); }
  void agree_on_outcome(Outcome* o);

  Options options_;
  ProcessGroup* group_ = nullptr;
  std::optional<DeviceInfo> device_;
  std::string no_device_reason_;
  Peaks peaks_;
  std::vector<core::Case> cases_;
  std::map<std::string, std::size_t> index_by_name_;
  std::map<std::string, Outcome> outcomes_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<Timer> timer_;
  std::optional<double> copy_gb_per_s_;
  std::unique_ptr<Prepared> prepared_;  // the case being run: kept across Google Benchmark's repeated calls
};

}  // namespace opmark::bench
