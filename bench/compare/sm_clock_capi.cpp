// kernels/sm_clock's probe behind a C interface, for the comparison scripts (bench/compare/sm_clock.py loads it with
// ctypes): PyTorch's samples are then stamped and judged by the same measured clock as opmark-bench's.
#include <string>

#include "kernels/sm_clock.h"

namespace {
thread_local std::string last_error;

template <class F>
auto guarded(F f, decltype(f()) on_error) -> decltype(f()) {
  try {
    last_error.clear();
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
    return on_error;
  }
}
}  // namespace

extern "C" {

// A probe on the current device; null on failure (opmark_sm_clock_error says why).
void* opmark_sm_clock_new() {
  return guarded([]() -> void* { return new opmark::kernels::SmClockProbe(); }, nullptr);
}

void opmark_sm_clock_free(void* probe) { delete static_cast<opmark::kernels::SmClockProbe*>(probe); }

// Enqueues a stamp into slot 0 (before the work) or 1 (after it) on `stream` (a cudaStream_t; 0: the default).
int opmark_sm_clock_stamp(void* probe, void* stream, int slot) {
  return guarded(
      [&] {
        static_cast<opmark::kernels::SmClockProbe*>(probe)->stamp(static_cast<cudaStream_t>(stream), slot);
        return 0;
      },
      -1);
}

// Waits for `stream`, then the mean SM clock between the two stamps in MHz; 0 unknown, -1 on failure.
double opmark_sm_clock_mhz(void* probe, void* stream) {
  return guarded([&] { return static_cast<opmark::kernels::SmClockProbe*>(probe)->mhz(static_cast<cudaStream_t>(stream)); },
                 -1.0);
}

const char* opmark_sm_clock_error() { return last_error.c_str(); }
}
