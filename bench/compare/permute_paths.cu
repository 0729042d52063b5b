// Every path core::permute_paths lists for a permute, timed in CUDA graphs against a 256 MiB cudaMemcpyAsync on the
// same GPU and checked element by element: how a permute kernel is tuned without the harness in the way.
//   opmark_permute_paths PERM D0 D1 D2 D3 ELEMENT_BYTES [PERM D0 D1 D2 D3 ELEMENT_BYTES ...]
//   e.g. opmark_permute_paths 0132 1 1 4096 4096 4 0231 32 256 56 56 2
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/families.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/permute.h"

namespace {

using namespace opmark;

// The best of 7 replays of `graph`, per launch of the `launches` it holds.
float best_us_per_launch(cudaGraphExec_t graph, int launches, cudaStream_t stream) {
  cudaEvent_t start, stop;
  OPMARK_CHECK_CUDA(cudaEventCreate(&start));
  OPMARK_CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) OPMARK_CHECK_CUDA(cudaGraphLaunch(graph, stream));
  float best = 1e30f;
  for (int r = 0; r < 7; ++r) {
    OPMARK_CHECK_CUDA(cudaEventRecord(start, stream));
    OPMARK_CHECK_CUDA(cudaGraphLaunch(graph, stream));
    OPMARK_CHECK_CUDA(cudaEventRecord(stop, stream));
    OPMARK_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    OPMARK_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms * 1000 / static_cast<float>(launches));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best;
}

// GB/s of a 256 MiB device-to-device cudaMemcpyAsync, bytes read and written.
double copy_gb_per_s(cudaStream_t stream) {
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  kernels::DeviceBuffer a(kBytes), b(kBytes);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  OPMARK_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 10; ++i)
    OPMARK_CHECK_CUDA(cudaMemcpyAsync(b.get(), a.get(), kBytes, cudaMemcpyDeviceToDevice, stream));
  OPMARK_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  OPMARK_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const float us = best_us_per_launch(exec, 10, stream);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return 2.0 * kBytes / us / 1e3;
}

void time_paths(const core::PermuteProblem& p, int elem_bytes, double copy, cudaStream_t stream) {
  const core::PermuteView v = core::permute_view(p);
  const std::int64_t n = p.elements();
  const std::size_t bytes = static_cast<std::size_t>(n) * elem_bytes;
  const int halves = elem_bytes / 2;  // the check compares 2-byte halves
  std::vector<unsigned short> in(bytes / 2), out(bytes / 2);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned short>(i * 40503u ^ (i >> 16));
  kernels::DeviceBuffer src(bytes), dst(bytes);
  OPMARK_CHECK_CUDA(cudaMemcpy(src.get(), in.data(), bytes, cudaMemcpyHostToDevice));
  const int launches = static_cast<int>(std::clamp<double>(2e9 / static_cast<double>(bytes), 2, 1000));
  for (const core::PermutePath path : core::permute_paths(v, elem_bytes)) {
    OPMARK_CHECK_CUDA(cudaMemset(dst.get(), 0, bytes));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    OPMARK_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < launches; ++i) kernels::launch_permute(v, path, src.get(), dst.get(), elem_bytes, stream);
    OPMARK_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    OPMARK_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    const float us = best_us_per_launch(exec, launches, stream);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    OPMARK_CHECK_CUDA(cudaMemcpy(out.data(), dst.get(), bytes, cudaMemcpyDeviceToHost));
    std::int64_t wrong = 0;  // in (z, i, j, k) -> out (z, j, i, k)
    for (std::int64_t t = 0; t < n; ++t) {
      const std::int64_t k = t % v.inner, r = t / v.inner, j = r % v.b, i = (r / v.b) % v.a, z = r / v.b / v.a;
      const std::int64_t o = ((z * v.b + j) * v.a + i) * v.inner + k;
      for (int q = 0; q < halves; ++q) wrong += in[t * halves + q] != out[o * halves + q];
    }
    std::printf("%s %lldx%lldx%lldx%lld %d-byte | %-100.100s %9.2f us %5.1f%% of copy%s\n", p.perm.c_str(),
                static_cast<long long>(p.d[0]), static_cast<long long>(p.d[1]), static_cast<long long>(p.d[2]),
                static_cast<long long>(p.d[3]), elem_bytes, core::permute_path_name(path, v).c_str(), us,
                100 * 2.0 * static_cast<double>(bytes) / us / 1e3 / copy, wrong ? "  WRONG" : "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7 || (argc - 1) % 6 != 0) {
    std::fprintf(stderr, "usage: %s PERM D0 D1 D2 D3 ELEMENT_BYTES [...]  (e.g. 0132 1 1 4096 4096 4)\n", argv[0]);
    return 2;
  }
  try {
    cudaStream_t stream;
    OPMARK_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const double copy = copy_gb_per_s(stream);
    std::printf("cudaMemcpyAsync of 256 MiB: %.0f GB/s\n", copy);
    for (int a = 1; a < argc; a += 6) {
      core::PermuteProblem p;
      p.perm = argv[a];
      for (int d = 0; d < 4; ++d) p.d[d] = std::atoll(argv[a + 1 + d]);
      const int elem_bytes = std::atoi(argv[a + 5]);
      if (elem_bytes != 2 && elem_bytes != 4) throw opmark::Error("element bytes: 2 or 4, not " + std::string(argv[a + 5]));
      time_paths(p, elem_bytes, copy, stream);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "opmark_permute_paths: %s\n", e.what());
    return 1;
  }
  return 0;
}
