#pragma once
// What the memory-bound families (pointwise, reduce) share: moving data to and from their float64 host
// references, and their label.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "kernels/device_buffer.h"

namespace opmark::bench {

// The first `count` elements of `buffer` (of element type `type`), widened to double, on the host.
std::vector<double> download_as_double(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                       cudaStream_t stream);

// The first `count` elements of `buffer` widened to double, on the device (an empty buffer where count is 0).
kernels::DeviceBuffer widen_on_device(const kernels::DeviceBuffer& buffer, core::DType type, std::size_t count,
                                      cudaStream_t stream);

// A host array as a device buffer of the same type (doubles for compare_to_reference, int32 indices); returns once
// the copy is done, so the host vector may go.
kernels::DeviceBuffer upload(const std::vector<double>& values, cudaStream_t stream);
kernels::DeviceBuffer upload(const std::vector<std::int32_t>& values, cudaStream_t stream);

// "opmark kernel | in f16, compute fp32, out f16": which implementation ran, and the types.
std::string memory_bound_label(const std::string& impl, core::DType type);

}  // namespace opmark::bench
