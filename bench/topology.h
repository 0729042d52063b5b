#pragma once
// How the visible GPUs connect, for the results' context: the all-reduce's bandwidth depends on it.
#include <string>

namespace opmark::bench {

// Pairs of visible GPUs (CUDA indices) with direct peer access, "0>1 1>0", or "none".
std::string peer_access_pairs(int gpu_count);

// Pairs joined by NVLink, "0-1 0-2", "none", or "" where NVML cannot say (no driver library: it is loaded at run
// time, so opmark-bench still starts on a machine without one).
std::string nvlink_pairs(int gpu_count);

}  // namespace opmark::bench
