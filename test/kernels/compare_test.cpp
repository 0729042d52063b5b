// Data init and verification kernels on the GPU: random fills are reproducible and not zeros, and the comparison
// catches planted wrong values, unwritten (poisoned) elements and NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../gpu_test_util.h"
#include "kernels/compare.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

using namespace opmark;
using kernels::DeviceBuffer;

namespace {

std::vector<double> download_as_double(const DeviceBuffer& buf, core::DType t, std::size_t n) {
  DeviceBuffer d(core::DType::f64, n);
  kernels::to_double(buf.get(), t, n, d.as<double>(), nullptr);
  std::vector<double> out(n);
  OPMARK_CHECK_CUDA(cudaMemcpy(out.data(), d.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
  return out;
}

DeviceBuffer upload(const std::vector<double>& v) {
  DeviceBuffer d(core::DType::f64, v.size());
  OPMARK_CHECK_CUDA(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

TEST(Fill, ReproducibleInRangeAndNotZeros) {
  OPMARK_REQUIRE_GPU();
  for (core::DType t : {core::DType::f32, core::DType::f16, core::DType::bf16, core::DType::f8_e4m3, core::DType::i8}) {
    SCOPED_TRACE(core::name_of(t));
    const std::size_t n = 100003;  // prime: not a multiple of any vector width
    DeviceBuffer a(t, n), b(t, n);
    kernels::fill_random(a.get(), n, t, 7, nullptr);
    kernels::fill_random(b.get(), n, t, 7, nullptr);
    auto va = download_as_double(a, t, n), vb = download_as_double(b, t, n);
    EXPECT_EQ(va, vb);
    std::size_t zeros = 0;
    double lo = 1e30, hi = -1e30;
    for (double v : va) {
      zeros += v == 0;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LT(zeros, n / 50);  // e4m3 rounds |x| < 2^-10 to zero: a fraction of a percent
    const double bound = core::is_integer(t) ? 127 : 1;
    EXPECT_GE(lo, -bound);
    EXPECT_LE(hi, bound);
    EXPECT_LT(lo, -0.5 * bound);
    EXPECT_GT(hi, 0.5 * bound);
  }
}

// The all-reduce's reference: each element reduced over several seeded fills, regenerated on the GPU, must equal
// the same reduction over the fills themselves, element for element (the values are the same rounded numbers).
TEST(Fill, SeededReductionMatchesTheFillsItRegenerates) {
  OPMARK_REQUIRE_GPU();
  const std::size_t n = 10007;
  const int fills = 3;
  const std::uint64_t seed = 41;
  for (core::DType t : {core::DType::f32, core::DType::f16, core::DType::bf16, core::DType::i8}) {
    for (auto op : {kernels::SeededReduceOp::sum, kernels::SeededReduceOp::prod, kernels::SeededReduceOp::max,
                    kernels::SeededReduceOp::min}) {
      SCOPED_TRACE(std::string(core::name_of(t)) + " op " + std::to_string(static_cast<int>(op)));
      const double lo = op == kernels::SeededReduceOp::prod ? 0.5 : -1.0;
      const double hi = op == kernels::SeededReduceOp::prod ? 1.5 : 1.0;
      std::vector<double> want(n);
      DeviceBuffer x(t, n);
      for (int f = 0; f < fills; ++f) {
        kernels::fill_uniform(x.get(), n, t, seed + f, lo, hi, nullptr);
        const auto v = download_as_double(x, t, n);
        for (std::size_t i = 0; i < n; ++i) {
          if (f == 0) want[i] = v[i];
          else if (op == kernels::SeededReduceOp::sum) want[i] += v[i];
          else if (op == kernels::SeededReduceOp::prod) want[i] *= v[i];
          else if (op == kernels::SeededReduceOp::max) want[i] = std::max(want[i], v[i]);
          else want[i] = std::min(want[i], v[i]);
        }
      }
      DeviceBuffer got(core::DType::f64, n);
      kernels::reduce_seeded_fills(got.as<double>(), n, t, seed, fills, lo, hi, op, nullptr);
      std::vector<double> g(n);
      OPMARK_CHECK_CUDA(cudaMemcpy(g.data(), got.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
      EXPECT_EQ(g, want);
    }
  }
}

TEST(Compare, ExactMatchPasses) {
  OPMARK_REQUIRE_GPU();
  const std::size_t n = 4097;
  DeviceBuffer out(core::DType::f32, n);
  kernels::fill_random(out.get(), n, core::DType::f32, 3, nullptr);
  auto ref = upload(download_as_double(out, core::DType::f32, n));
  auto r = kernels::compare_to_reference(out.get(), core::DType::f32, ref.as<double>(), n, 0.0, nullptr);
  EXPECT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.count, n);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 0.0);
}

TEST(Compare, PlantedWrongResultIsCaught) {
  OPMARK_REQUIRE_GPU();
  const std::size_t n = 1 << 20;
  DeviceBuffer out(core::DType::f16, n);
  kernels::fill_random(out.get(), n, core::DType::f16, 11, nullptr);
  std::vector<double> ref = download_as_double(out, core::DType::f16, n);
  ref[12345] += 0.5;  // one element off by much more than fp16 rounding
  auto dref = upload(ref);
  auto r = kernels::compare_to_reference(out.get(), core::DType::f16, dref.as<double>(), n, 2e-3, nullptr);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.wrong, 1u);
  EXPECT_EQ(r.first_wrong, 12345u);
  EXPECT_NEAR(r.first_wrong_expected - r.first_wrong_value, 0.5, 1e-12);
  EXPECT_NE(r.summary().find("1 of 1048576 elements wrong (first at index 12345"), std::string::npos) << r.summary();
}

TEST(Compare, UnwrittenOutputIsCaught) {
  OPMARK_REQUIRE_GPU();
  for (core::DType t : {core::DType::f32, core::DType::bf16, core::DType::i32}) {
    SCOPED_TRACE(core::name_of(t));
    const std::size_t n = 1000;
    DeviceBuffer out(t, n);
    kernels::poison(out.get(), n, t, nullptr);
    std::vector<double> ref(n, 1.0);
    auto dref = upload(ref);
    auto r = kernels::compare_to_reference(out.get(), t, dref.as<double>(), n, 1e-2, nullptr);
    EXPECT_EQ(r.wrong, n) << r.summary();
  }
}

TEST(Compare, ToleranceScalesWithTheReferenceRms) {
  OPMARK_REQUIRE_GPU();
  // A reference element near zero is judged against the rms, not against itself.
  std::vector<double> ref = {1.0, -1.0, 1.0, 1e-9}, got = {1.0, -1.0, 1.0, 5e-4};
  auto dref = upload(ref), dgot = upload(got);
  auto ok = kernels::compare_to_reference(dgot.get(), core::DType::f64, dref.as<double>(), 4, 1e-3, nullptr);
  EXPECT_TRUE(ok.ok()) << ok.summary();
  got[3] = 5e-3;
  auto dbad = upload(got);
  auto bad = kernels::compare_to_reference(dbad.get(), core::DType::f64, dref.as<double>(), 4, 1e-3, nullptr);
  EXPECT_EQ(bad.wrong, 1u);
  EXPECT_EQ(bad.first_wrong, 3u);
}

TEST(Compare, NormBoundCatchesAnErrorSpreadOverEveryElement) {
  OPMARK_REQUIRE_GPU();
  // Every element 2% off: within a loose elementwise tolerance, far outside a 1% norm bound.
  std::vector<double> ref(64, 1.0), got(64, 1.02);
  auto dref = upload(ref), dgot = upload(got);
  auto loose = kernels::compare_to_reference(dgot.get(), core::DType::f64, dref.as<double>(), 64, 5e-2, nullptr);
  EXPECT_TRUE(loose.ok()) << loose.summary();
  auto bounded =
      kernels::compare_to_reference(dgot.get(), core::DType::f64, dref.as<double>(), 64, 5e-2, nullptr, 1e-2);
  EXPECT_EQ(bounded.wrong, 0u);
  EXPECT_FALSE(bounded.ok());
  EXPECT_NE(bounded.summary().find("rel norm error 2.000e-02 above 1.0e-02"), std::string::npos) << bounded.summary();
}

// Several checks of one case reported as one (no GPU): the first wrong one wins, else the larger scaled error.
TEST(Compare, WorseOfTwoChecks) {
  kernels::CompareResult small, large, wrong, also_wrong;
  small.max_scaled_error = 1e-4, large.max_scaled_error = 3e-3;
  wrong.wrong = 2, wrong.max_scaled_error = 1e-5;
  also_wrong.wrong = 7;
  EXPECT_EQ(kernels::worse_of(small, large).max_scaled_error, 3e-3);
  EXPECT_EQ(kernels::worse_of(large, small).max_scaled_error, 3e-3);
  EXPECT_EQ(kernels::worse_of(large, wrong).wrong, 2u);  // wrong beats a larger error within tolerance
  EXPECT_EQ(kernels::worse_of(wrong, also_wrong).wrong, 2u);  // the first wrong one stays
}
