#include "bench/harness/gpu_state/device_info.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#ifdef OPMARK_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef OPMARK_HAVE_NCCL
#include <nccl.h>
#endif

namespace opmark::bench {

std::optional<DeviceInfo> query_device(std::string* why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (why)
      *why = err != cudaSuccess ? std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err)
                                : std::string("the CUDA driver reports 0 devices");
    cudaGetLastError();
    return std::nullopt;
  }
  DeviceInfo d;
  cudaGetDevice(&d.index);
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, d.index) != cudaSuccess) {
    if (why) *why = "cudaGetDeviceProperties failed";
    cudaGetLastError();
    return std::nullopt;
  }
  d.name = prop.name;
  d.compute_capability = prop.major * 10 + prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.memory_gib = static_cast<double>(prop.totalGlobalMem) / (1ull << 30);
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bus_bits = prop.memoryBusWidth;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d.index) == cudaSuccess) d.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d.index) == cudaSuccess) d.memory_clock_mhz = khz / 1000;
  cudaGetLastError();
  return d;
}

static std::string dotted(int v, int major_div, int minor_div, int minor_mod) {
  return std::to_string(v / major_div) + "." + std::to_string((v / minor_div) % minor_mod);
}

std::map<std::string, std::string> library_versions() {
  std::map<std::string, std::string> v;
  int x = 0;
  if (cudaDriverGetVersion(&x) == cudaSuccess) v["cuda_driver"] = dotted(x, 1000, 10, 100);
  if (cudaRuntimeGetVersion(&x) == cudaSuccess) v["cuda_runtime"] = dotted(x, 1000, 10, 100);
  const std::size_t lt = cublasLtGetVersion();  // major*10000 + minor*100 + patch
  v["cublaslt"] = std::to_string(lt / 10000) + "." + std::to_string((lt / 100) % 100) + "." + std::to_string(lt % 100);
  int major = 0, minor = 0, patch = 0;
  if (cusparseGetProperty(MAJOR_VERSION, &major) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(MINOR_VERSION, &minor) == CUSPARSE_STATUS_SUCCESS &&
      cusparseGetProperty(PATCH_LEVEL, &patch) == CUSPARSE_STATUS_SUCCESS)
    v["cusparse"] = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#ifdef OPMARK_HAVE_CUDNN
  const std::size_t dnn = cudnnGetVersion();  // cuDNN 9: major*10000 + minor*100 + patch
  v["cudnn"] = std::to_string(dnn / 10000) + "." + std::to_string((dnn / 100) % 100) + "." + std::to_string(dnn % 100);
#endif
#ifdef OPMARK_HAVE_NCCL
  if (ncclGetVersion(&x) == ncclSuccess)
    v["nccl"] = std::to_string(x / 10000) + "." + std::to_string((x / 100) % 100) + "." + std::to_string(x % 100);
#endif
  cudaGetLastError();
  return v;
}

}  // namespace opmark::bench
