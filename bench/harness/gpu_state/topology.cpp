#include "bench/harness/gpu_state/topology.h"

#include <cuda_runtime.h>

#include <vector>

#include "bench/harness/gpu_state/gpu_monitor.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {

std::vector<std::pair<int, int>> peer_pairs(int gpu_count) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < gpu_count; ++a)
    for (int b = 0; b < gpu_count; ++b) {
      int can = 0;
      if (a != b) OPMARK_CHECK_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
      if (can) pairs.emplace_back(a, b);
    }
  return pairs;
}

std::string peer_access_pairs(int gpu_count) {
  std::string text;
  for (const auto& [a, b] : peer_pairs(gpu_count))
    text += (text.empty() ? "" : " ") + std::to_string(a) + ">" + std::to_string(b);
  return text.empty() ? "none" : text;
}

std::string nvlink_pairs(int gpu_count) {
  std::string pairs;
  for (int a = 0; a < gpu_count; ++a)
    for (int b = a + 1; b < gpu_count; ++b) {
      const std::optional<bool> linked = nvlink_between(a, b);
      if (!linked) return "";  // NVML cannot say
      if (*linked) pairs += (pairs.empty() ? "" : " ") + std::to_string(a) + "-" + std::to_string(b);
    }
  return pairs.empty() ? "none" : pairs;
}

core::NvlinkPeak visible_nvlink_peak(int gpu_count, int compute_capability) {
  core::NvlinkPeak smallest;
  for (int g = 0; g < gpu_count; ++g) {
    const std::optional<NvlinkLinks> links = nvlink_links(g);
    if (!links) return {};
    const core::NvlinkPeak p =
        core::nvlink_peak(links->active, core::nvlink_generation(links->nvml_version_code, compute_capability));
    if (p.gb_per_s <= 0) return {};
    if (g == 0 || p.gb_per_s < smallest.gb_per_s) smallest = p;
  }
  return smallest;
}

}  // namespace opmark::bench
