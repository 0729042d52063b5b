#pragma once
// Facts about the host for the results' context, which a submission's system.yaml is checked against: the CPU
// model and the NVIDIA driver's version (the CUDA driver API gives only the CUDA version the driver supports).
#include <string>

namespace opmark::bench {

// "model name" of /proc/cpuinfo's first processor ("" when absent).
std::string parse_cpu_model(const std::string& cpuinfo);
// The kernel module's version in /proc/driver/nvidia/version ("NVRM version: ... Kernel Module  580.159.04 ...").
std::string parse_driver_version(const std::string& proc_version);

// The same, read from this machine; "" when the file is not there.
std::string host_cpu_model();
std::string nvidia_driver_version();

}  // namespace opmark::bench
