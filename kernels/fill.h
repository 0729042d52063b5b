#pragma once
// Seeded random device data. Never zeros: zeros hide unwritten outputs and make Tensor Cores look faster.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"

namespace opmark::kernels {

// Floating types: uniform in [lo, hi], rounded to the type. Integer types: uniform integers in
// [ceil(lo), floor(hi)]. Element i depends only on (seed, i), so a fill is reproducible on any GPU.
void fill_uniform(void* dst, std::size_t count, core::DType type, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream);

enum class SeededReduceOp { sum, prod, max, min };

// out[i] = op over f in [0, fills) of element i of fill_uniform(type, first_seed + f, lo, hi), in float64: the
// reference of an all-reduce whose rank r filled its input with seed first_seed + r, computed where it is needed
// without any rank's input (the host loop it replaces took minutes at GiB sizes over several ranks).
void reduce_seeded_fills(double* out, std::size_t count, core::DType type, std::uint64_t first_seed, int fills,
                         double lo, double hi, SeededReduceOp op, cudaStream_t stream);

// The default operand fill for a type: [-1, 1] for floating types, [-127, 127] for int8, [-1000, 1000] for int32.
void fill_random(void* dst, std::size_t count, core::DType type, std::uint64_t seed, cudaStream_t stream);

// Marks every element as unwritten: NaN for floating types, the most negative value for integers. A result
// that still holds poison after the operation was never written.
void poison(void* dst, std::size_t count, core::DType type, cudaStream_t stream);

// dst[i] = (double)src[i], for references computed in float64.
void to_double(const void* src, core::DType type, std::size_t count, double* dst, cudaStream_t stream);

}  // namespace opmark::kernels
