#pragma once
// The GPU models opmark knows from their datasheets: dense peak rates (no sparsity), memory bandwidth and the most
// power the board may be set to draw. opmark-bench states its % of peak against these (unless --opmark_peak
// overrides them) and check holds a bundle's stated peaks and power limit to them. Host-only.
#include <optional>
#include <string>

namespace opmark::core {

struct Datasheet {
  std::string model;  // "NVIDIA H100 SXM5"
  double fp32 = 0, tf32 = 0, fp16 = 0, int8 = 0, fp8 = 0;  // TFLOPS (int8: TOPS); fp16 and bf16 share a rate
  double memory_gb_per_s = 0;
  double max_power_w = 0;  // the board's largest configurable power limit
};

// The entry whose words all appear in the CUDA device name ("NVIDIA H100 80GB HBM3"), most specific first; nullopt
// for a GPU opmark has no datasheet of.
std::optional<Datasheet> datasheet_of(const std::string& device_name);

}  // namespace opmark::core
