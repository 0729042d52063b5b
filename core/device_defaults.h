#pragma once
// What opmark assumes of a GPU where it does not ask the device: an H100's numbers.

#include <cstdint>

namespace opmark::core {

// Streaming multiprocessors: the reduce planner's default, and the unit of the grid caps of the grid-stride kernels
// (more blocks than a few waves only queue; the loops cover what the grid does not).
constexpr int kDefaultSms = 132;
// The grid-stride kernels' cap on a grid: 64 blocks an SM.
constexpr std::int64_t kMaxGridBlocks = std::int64_t{kDefaultSms} * 64;

}  // namespace opmark::core
