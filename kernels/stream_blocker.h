#pragma once
// Holds a stream until the host has queued a whole timed sample, so the GPU runs
// start event -> launches -> stop event back to back and the time excludes the host's launch latency
// (the trick of nvbench's blocking kernel). Without it a lone 6 us kernel measures about 13 us.
#include <cuda_runtime.h>

namespace opmark::kernels {

class StreamBlocker {
 public:
  StreamBlocker();
  ~StreamBlocker();
  StreamBlocker(const StreamBlocker&) = delete;
  StreamBlocker& operator=(const StreamBlocker&) = delete;

  // Queues a kernel that spins until release() (or a 5 s timeout, so a forgotten release cannot hang the GPU).
  void block(cudaStream_t stream);
  // Lets the stream go. Call after queueing the sample.
  void release();
  // After the stream has passed the blocker: whether it gave up waiting (the sample may then include host gaps,
  // e.g. when a lazily loaded kernel made the host wait for the device).
  bool timed_out() const { return host_flags_[1] != 0; }

 private:
  volatile int* host_flags_ = nullptr;  // [0] release, [1] timed out; pinned and mapped
  int* device_flags_ = nullptr;
  bool blocked_ = false;
};

}  // namespace opmark::kernels
