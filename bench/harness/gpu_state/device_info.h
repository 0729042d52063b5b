#pragma once
// Facts about the GPU and the libraries, for the results' context and for case decisions (fp8 needs sm_89+).
#include <map>
#include <optional>
#include <string>

namespace opmark::bench {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_capability = 0;  // 90 for sm_90
  int sm_count = 0;
  double memory_gib = 0;
  int l2_bytes = 0;
  int sm_clock_mhz = 0;        // peak, as the driver reports it
  int memory_clock_mhz = 0;
  int memory_bus_bits = 0;
};

// The current CUDA device, or nullopt with `why` filled when there is none (no driver, no GPU).
std::optional<DeviceInfo> query_device(std::string* why);

// Versions of the driver, runtime and every library opmark links: "cuda_driver" -> "13.0", "cublas" -> ...
std::map<std::string, std::string> library_versions();

}  // namespace opmark::bench
