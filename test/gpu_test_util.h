#pragma once
// GPU tests skip, with the reason, on a machine without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "bench/harness/tuning/autotune.h"
#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/harness.h"
#include "bench/harness/cases/verify.h"
#include "bench/harness/cases/workload.h"
#include "core/case.h"
#include "core/error.h"
#include "kernels/cuda_check.h"

namespace opmark::test {

inline const std::optional<bench::DeviceInfo>& test_device(std::string* why = nullptr) {
  static std::string reason;
  static const std::optional<bench::DeviceInfo> device = bench::query_device(&reason);
  if (why) *why = reason;
  return device;
}

// Builds the case's workload and verifies it once: a wrong result fails the test. A case the library does not
// support fails too, unless `unsupported_ok`: then it is printed and passes (the benchmark reports it as skipped).
inline void expect_verified(const core::Case& c, bench::WorkloadFactory make, const bench::Options& options,
                            cudaStream_t stream, bool unsupported_ok = false) {
  const std::string name = core::make_case_name(c);
  SCOPED_TRACE(name);
  bench::RunContext ctx{stream, *test_device(), options, bench::case_seed(1, name)};
  try {
    auto w = make(c, ctx);
    // As the harness does: a workload with candidates is tuned first (each captured into a graph), and a wrong
    // candidate is left out for the next fastest.
    bench::TuningResult tuning;
    bench::Outcome o;
    try {
      o = bench::tune_and_verify(*w, stream, options.graph_timing, &tuning);
    } catch (const UnsupportedError& e) {
      // A case the library lists candidates for, none of which ran, is a failure here, unsupported_ok or not.
      if (w->candidate_count() > 0 && tuning.best < 0 && !tuning.seconds.empty()) FAIL() << e.what();
      throw;
    }
    EXPECT_EQ(o.status, bench::Status::ok) << o.reason << " | " << w->label();
    EXPECT_FALSE(w->label().empty());
  } catch (const UnsupportedError& e) {
    if (!unsupported_ok) ADD_FAILURE() << "unsupported: " << e.what();
    else std::printf("unsupported (reported, not a failure): %s: %s\n", name.c_str(), e.what());
  }
}

// Builds the case's workload and verifies every one of its candidates, not only the one the tuner would keep: each
// path of opmark's own kernels must be right wherever it is listed. Returns the number of candidates verified.
inline int expect_every_candidate_verified(const core::Case& c, bench::WorkloadFactory make,
                                           const bench::Options& options, cudaStream_t stream) {
  const std::string name = core::make_case_name(c);
  SCOPED_TRACE(name);
  bench::RunContext ctx{stream, *test_device(), options, bench::case_seed(1, name)};
  auto w = make(c, ctx);
  const int count = std::max(1, w->candidate_count());
  for (int i = 0; i < count; ++i) {
    w->choose(i);
    const bench::Outcome o = bench::verify_workload(*w, stream);
    const std::string name = w->candidate_count() > 0 ? w->candidate_name(i) : std::string();
    EXPECT_EQ(o.status, bench::Status::ok) << name << ": " << o.reason;
  }
  return count;
}

// Whether this build has cuDNN: without it every impl=cudnn case is skipped as unsupported before it runs.
#ifdef OPMARK_HAVE_CUDNN
inline constexpr bool kBuiltWithCudnn = true;
#else
inline constexpr bool kBuiltWithCudnn = false;
#endif

// A CUDA stream for one test, destroyed with it.
struct TestStream {
  cudaStream_t stream = nullptr;
  TestStream() { OPMARK_CHECK_CUDA(cudaStreamCreate(&stream)); }
  ~TestStream() { OPMARK_CHECK_CUDA_NOEXCEPT(cudaStreamDestroy(stream)); }
  TestStream(const TestStream&) = delete;
  TestStream& operator=(const TestStream&) = delete;
};

// Test names "bwd_data_fp16" for suites parameterised by (direction, precision), instead of gtest's pointer dump.
struct DirectionPrecisionName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param);
  }
};

}  // namespace opmark::test

#define OPMARK_REQUIRE_GPU()                                                   \
  do {                                                                         \
    std::string opmark_why_;                                                   \
    if (!::opmark::test::test_device(&opmark_why_))                            \
      GTEST_SKIP() << "no CUDA device (" << opmark_why_ << ")";                \
  } while (0)
