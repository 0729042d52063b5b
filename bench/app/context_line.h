#pragma once
// The run's context: every fact of the run (opmark's version, the command, the settings of core/run_spec.h's table,
// the GPU, the libraries, the host) as one JSON object for the results log's first line, each also handed to Google
// Benchmark's context for benchmark.json.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/gpu_state/gpu_monitor.h"
#include "bench/harness/options.h"
#include "bench/harness/gpu_state/peaks.h"
#include "bench/harness/process_group.h"
#include "core/suite.h"

namespace opmark::bench::app {

// suite: the submission rules the run follows, or null; monitor: NVML's view of the GPU, or null.
nlohmann::json write_context(const std::optional<DeviceInfo>& device, const Options& o, const Peaks& peaks,
                             const ProcessGroup& group, const std::string& command, const core::Suite* suite,
                             const GpuMonitor* monitor);

}  // namespace opmark::bench::app
