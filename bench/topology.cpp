#include "bench/topology.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <vector>

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

namespace {

// The few NVML entry points used, declared here (the toolkit here ships no nvml.h) with NVML's values.
using NvmlDevice = void*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlHandleByPciBusId = int (*)(const char*, NvmlDevice*);
using NvmlP2PStatus = int (*)(NvmlDevice, NvmlDevice, int, int*);
constexpr int kNvmlSuccess = 0;
constexpr int kP2PCapsNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kP2PStatusOk = 0;    // NVML_P2P_STATUS_OK

}  // namespace

std::string nvlink_pairs(int gpu_count) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "";
  const auto init = reinterpret_cast<NvmlInit>(dlsym(lib, "nvmlInit_v2"));
  const auto shutdown = reinterpret_cast<NvmlShutdown>(dlsym(lib, "nvmlShutdown"));
  const auto by_bus = reinterpret_cast<NvmlHandleByPciBusId>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  const auto p2p = reinterpret_cast<NvmlP2PStatus>(dlsym(lib, "nvmlDeviceGetP2PStatus"));
  std::string pairs;
  bool known = false;
  if (init && shutdown && by_bus && p2p && init() == kNvmlSuccess) {
    // CUDA and NVML number GPUs differently: match them by PCI bus id.
    std::vector<NvmlDevice> devices(static_cast<std::size_t>(gpu_count), nullptr);
    known = true;
    for (int i = 0; i < gpu_count && known; ++i) {
      char bus[32] = {0};
      known = cudaDeviceGetPCIBusId(bus, sizeof bus, i) == cudaSuccess &&
              by_bus(bus, &devices[static_cast<std::size_t>(i)]) == kNvmlSuccess;
    }
    for (int a = 0; a < gpu_count && known; ++a)
      for (int b = a + 1; b < gpu_count; ++b) {
        int status = -1;
        if (p2p(devices[static_cast<std::size_t>(a)], devices[static_cast<std::size_t>(b)], kP2PCapsNvlink,
                &status) == kNvmlSuccess &&
            status == kP2PStatusOk)
          pairs += (pairs.empty() ? "" : " ") + std::to_string(a) + "-" + std::to_string(b);
      }
    shutdown();
  }
  dlclose(lib);
  if (!known) return "";
  return pairs.empty() ? "none" : pairs;
}

}  // namespace opmark::bench
