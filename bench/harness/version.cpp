#include "bench/harness/version.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#ifdef OPMARK_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef OPMARK_HAVE_NCCL
#include <nccl.h>
#endif

#include <map>

#include "bench/harness/gpu_state/device_info.h"
#include "bench/harness/gpu_state/host_info.h"
#include "core/version.h"

#ifndef OPMARK_BENCHMARK_VERSION
#define OPMARK_BENCHMARK_VERSION "unknown"
#endif

namespace opmark::bench {

namespace {

std::string dotted(long long major, long long minor, long long patch = -1) {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (patch >= 0) s += "." + std::to_string(patch);
  return s;
}

// "NAME LOADED (built with BUILT)", or "NAME: LOADED_MISSING" when the library would not say.
std::string line(const std::string& name, const std::map<std::string, std::string>& loaded, const std::string& key,
                 const std::string& built, const std::string& missing = "the library did not report its version") {
  const auto it = loaded.find(key);
  if (it == loaded.end()) return name + ": " + missing + " (built with " + built + ")\n";
  return name + " " + it->second + " (built with " + built + ")\n";
}

}  // namespace

std::string version_text() {
  std::string text = core::version_line("opmark-bench") + "\n";
  const std::map<std::string, std::string> loaded = library_versions();
  text += line("CUDA runtime", loaded, "cuda_runtime", dotted(CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10));
  // cudaDriverGetVersion needs no GPU; it reports 0 (no version) when no NVIDIA driver is installed.
  int driver = 0;
  const cudaError_t err = cudaDriverGetVersion(&driver);
  cudaGetLastError();
  const std::string kernel_module = nvidia_driver_version();
  if (err != cudaSuccess) {
    text += std::string("CUDA driver: cudaDriverGetVersion failed: ") + cudaGetErrorName(err) + ": " +
            cudaGetErrorString(err) + "\n";
  } else if (driver == 0) {
    text += "CUDA driver: none found (no NVIDIA driver is installed on this machine; libcuda did not load)\n";
  } else {
    text += "CUDA driver " + dotted(driver / 1000, driver % 1000 / 10) + " (the CUDA version the driver supports)";
    text += kernel_module.empty() ? "\n" : "; NVIDIA kernel module " + kernel_module + "\n";
  }
  text += line("cuBLASLt", loaded, "cublaslt", dotted(CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH));
  text += line("cuSPARSE", loaded, "cusparse", dotted(CUSPARSE_VER_MAJOR, CUSPARSE_VER_MINOR, CUSPARSE_VER_PATCH));
#ifdef OPMARK_HAVE_CUDNN
  text += line("cuDNN", loaded, "cudnn", dotted(CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL));
#else
  text += "cuDNN: not in this build (no convolution, attention, normalisation or RNN families)\n";
#endif
#ifdef OPMARK_HAVE_NCCL
  text += line("NCCL", loaded, "nccl", dotted(NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH));
#else
  text += "NCCL: not in this build (no all-reduce family)\n";
#endif
  // Google Benchmark's headers and library carry no version: its CMake package's.
  text += std::string("Google Benchmark ") + OPMARK_BENCHMARK_VERSION + " (built with; the library reports none)\n";
  for (const auto& [library, version] : core::host_library_versions()) text += library + " " + version + "\n";
  return text;
}

}  // namespace opmark::bench
