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
};

// Matches the CUDA device name ("NVIDIA H100 80GB HBM3"); nullopt for an unknown GPU.
std::optional<Peaks> datasheet_peaks(const std::string& device_name);

// The datasheet entry (if any) with the user's overrides applied ("bw" is memory GB/s).
Peaks resolve_peaks(const std::string& device_name, const std::map<std::string, double>& overrides);

}  // namespace opmark::bench
