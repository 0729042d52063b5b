#pragma once
// NVLink's datasheet rates, for the all-reduce's % of peak: nccl-tests' bus bandwidth is held against what one GPU's
// links carry in one direction (links x the generation's per-link rate). Host-only.
#include <string>

namespace opmark::core {

// The generation of NVML's nvmlNvlinkVersion_t code (1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0,
// 7 = 5.0); 0 for a code it does not know. Hopper's links are NVLink 4 whatever the code says: some drivers
// report 5.0 on H100s.
int nvlink_generation(unsigned nvml_version_code, int compute_capability);

// One link's rate in one direction, GB/s: 20 (NVLink 1), 25 (2, 3 and 4), 50 (5); 0 where unknown.
double nvlink_gb_per_s_per_link(int generation);

// What a GPU's active links carry in one direction, and how the context states it: "18 x NVLink 4 (450 GB/s per
// direction)". No links or an unknown generation: 0 and "".
struct NvlinkPeak {
  double gb_per_s = 0;
  std::string text;
};
NvlinkPeak nvlink_peak(int active_links, int generation);

}  // namespace opmark::core
