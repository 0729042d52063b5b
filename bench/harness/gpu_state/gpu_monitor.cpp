#include "bench/harness/gpu_state/gpu_monitor.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

namespace opmark::bench {

std::string clock_event::names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> kNames[] = {
      {gpu_idle, "gpu_idle"},       {applications_clocks, "applications_clocks"},
      {sw_power_cap, "sw_power_cap"}, {hw_slowdown, "hw_slowdown"},
      {sync_boost, "sync_boost"},   {sw_thermal, "sw_thermal"},
      {hw_thermal, "hw_thermal"},   {hw_power_brake, "hw_power_brake"},
      {display_clocks, "display_clocks"}};
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (reasons & bit) out += (out.empty() ? "" : "+") + std::string(name);
  return out.empty() ? "none" : out;
}

namespace {

// The NVML entry points used, declared here (the toolkit here ships no nvml.h) with NVML's values.
using Device = void*;
constexpr int kSuccess = 0;
constexpr int kClockSm = 1;             // NVML_CLOCK_SM
constexpr int kP2PCapsNvlink = 2;       // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kP2PStatusOk = 0;         // NVML_P2P_STATUS_OK
constexpr unsigned kNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS
constexpr int kFeatureEnabled = 1;        // NVML_FEATURE_ENABLED

struct Nvml {
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*by_bus)(const char*, Device*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  int (*reasons)(Device, unsigned long long*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*energy)(Device, unsigned long long*) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*uuid)(Device, char*, unsigned) = nullptr;
  int (*ecc)(Device, int*, int*) = nullptr;
  int (*mig)(Device, unsigned*, unsigned*) = nullptr;
  int (*p2p)(Device, Device, int, int*) = nullptr;
  int (*link_state)(Device, unsigned, int*) = nullptr;
  int (*link_version)(Device, unsigned, unsigned*) = nullptr;
  std::string why;

  template <class F>
  void find(F& f, const char* name, const char* older = nullptr) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && older) f = reinterpret_cast<F>(dlsym(lib, older));
  }

  // Loaded once and kept: NVML is initialised for the life of the process (nvmlShutdown is never needed).
  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      why = "the driver's NVML library (libnvidia-ml.so.1) is not loadable";
      return;
    }
    find(init, "nvmlInit_v2");
    find(by_bus, "nvmlDeviceGetHandleByPciBusId_v2");
    find(max_clock, "nvmlDeviceGetMaxClockInfo");
    // Renamed in NVML 12.x; older drivers have only the "throttle" spelling.
    find(reasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    find(power, "nvmlDeviceGetPowerUsage");
    find(energy, "nvmlDeviceGetTotalEnergyConsumption");
    find(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    find(uuid, "nvmlDeviceGetUUID");
    find(ecc, "nvmlDeviceGetEccMode");
    find(mig, "nvmlDeviceGetMigMode");
    find(p2p, "nvmlDeviceGetP2PStatus");
    find(link_state, "nvmlDeviceGetNvLinkState");
    find(link_version, "nvmlDeviceGetNvLinkVersion");
    if (!init || !by_bus) why = "NVML lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    else if (init() != kSuccess) why = "nvmlInit failed";
    else return;
    init = nullptr;
  }

  static Nvml& get() {
    static Nvml n;
    return n;
  }

  bool ready() const { return init != nullptr; }

  // CUDA and NVML number GPUs differently: match them by PCI bus id.
  Device device_of(int cuda_device, std::string* why_not) const {
    char bus[32] = {0};
    Device d = nullptr;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, cuda_device) != cudaSuccess) {
      cudaGetLastError();
      *why_not = "CUDA gave no PCI bus id for device " + std::to_string(cuda_device);
      return nullptr;
    }
    if (by_bus(bus, &d) != kSuccess) {
      *why_not = std::string("NVML does not know the GPU at PCI bus ") + bus;
      return nullptr;
    }
    return d;
  }
};

}  // namespace

GpuMonitor::GpuMonitor(int cuda_device) {
  Nvml& n = Nvml::get();
  if (!n.ready()) {
    why_ = n.why;
    return;
  }
  device_ = n.device_of(cuda_device, &why_);
}

GpuMonitor::~GpuMonitor() = default;

ClockReading GpuMonitor::clock_events() const {
  ClockReading r;
  if (!device_) return r;
  const Nvml& n = Nvml::get();
  unsigned long long bits = 0;
  if (n.reasons && n.reasons(device_, &bits) == kSuccess) {
    r.reasons = bits;
    r.reasons_known = true;
  }
  return r;
}

std::optional<unsigned long long> GpuMonitor::energy_millijoules() const {
  const Nvml& n = Nvml::get();
  unsigned long long mj = 0;
  if (!device_ || !n.energy || n.energy(device_, &mj) != kSuccess) return std::nullopt;
  return mj;
}

std::optional<double> GpuMonitor::power_watts() const {
  const Nvml& n = Nvml::get();
  unsigned mw = 0;
  if (!device_ || !n.power || n.power(device_, &mw) != kSuccess) return std::nullopt;
  return mw * 1e-3;
}

std::optional<unsigned> GpuMonitor::max_sm_mhz() const {
  const Nvml& n = Nvml::get();
  unsigned mhz = 0;
  if (!device_ || !n.max_clock || n.max_clock(device_, kClockSm, &mhz) != kSuccess || mhz == 0) return std::nullopt;
  return mhz;
}

std::string GpuMonitor::uuid() const {
  const Nvml& n = Nvml::get();
  char buf[96] = {0};
  if (!device_ || !n.uuid || n.uuid(device_, buf, sizeof buf) != kSuccess) return "";
  return buf;
}

std::optional<double> GpuMonitor::power_limit_watts() const {
  const Nvml& n = Nvml::get();
  unsigned mw = 0;
  if (!device_ || !n.power_limit || n.power_limit(device_, &mw) != kSuccess) return std::nullopt;
  return mw * 1e-3;
}

std::optional<bool> GpuMonitor::ecc_enabled() const {
  const Nvml& n = Nvml::get();
  int current = 0, pending = 0;
  if (!device_ || !n.ecc || n.ecc(device_, &current, &pending) != kSuccess) return std::nullopt;
  return current != 0;
}

std::optional<bool> GpuMonitor::mig_enabled() const {
  const Nvml& n = Nvml::get();
  unsigned current = 0, pending = 0;
  if (!device_ || !n.mig || n.mig(device_, &current, &pending) != kSuccess) return std::nullopt;
  return current != 0;
}

std::optional<bool> nvlink_between(int cuda_device_a, int cuda_device_b) {
  const Nvml& n = Nvml::get();
  if (!n.ready() || !n.p2p) return std::nullopt;
  std::string why;
  Device a = n.device_of(cuda_device_a, &why), b = n.device_of(cuda_device_b, &why);
  int status = -1;
  if (!a || !b || n.p2p(a, b, kP2PCapsNvlink, &status) != kSuccess) return std::nullopt;
  return status == kP2PStatusOk;
}

std::optional<NvlinkLinks> nvlink_links(int cuda_device) {
  const Nvml& n = Nvml::get();
  if (!n.ready() || !n.link_state) return std::nullopt;
  std::string why;
  Device d = n.device_of(cuda_device, &why);
  if (!d) return std::nullopt;
  NvlinkLinks links;
  for (unsigned l = 0; l < kNvlinkMaxLinks; ++l) {
    int active = 0;
    if (n.link_state(d, l, &active) != kSuccess || active != kFeatureEnabled) continue;
    ++links.active;
    unsigned code = 0;
    if (links.nvml_version_code == 0 && n.link_version && n.link_version(d, l, &code) == kSuccess)
      links.nvml_version_code = code;
  }
  return links;
}

}  // namespace opmark::bench
