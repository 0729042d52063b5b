#include "bench/harness/timing/kernel_trace.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.h"

#ifdef OPMARK_HAVE_CUPTI
#include <cupti.h>
#endif

namespace opmark::bench {

std::string kernel_display_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  std::string name = status == 0 && demangled ? demangled.get() : mangled;
  if (name.size() > kMaxNameChars) name = name.substr(0, kMaxNameChars - 3) + "...";
  return name;
}

KernelSummary summarize_kernels(const std::vector<KernelRecord>& records, long long launches) {
  KernelSummary s;
  if (records.empty() || launches <= 0) return s;
  std::vector<const KernelRecord*> by_start;
  for (const KernelRecord& r : records) by_start.push_back(&r);
  std::stable_sort(by_start.begin(), by_start.end(),
                   [](const KernelRecord* a, const KernelRecord* b) { return a->start_ns < b->start_ns; });
  // Per distinct name: the order it first started in, and its summed duration.
  std::map<std::string, std::pair<std::size_t, double>> kernels;
  double total_ns = 0;
  for (const KernelRecord* r : by_start) {
    const double ns = r->end_ns > r->start_ns ? static_cast<double>(r->end_ns - r->start_ns) : 0.0;
    total_ns += ns;
    auto [it, added] = kernels.try_emplace(r->name, kernels.size(), 0.0);
    it->second.second += ns;
  }
  const double n = static_cast<double>(launches);
  s.seconds_per_launch = total_ns * 1e-9 / n;
  s.kernels_per_launch = static_cast<double>(records.size()) / n;
  std::vector<std::pair<std::string, std::pair<std::size_t, double>>> listed(kernels.begin(), kernels.end());
  if (listed.size() > kMaxKernels) {  // keep the longest
    std::stable_sort(listed.begin(), listed.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    listed.resize(kMaxKernels);
  }
  std::sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
  for (const auto& [name, order_ns] : listed) {
    s.names.push_back(kernel_display_name(name));
    s.seconds.push_back(order_ns.second * 1e-9 / n);
  }
  return s;
}

#ifdef OPMARK_HAVE_CUPTI

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

std::mutex g_records_mutex;
std::vector<KernelRecord> g_records;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI wants 8-byte aligned buffers.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_records_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    // Newer record versions add fields at the end: the name and stamps are where this header puts them.
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    const char* name = k->name;
    const std::uint64_t start = k->start, end = k->end;  // packed fields: copied, not bound
    g_records.push_back({name ? name : "?", start, end});
  }
  std::free(buffer);
}

std::string cupti_error(const char* call, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return std::string(call) + " failed: " + (text ? text : "CUPTI error " + std::to_string(static_cast<int>(r)));
}

}  // namespace

KernelTracer::KernelTracer() {
  const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) why_ = cupti_error("cuptiActivityRegisterCallbacks", r);
}

void KernelTracer::begin() {
  if (!available()) throw Error("kernel tracing unavailable: " + why_);
  {
    std::lock_guard<std::mutex> lock(g_records_mutex);
    g_records.clear();
  }
  const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) {
    why_ = cupti_error("cuptiActivityEnable", r);
    throw Error("kernel tracing unavailable: " + why_);
  }
  tracing_ = true;
}

std::vector<KernelRecord> KernelTracer::end() {
  if (!tracing_) return {};
  tracing_ = false;
  const CUptiResult off = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // Forced: every buffer, complete or not, reaches buffer_completed before this returns.
  const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (off != CUPTI_SUCCESS) why_ = cupti_error("cuptiActivityDisable", off);
  else if (flushed != CUPTI_SUCCESS) why_ = cupti_error("cuptiActivityFlushAll", flushed);
  if (!why_.empty()) throw Error("kernel tracing failed: " + why_);
  std::lock_guard<std::mutex> lock(g_records_mutex);
  return std::move(g_records);
}

void KernelTracer::end_quietly() noexcept {
  try {
    end();
  } catch (...) {
  }
}

#else

KernelTracer::KernelTracer() : why_("opmark-bench was built without CUPTI (CUDA::cupti not found)") {}
void KernelTracer::begin() { throw Error("kernel tracing unavailable: " + why_); }
std::vector<KernelRecord> KernelTracer::end() { return {}; }
void KernelTracer::end_quietly() noexcept {}

#endif

KernelTracer& KernelTracer::instance() {
  static KernelTracer tracer;
  return tracer;
}

}  // namespace opmark::bench
