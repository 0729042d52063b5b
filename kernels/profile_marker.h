#pragma once
// A kernel that does nothing but be seen: in --opmark_profile_launches mode it precedes each case's profiled
// launches, so a profiler's list of kernels can be split by case (bench/compare/ncu_fidelity.py).
#include <cuda_runtime.h>

namespace opmark::kernels {

void launch_profile_marker(cudaStream_t stream);

}  // namespace opmark::kernels
