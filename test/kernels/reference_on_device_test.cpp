// The GPU float64 references that verification uses (pointwise, batch norm) against their host twins, which the CPU
// tests check from the definition: the same value per element.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../gpu_test_util.h"
#include "kernels/batchnorm.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/pointwise.h"
#include "kernels/reduce.h"

#include <cuda_fp16.h>

using namespace opmark;
using kernels::DeviceBuffer;

namespace {

std::vector<double> random_values(std::size_t n, unsigned seed, double lo = -3, double hi = 3) {
  std::vector<double> v(n);
  unsigned s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + static_cast<double>(s >> 8) / double(1u << 24) * (hi - lo);
  }
  return v;
}

DeviceBuffer to_device(const std::vector<double>& v) {
  DeviceBuffer b(core::DType::f64, v.size());
  if (!v.empty()) OPMARK_CHECK_CUDA(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice));
  return b;
}

std::vector<double> to_host(const DeviceBuffer& b, std::size_t n) {
  std::vector<double> v(n);
  OPMARK_CHECK_CUDA(cudaMemcpy(v.data(), b.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
  return v;
}

void expect_close(const std::vector<double>& host, const std::vector<double>& device, const std::string& what) {
  ASSERT_EQ(host.size(), device.size()) << what;
  for (std::size_t i = 0; i < host.size(); ++i)
    ASSERT_NEAR(device[i], host[i], 1e-12 * (1 + std::fabs(host[i]))) << what << " at " << i;
}

}  // namespace

TEST(ReferenceOnDevice, PointwiseMatchesTheHostReferenceForEveryOp) {
  OPMARK_REQUIRE_GPU();
  const std::int64_t rows = 37, cols = 53;
  const std::size_t n = rows * cols;
  const auto x = random_values(n, 1), y = random_values(n, 2), bias = random_values(cols, 3);
  auto mask = random_values(n, 4, 0, 1);
  for (double& m : mask) m = m > 0.5 ? 1 : 0;
  const DeviceBuffer xd = to_device(x), yd = to_device(y), biasd = to_device(bias), maskd = to_device(mask);
  for (const char* name : {"copy", "relu", "gelu", "silu", "sigmoid", "tanh", "add", "mul", "bias_add", "bias_relu",
                           "bias_gelu", "scale", "masked_fill"}) {
    const kernels::PointwiseOp op = kernels::pointwise_op(name);
    const DeviceBuffer out(core::DType::f64, n);
    kernels::pointwise_reference_on_device(op, xd.as<double>(), yd.as<double>(), biasd.as<double>(),
                                           maskd.as<double>(), rows, cols, out.as<double>(), nullptr);
    OPMARK_CHECK_CUDA(cudaDeviceSynchronize());
    expect_close(kernels::pointwise_reference(op, x, y, bias, mask, rows, cols), to_host(out, n), name);
  }
}

TEST(ReferenceOnDevice, BatchNormMatchesTheHostReferenceInBothModes) {
  OPMARK_REQUIRE_GPU();
  const std::int64_t n = 3, c = 5, hw = 7 * 11;
  const std::size_t count = n * c * hw;
  const auto x = random_values(count, 5), scale = random_values(c, 6), bias = random_values(c, 7),
             mean = random_values(c, 8, -0.5, 0.5), var = random_values(c, 9, 0.5, 1.5);
  const DeviceBuffer xd = to_device(x), sd = to_device(scale), bd = to_device(bias), md = to_device(mean),
                     vd = to_device(var);
  for (bool train : {false, true}) {
    const DeviceBuffer out(core::DType::f64, count);
    kernels::batchnorm_reference_on_device(train, xd.as<double>(), sd.as<double>(), bd.as<double>(), md.as<double>(),
                                           vd.as<double>(), n, c, hw, out.as<double>(), nullptr);
    expect_close(kernels::batchnorm_reference(train, x, scale, bias, mean, var, n, c, hw), to_host(out, count),
                 train ? "train" : "inference");
  }
}

TEST(ReferenceOnDevice, ReduceMatchesTheHostReferenceForEveryOp) {
  OPMARK_REQUIRE_GPU();
  const std::int64_t rows = 9, cols = 301;  // more columns than a block has threads
  const std::size_t n = rows * cols;
  const auto x = random_values(n, 10), residual = random_values(n, 11), gamma = random_values(cols, 12),
             beta = random_values(cols, 13);
  const DeviceBuffer xd = to_device(x), rd = to_device(residual), gd = to_device(gamma), bd = to_device(beta);
  // add_*'s sum stored in fp16, as the host reference's `stored`.
  const auto stored = [](double v) { return double(__half2float(__float2half_rn(float(v)))); };
  for (const char* name : {"sum", "mean", "max", "sum_all", "softmax", "log_softmax", "layernorm", "rmsnorm",
                           "add_layernorm", "add_rmsnorm"}) {
    const kernels::ReduceOp op = kernels::reduce_op(name);
    const std::vector<double> host = kernels::reduce_reference(op, x, residual, gamma, beta, rows, cols, stored);
    const DeviceBuffer out(core::DType::f64, host.size());
    kernels::reduce_reference_on_device(op, xd.as<double>(), rd.as<double>(), gd.as<double>(), bd.as<double>(), rows,
                                        cols, core::DType::f16, out.as<double>(), nullptr);
    OPMARK_CHECK_CUDA(cudaDeviceSynchronize());
    expect_close(host, to_host(out, host.size()), name);
  }
}
