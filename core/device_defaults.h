#pragma once
// What opmark assumes of a GPU where it does not ask the device: an H100's numbers.

namespace opmark::core {

// Streaming multiprocessors: the reduce planner's default, and the unit of the grid caps of the grid-stride kernels
// (more blocks than a few waves only queue; the loops cover what the grid does not).
constexpr int kDefaultSms = 132;

}  // namespace opmark::core
