// The harness on the GPU with a workload of our own: a planted wrong result fails the case with the comparison
// and no time; a right one passes; timing returns positive per-launch times in both L2 modes, and a workload
// that asks is prepared before each launch.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/copy_ceiling.h"
#include "bench/harness.h"
#include "bench/timer.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

using namespace opmark;

namespace {

// "Copies" x to y; with `plant` set, one element of y is then overwritten with a wrong value.
class CopyWorkload final : public bench::Workload {
 public:
  CopyWorkload(std::size_t n, bool plant) : n_(n), plant_(plant), x_(core::DType::f32, n), y_(core::DType::f32, n) {
    kernels::fill_random(x_.get(), n_, core::DType::f32, 5, nullptr);
  }
  void launch(cudaStream_t s) override {
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(y_.get(), x_.get(), n_ * sizeof(float), cudaMemcpyDeviceToDevice, s));
    if (plant_) {
      const float wrong = 1e6f;
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(y_.as<float>() + n_ / 2, &wrong, sizeof wrong, cudaMemcpyHostToDevice, s));
    }
  }
  kernels::CompareResult verify(cudaStream_t s) override {
    kernels::DeviceBuffer ref(core::DType::f64, n_);
    kernels::to_double(x_.get(), core::DType::f32, n_, ref.as<double>(), s);
    kernels::poison(y_.get(), n_, core::DType::f32, s);
    launch(s);
    return kernels::compare_to_reference(y_.get(), core::DType::f32, ref.as<double>(), n_, 0.0, s);
  }

 private:
  std::size_t n_;
  bool plant_;
  kernels::DeviceBuffer x_, y_;
};

}  // namespace

TEST(HarnessGpu, PlantedWrongResultFailsTheCase) {
  OPMARK_REQUIRE_GPU();
  CopyWorkload bad(1 << 16, true);
  bench::Outcome o = bench::verify_workload(bad, nullptr);
  EXPECT_EQ(o.status, bench::Status::failed);
  EXPECT_NE(o.reason.find("wrong result: 1 of 65536 elements wrong (first at index 32768"), std::string::npos)
      << o.reason;
  CopyWorkload good(1 << 16, false);
  EXPECT_EQ(bench::verify_workload(good, nullptr).status, bench::Status::ok);
}

TEST(HarnessGpu, TimerMeasuresInBothL2Modes) {
  OPMARK_REQUIRE_GPU();
  cudaStream_t s;
  OPMARK_CHECK_CUDA(cudaStreamCreate(&s));
  CopyWorkload w(1 << 22, false);
  for (bench::L2Mode mode : {bench::L2Mode::hot, bench::L2Mode::cold}) {
    bench::Timer timer(s, mode);
    const double warm = timer.warm_up(w, 1.0);
    EXPECT_GT(warm, 0);
    const double t = timer.sample(w, 4);
    EXPECT_GT(t, 0);
    EXPECT_LT(t, 0.1);
  }
  OPMARK_CHECK_CUDA(cudaStreamDestroy(s));
}

namespace {

// Counts launches and the untimed preparation before them.
class PreparedCopyWorkload final : public bench::Workload {
 public:
  PreparedCopyWorkload() : inner_(1 << 20, false) {}
  void launch(cudaStream_t s) override {
    ++launches;
    inner_.launch(s);
  }
  bool needs_before_launch() const override { return true; }
  void before_launch(cudaStream_t) override { ++prepared; }
  kernels::CompareResult verify(cudaStream_t s) override { return inner_.verify(s); }
  int launches = 0, prepared = 0;

 private:
  CopyWorkload inner_;
};

}  // namespace

TEST(HarnessGpu, TimerPreparesEveryLaunchOfAWorkloadThatAsks) {
  OPMARK_REQUIRE_GPU();
  cudaStream_t s;
  OPMARK_CHECK_CUDA(cudaStreamCreate(&s));
  PreparedCopyWorkload w;
  bench::Timer timer(s, bench::L2Mode::hot);
  EXPECT_GT(timer.warm_up(w, 1.0), 0);
  EXPECT_GT(timer.sample(w, 7), 0);
  EXPECT_EQ(w.prepared, w.launches);
  EXPECT_GE(w.launches, 7 + 2);
  OPMARK_CHECK_CUDA(cudaStreamDestroy(s));
}

namespace {

// Two candidates: the faster computes a wrong result, the slower a right one.
class TwoCandidateWorkload final : public bench::Workload {
 public:
  TwoCandidateWorkload() : wrong_(1 << 12, true), right_(1 << 12, false) {}
  void launch(cudaStream_t s) override { (chosen == 0 ? wrong_ : right_).launch(s); }
  kernels::CompareResult verify(cudaStream_t s) override { return (chosen == 0 ? wrong_ : right_).verify(s); }
  bool drop_chosen(const std::string& why) override {
    dropped = why;
    if (chosen == 1) return false;
    chosen = 1;
    return true;
  }
  int chosen = 0;
  std::string dropped;

 private:
  CopyWorkload wrong_, right_;
};

}  // namespace

TEST(HarnessGpu, ACandidateWithAWrongResultIsLeftOutForTheNextFastest) {
  OPMARK_REQUIRE_GPU();
  TwoCandidateWorkload w;
  const bench::Outcome o = bench::verify_workload(w, nullptr);
  EXPECT_EQ(o.status, bench::Status::ok) << o.reason;
  EXPECT_EQ(w.chosen, 1);
  EXPECT_NE(w.dropped.find("1 of 4096 elements wrong"), std::string::npos) << w.dropped;
}

TEST(HarnessGpu, CopyCeilingIsAPlausibleBandwidth) {
  OPMARK_REQUIRE_GPU();
  const double gb_per_s = bench::measure_copy_gb_per_s(nullptr, std::size_t{64} << 20, 5);
  EXPECT_GT(gb_per_s, 50.0);      // any GPU's memory moves more than this
  EXPECT_LT(gb_per_s, 20000.0);   // and no GPU's this much
}
