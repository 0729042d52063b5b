#pragma once
// How the visible GPUs connect, for the results' context: the all-reduce's bandwidth depends on it.
#include <string>
#include <utility>
#include <vector>

#include "core/nvlink.h"

namespace opmark::bench {

// The ordered pairs (a, b) of GPUs 0 .. gpu_count-1 (CUDA indices) where a can access b's memory directly.
std::vector<std::pair<int, int>> peer_pairs(int gpu_count);

// The same as text for the context: "0>1 1>0", or "none".
std::string peer_access_pairs(int gpu_count);

// Pairs joined by NVLink, "0-1 0-2", "none", or "" where NVML cannot say (no driver library: it is loaded at run
// time, so opmark-bench still starts on a machine without one).
std::string nvlink_pairs(int gpu_count);

// What the GPUs 0 .. gpu_count-1 carry over NVLink in one direction, the smallest of theirs (NVML's active links
// and generation): 0 and "" where one has none or NVML cannot say.
core::NvlinkPeak visible_nvlink_peak(int gpu_count, int compute_capability);

}  // namespace opmark::bench
