#pragma once
// The kernels a launch runs and each one's own duration on the GPU, from CUPTI's activity records (the start and
// end stamps Nsight Systems shows). The harness traces a few replays of a case's timed graph after measuring it, so
// tracing costs the measured median nothing (enabled, it adds about 1 us a launch on an H100).
//
// Why beside the replay time: a replay's time per launch holds the gaps between kernels too; the kernels' own
// durations say how much of it is the operation's kernels, which kernels the library chose, and how many. Where
// CUPTI cannot be loaded or enabled (built without it, or a profiler holds it), available() is false and why()
// says why; the cases then carry no kernel durations and the run goes on.
#include <cstdint>
#include <string>
#include <vector>

namespace opmark::bench {

// One kernel's activity record: its (mangled) name and GPU timestamps in ns.
struct KernelRecord {
  std::string name;
  std::uint64_t start_ns = 0, end_ns = 0;
};

// The kernels of one launch, from the records of `launches` launches of the same operation.
struct KernelSummary {
  double seconds_per_launch = 0;   // the kernels' durations summed, per launch
  double kernels_per_launch = 0;   // records over launches (a whole number when every launch ran the same kernels)
  // Distinct kernels (demangled, at most kMaxNameChars each) in the order they first started, with each one's
  // summed duration per launch: at most kMaxKernels, the longest kept when there are more.
  std::vector<std::string> names;
  std::vector<double> seconds;
  bool empty() const { return kernels_per_launch == 0; }
};
inline constexpr std::size_t kMaxKernels = 8;
inline constexpr std::size_t kMaxNameChars = 200;

// Pure: groups `records` (any order) of `launches` launches. No records or no launches: an empty summary.
KernelSummary summarize_kernels(const std::vector<KernelRecord>& records, long long launches);

// A kernel's demangled name (the mangled one where it does not demangle), cut to kMaxNameChars with "...".
std::string kernel_display_name(const std::string& mangled);

// CUPTI's activity API allows one client per process: one tracer, made on first use.
class KernelTracer {
 public:
  static KernelTracer& instance();
  bool available() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  // Records every kernel that runs from begin() to end(); end() waits for the records and returns them. Throws
  // opmark::Error where CUPTI refuses (then available() turns false, so the next case does not try again).
  void begin();
  std::vector<KernelRecord> end();
  // end() for an error path: never throws, drops the records.
  void end_quietly() noexcept;

 private:
  KernelTracer();
  std::string why_;
  bool tracing_ = false;
};

}  // namespace opmark::bench
