#include "bench/app/context_line.h"

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "bench/harness/timing/after_measure.h"
#include "bench/harness/gpu_state/energy.h"
#include "bench/harness/gpu_state/host_info.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/harness/output/results_log.h"
#include "bench/harness/timing/timer.h"
#include "bench/harness/gpu_state/topology.h"
#include "core/result_record.h"
#include "core/run_spec.h"
#include "opmark/version.h"

namespace opmark::bench::app {

nlohmann::json write_context(const std::optional<DeviceInfo>& device, const Options& o, const Peaks& peaks,
                             const ProcessGroup& group, const std::string& command, const core::Suite* suite,
                             const GpuMonitor* monitor) {
  nlohmann::json ctx;
  auto put = [&](const std::string& key, const std::string& value) {
    benchmark::AddCustomContext("opmark_" + key, value);
    ctx[key] = value;
  };
  // A number is a JSON number in the results log (results format 2, core/result_record.h); Google Benchmark's
  // context takes text only, so benchmark.json keeps the text it always had.
  auto put_number = [&](const std::string& key, auto value) {
    benchmark::AddCustomContext("opmark_" + key, std::to_string(value));
    ctx[key] = value;
  };
  put("version", OPMARK_VERSION);
  put("git", OPMARK_GIT_HASH);
  put("command", command);
  if (suite) {
    put("suite", suite->path);
    put_number("rules_version", suite->rules_version);
  }
  put_number("results_format", core::kResultsFormat);
  // The run's settings, each a typed key (core/run_spec.h's table): readers take them as values, never from the
  // sentence below.
  const nlohmann::json settings = core::settings_context(o);  // held here: items() only refers to it
  for (const auto& [key, value] : settings.items()) {
    if (value.is_string()) put(key, value.get<std::string>());
    else if (value.is_number_unsigned()) put_number(key, value.get<std::uint64_t>());
    else if (value.is_number_integer()) put_number(key, value.get<std::int64_t>());
    else put_number(key, value.get<double>());
  }
  put_number("power_margin", kPowerMargin);
  put("started_at", core::utc_now());
  char timing[768];
  if (o.regime == Regime::burst)
    std::snprintf(timing, sizeof timing,
                  "burst: %s; batches of about %g ms (at most %d launches); L2 %s; median over repetitions of at "
                  "least %g s of GPU time each, at least %d and at most %d, stopping once the median absolute "
                  "deviation over the median is at most %g or after %g s; a sample whose SM clock (measured on "
                  "the GPU) was under %g%% of the maximum, or that NVML saw throttled, is dropped and taken again "
                  "after an idle pause; energy over at least %g s of back-to-back launches, in whole steps of "
                  "NVML's energy counter timed by its period",
                  o.graph_timing ? "cuda graph replays, each enqueued whole before it starts, timed with events"
                                 : "back-to-back launches timed with events",
                  o.batch_s * 1e3, kMaxBatch, name_of(o.l2), o.min_time_s,
                  o.min_repetitions, o.max_repetitions, o.noise_target, o.case_time_cap_s,
                  o.min_clock_fraction * 100, o.energy_window_s);
  else
    std::snprintf(timing, sizeof timing,
                  "sustained: %s; batches of about %g ms; L2 %s; %g s to settle, then %d windows of at least %g s "
                  "each, bounded by steps of NVML's energy counter",
                  o.graph_timing ? "cuda graph replays" : "back-to-back launches", o.batch_s * 1e3,
                  name_of(o.l2), kSustainedLeadInSeconds, kSustainedWindows,
                  kSustainedWindowSeconds);
  put("timing", timing);
  put("peaks", peaks.source);
  for (const auto& [k, v] : peaks.tflops) put_number("peak_tflops_" + k, v);
  if (peaks.memory_gb_per_s > 0) put_number("peak_gb_per_s", peaks.memory_gb_per_s);
  if (peaks.link_gb_per_s > 0) {
    put_number("peak_link_gb_per_s", peaks.link_gb_per_s);
    put("nvlink", peaks.link_source);
  }
  if (device) {
    put("gpu", device->name);
    put_number("gpu_count_used", group.size());
    int visible = 0;
    if (cudaGetDeviceCount(&visible) == cudaSuccess) {
      put_number("visible_gpus", visible);
      put("peer_access", peer_access_pairs(visible));
      const std::string nvlink = nvlink_pairs(visible);
      if (!nvlink.empty()) put("nvlink_pairs", nvlink);
    }
    if (group.multi_process()) {
      put_number("processes", group.size());
      put("mpi", group.describe());
    }
    put("compute_capability", std::to_string(device->compute_capability / 10) + "." +
                                  std::to_string(device->compute_capability % 10));
    put_number("sm_count", device->sm_count);
    put_number("memory_gib", device->memory_gib);
    put_number("l2_bytes", device->l2_bytes);
    put_number("sm_clock_mhz", device->sm_clock_mhz);
    put_number("memory_clock_mhz", device->memory_clock_mhz);
    put_number("memory_bus_bits", device->memory_bus_bits);
    // The kernels' own durations (kernel_us), or why not.
    put("kernel_trace", kernel_trace_off(o, group.multi_process()).value_or("cupti"));
    if (monitor && monitor->available()) {
      put("nvml", "ok");
      const std::string uuid = monitor->uuid();
      if (!uuid.empty()) put("gpu_uuid", uuid);
      if (auto w = monitor->power_limit_watts()) put_number("power_limit_w", *w);
      if (auto mhz = monitor->max_sm_mhz()) put_number("max_sm_clock_mhz", *mhz);
      if (auto e = monitor->ecc_enabled()) put("ecc", *e ? "on" : "off");
      if (auto m = monitor->mig_enabled()) put("mig", *m ? "on" : "off");
    } else {
      put("nvml", "unavailable: " + (monitor ? monitor->why() : std::string("no GPU")) +
                      " (no clocks, throttle reasons, power or energy recorded)");
    }
  }
  for (const auto& [lib, version] : library_versions()) put(lib + "_version", version);
  const std::string driver = nvidia_driver_version(), cpu = host_cpu_model();
  if (!driver.empty()) put("driver_version", driver);
  if (!cpu.empty()) put("host_cpu", cpu);
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) put("host", host);
  return ctx;
}

}  // namespace opmark::bench::app
