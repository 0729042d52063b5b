#pragma once
// The GPU's own account of how it ran: SM clock, clock-event (throttle) reasons, power and the energy counter,
// through NVML. NVML is the driver's library, loaded at run time (dlopen), so opmark-bench still starts where there
// is none; then every reading is unknown and the run's context says why.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace opmark::bench {

// NVML's clock-event reason bits (nvmlClocksEventReason*, formerly "throttle reasons").
namespace clock_event {
constexpr std::uint64_t gpu_idle = 0x1;
constexpr std::uint64_t applications_clocks = 0x2;
constexpr std::uint64_t sw_power_cap = 0x4;
constexpr std::uint64_t hw_slowdown = 0x8;
constexpr std::uint64_t sync_boost = 0x10;
constexpr std::uint64_t sw_thermal = 0x20;
constexpr std::uint64_t hw_thermal = 0x40;
constexpr std::uint64_t hw_power_brake = 0x80;
constexpr std::uint64_t display_clocks = 0x100;
// Thermal and hardware slowdowns: a spell of the machine, never a property of the operation.
constexpr std::uint64_t transient = hw_slowdown | sw_thermal | hw_thermal | hw_power_brake;
// Every reason that lowers the clock under load: the transient ones and the software power cap.
constexpr std::uint64_t throttling = transient | sw_power_cap;
// "sw_power_cap+hw_thermal", "none"
std::string names(std::uint64_t reasons);
}  // namespace clock_event

// One reading, taken while the GPU works.
struct ClockReading {
  unsigned sm_mhz = 0;         // 0: unknown
  std::uint64_t reasons = 0;   // clock_event bits
  bool reasons_known = false;
};

class GpuMonitor {
 public:
  // The GPU of CUDA device `cuda_device`; never throws: without NVML, available() is false and why() says why.
  explicit GpuMonitor(int cuda_device);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& why() const { return why_; }

  // The clock-event reasons now (sm_mhz left 0: the SM clock is measured on the GPU, kernels/sm_clock.h). NVML
  // refreshes them every few tens of milliseconds, and one call costs up to a millisecond.
  ClockReading clock_events() const;
  // The energy counter since the driver loaded; it steps about every 100 ms (bench/harness/gpu_state/energy.h).
  std::optional<unsigned long long> energy_millijoules() const;
  std::optional<double> power_watts() const;
  std::optional<unsigned> max_sm_mhz() const;

  // For the run's context.
  std::string uuid() const;
  std::optional<double> power_limit_watts() const;
  std::optional<bool> ecc_enabled() const;
  std::optional<bool> mig_enabled() const;

 private:
  void* device_ = nullptr;
  std::string why_;
};

// NVLink between two CUDA devices, through the same library: std::nullopt where NVML cannot say.
std::optional<bool> nvlink_between(int cuda_device_a, int cuda_device_b);

// A GPU's active NVLink links and the version code NVML gives the first (nvmlNvlinkVersion_t; core/nvlink.h reads
// it): std::nullopt where NVML cannot say, 0 links on a GPU without NVLink.
struct NvlinkLinks {
  int active = 0;
  unsigned nvml_version_code = 0;
};
std::optional<NvlinkLinks> nvlink_links(int cuda_device);

}  // namespace opmark::bench
