#include "core/nvlink.h"

#include <cstdio>

namespace opmark::core {

int nvlink_generation(unsigned nvml_version_code, int compute_capability) {
  if (compute_capability / 10 == 9 && nvml_version_code > 0) return 4;
  switch (nvml_version_code) {
    case 1: return 1;
    case 2: case 3: return 2;
    case 4: case 5: return 3;
    case 6: return 4;
    case 7: return 5;
    default: return 0;
  }
}

double nvlink_gb_per_s_per_link(int generation) {
  switch (generation) {
    case 1: return 20;
    case 2: case 3: case 4: return 25;
    case 5: return 50;
    default: return 0;
  }
}

NvlinkPeak nvlink_peak(int active_links, int generation) {
  NvlinkPeak p;
  const double per_link = nvlink_gb_per_s_per_link(generation);
  if (active_links <= 0 || per_link <= 0) return p;
  p.gb_per_s = active_links * per_link;
  char b[96];
  std::snprintf(b, sizeof b, "%d x NVLink %d (%g GB/s per direction)", active_links, generation, p.gb_per_s);
  p.text = b;
  return p;
}

}  // namespace opmark::core
