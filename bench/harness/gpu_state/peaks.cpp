#include "bench/harness/gpu_state/peaks.h"

#include <vector>

namespace opmark::bench {
namespace {

struct Entry {
  const char* match;  // every word must appear in the device name
  const char* model;
  double fp32, tf32, fp16, int8, fp8, bw;
};

// NVIDIA datasheets, dense Tensor Core rates (half of the "with sparsity" figures). fp16 and bf16 share a rate.
// Ordered most specific first.
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"H200", "NVIDIA H200 SXM", 67, 494.7, 989.4, 1978.9, 1978.9, 4800},
      {"H100 PCIe", "NVIDIA H100 PCIe", 51, 378, 756, 1513, 1513, 2000},
      {"H100 NVL", "NVIDIA H100 NVL", 60, 417.5, 835, 1670, 1670, 3900},
      {"H100", "NVIDIA H100 SXM5", 67, 494.7, 989.4, 1978.9, 1978.9, 3350},
      {"A100", "NVIDIA A100 SXM4", 19.5, 156, 312, 624, 0, 2039},
      {"L40S", "NVIDIA L40S", 91.6, 183, 362, 733, 733, 864},
  };
  return entries;
}

bool matches(const std::string& name, const std::string& pattern) {
  std::size_t start = 0;
  while (start < pattern.size()) {
    std::size_t end = pattern.find(' ', start);
    std::string word = pattern.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (name.find(word) == std::string::npos) return false;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::optional<Peaks> datasheet_peaks(const std::string& device_name) {
  for (const auto& e : table()) {
    if (!matches(device_name, e.match)) continue;
    Peaks p;
    p.source = std::string("datasheet: ") + e.model;
    p.tflops = {{"fp32", e.fp32}, {"tf32", e.tf32}, {"fp16", e.fp16}, {"bf16", e.fp16}, {"int8", e.int8}};
    if (e.fp8 > 0) p.tflops["fp8"] = e.fp8;
    p.memory_gb_per_s = e.bw;
    return p;
  }
  return std::nullopt;
}

Peaks resolve_peaks(const std::string& device_name, const std::map<std::string, double>& overrides) {
  Peaks p = datasheet_peaks(device_name).value_or(Peaks{"unknown GPU: no datasheet entry", {}, 0});
  if (!overrides.empty()) p.source += " with --opmark_peak overrides";
  for (const auto& [key, value] : overrides) {
    if (key == "bw") p.memory_gb_per_s = value;
    else p.tflops[key] = value;
  }
  return p;
}

}  // namespace opmark::bench
