#pragma once
// GPU tests skip, with the reason, on a machine without a CUDA device.
#include <gtest/gtest.h>

#include <string>

#include "bench/device_info.h"

namespace opmark::test {

inline const std::optional<bench::DeviceInfo>& test_device(std::string* why = nullptr) {
  static std::string reason;
  static const std::optional<bench::DeviceInfo> device = bench::query_device(&reason);
  if (why) *why = reason;
  return device;
}

}  // namespace opmark::test

#define OPMARK_REQUIRE_GPU()                                                   \
  do {                                                                         \
    std::string opmark_why_;                                                   \
    if (!::opmark::test::test_device(&opmark_why_))                            \
      GTEST_SKIP() << "no CUDA device (" << opmark_why_ << ")";                \
  } while (0)
