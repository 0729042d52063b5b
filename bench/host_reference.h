#pragma once
// Moving data between the device and a float64 host reference (the pointwise and reduce families verify against
// host references).
#include <cuda_runtime.h>

#include <vector>

#include "core/dtype.h"
#include "kernels/device_buffer.h"

namespace opmark::bench {

// The first `count` elements of `buffer` (of element type `type`), widened to double, on the host.
std::vector<double> download_as_double(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                       cudaStream_t stream);

// A host float64 array as a device buffer of doubles (for compare_to_reference).
kernels::DeviceBuffer upload(const std::vector<double>& values, cudaStream_t stream);

}  // namespace opmark::bench
