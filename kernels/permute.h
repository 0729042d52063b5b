#pragma once
// opmark's permuted copy (the permute family) and its float64 host reference. The tensor is viewed as
// batch x a x b x inner (core::permute_view) and copied to batch x b x a x inner: out[n][j][i][k] = in[n][i][j][k].
// A copy, so the result is exact.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/families.h"

namespace opmark::kernels {

// elem_bytes: 2 or 4. inner > 1: each run of `inner` elements moves whole (16-byte units where inner allows);
// inner == 1: 32 x 32 tiles through shared memory, so both the reads and the writes are along rows.
void launch_permute(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                    cudaStream_t stream);

std::vector<double> permute_reference(const core::PermuteView& v, const std::vector<double>& in);

}  // namespace opmark::kernels
