#pragma once
// Datasheet peaks (dense, no sparsity; core/datasheet.h) by GPU model, for the % of peak counters. A lead, not a
// ceiling: measured ceilings given with --opmark_peak replace these.
#include <map>
#include <optional>
#include <string>

namespace opmark::bench {

struct Peaks {
  std::string source;                  // "datasheet: NVIDIA H100 SXM5" or "--opmark_peak"
  std::map<std::string, double> tflops;  // by precision peak key: fp32, tf32, fp16, bf16, int8 (TOPS), fp8
  double memory_gb_per_s = 0;
  // One GPU's NVLink bandwidth in one direction, the all-reduce's bus bandwidth is held against (the smallest of the
  // visible GPUs'); 0: no NVLink, or NVML cannot say.
  double link_gb_per_s = 0;
  std::string link_source;  // "18 x NVLink 4 (450 GB/s per direction)" or "--opmark_peak"
};

// Matches the CUDA device name ("NVIDIA H100 80GB HBM3"); nullopt for an unknown GPU.
std::optional<Peaks> datasheet_peaks(const std::string& device_name);

// The datasheet entry (if any) and the links' peak (core/nvlink.h; 0 and "" for none) with the user's overrides
// applied ("bw" is memory GB/s, "link" the NVLink GB/s per direction).
Peaks resolve_peaks(const std::string& device_name, const std::map<std::string, double>& overrides,
                    double link_gb_per_s = 0, const std::string& link_source = "");

}  // namespace opmark::bench
