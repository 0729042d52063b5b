#include "core/datasheet.h"

#include <vector>

namespace opmark::core {
namespace {

struct Entry {
  const char* match;  // every word must appear in the device name
  Datasheet sheet;
};

// NVIDIA datasheets, dense Tensor Core rates (half of the "with sparsity" figures), and the boards' maximum power.
// Ordered most specific first.
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      {"H200", {"NVIDIA H200 SXM", 67, 494.7, 989.4, 1978.9, 1978.9, 4800, 700}},
      {"H100 PCIe", {"NVIDIA H100 PCIe", 51, 378, 756, 1513, 1513, 2000, 350}},
      {"H100 NVL", {"NVIDIA H100 NVL", 60, 417.5, 835, 1670, 1670, 3900, 400}},
      {"H100", {"NVIDIA H100 SXM5", 67, 494.7, 989.4, 1978.9, 1978.9, 3350, 700}},
      {"A100", {"NVIDIA A100 SXM4", 19.5, 156, 312, 624, 0, 2039, 400}},
      {"L40S", {"NVIDIA L40S", 91.6, 183, 362, 733, 733, 864, 350}},
  };
  return entries;
}

bool matches(const std::string& name, const std::string& pattern) {
  std::size_t start = 0;
  while (start < pattern.size()) {
    const std::size_t end = pattern.find(' ', start);
    const std::string word = pattern.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (name.find(word) == std::string::npos) return false;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::optional<Datasheet> datasheet_of(const std::string& device_name) {
  for (const auto& e : table())
    if (matches(device_name, e.match)) return e.sheet;
  return std::nullopt;
}

}  // namespace opmark::core
