#pragma once
// opmark's permuted copy (the permute family) and its float64 host reference. The tensor is viewed as
// batch x a x b x inner (core::permute_view) and copied to batch x b x a x inner: out[n][j][i][k] = in[n][i][j][k].
// A copy, so the result is exact. Each path of core::PermutePath is a kernel here; the tuner picks among those
// core::permute_paths lists for the view.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/families.h"

namespace opmark::kernels {

// elem_bytes: 2 or 4. Throws where `path` cannot run the view (core::permute_paths lists those that can).
void launch_permute(const core::PermuteView& v, core::PermutePath path, const void* in, void* out,
                    std::size_t elem_bytes, cudaStream_t stream);
// The heuristic's path (core::permute_paths' first).
void launch_permute(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                    cudaStream_t stream);

std::vector<double> permute_reference(const core::PermuteView& v, const std::vector<double>& in);

}  // namespace opmark::kernels
