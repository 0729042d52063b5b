#include "bench/harness/gpu_state/peaks.h"

#include "core/datasheet.h"

namespace opmark::bench {

std::optional<Peaks> datasheet_peaks(const std::string& device_name) {
  const std::optional<core::Datasheet> e = core::datasheet_of(device_name);
  if (!e) return std::nullopt;
  Peaks p;
  p.source = "datasheet: " + e->model;
  p.tflops = {{"fp32", e->fp32}, {"tf32", e->tf32}, {"fp16", e->fp16}, {"bf16", e->fp16}, {"int8", e->int8}};
  if (e->fp8 > 0) p.tflops["fp8"] = e->fp8;
  p.memory_gb_per_s = e->memory_gb_per_s;
  return p;
}

Peaks resolve_peaks(const std::string& device_name, const std::map<std::string, double>& overrides,
                    double link_gb_per_s, const std::string& link_source) {
  Peaks unknown;
  unknown.source = "unknown GPU: no datasheet entry";
  Peaks p = datasheet_peaks(device_name).value_or(unknown);
  p.link_gb_per_s = link_gb_per_s;
  p.link_source = link_source;
  if (!overrides.empty()) p.source += " with --opmark_peak overrides";
  for (const auto& [key, value] : overrides) {
    if (key == "bw") {
      p.memory_gb_per_s = value;
    } else if (key == "link") {
      p.link_gb_per_s = value;
      p.link_source = "--opmark_peak";
    } else {
      p.tflops[key] = value;
    }
  }
  return p;
}

}  // namespace opmark::bench
