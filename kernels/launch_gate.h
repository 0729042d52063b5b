#pragma once
// Holds a stream until the host has enqueued everything a timed sample needs, so the sample's start event does not
// run ahead of the work it times. On an idle stream an event is stamped as soon as the host records it, while the
// host is still submitting the graph after it, and the submission would count as GPU time. nvbench and
// tritonbench hold their streams the same way.
#include <cuda_runtime.h>

namespace opmark::kernels {

class LaunchGate {
 public:
  LaunchGate();
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  // Enqueues a one-thread kernel that spins until open() or until `timeout_s` has passed on the GPU's timer.
  // Call once the stream has passed the previous hold.
  void close(cudaStream_t stream, double timeout_s = kTimeoutSeconds);
  // Lets the held stream go on.
  void open();
  // Whether the last hold ended by its timeout rather than by open(); read once the stream has passed it.
  bool timed_out() const;

  // Longer than any submission of a timed sample takes, short enough that a gate never opened costs little.
  static constexpr double kTimeoutSeconds = 0.1;

 private:
  volatile int* flags_ = nullptr;  // host-mapped: [0] open, [1] timed out
  int* device_flags_ = nullptr;
};

}  // namespace opmark::kernels
