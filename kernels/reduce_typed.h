#pragma once
// The reduce kernels' launcher for one storage type. Defined in kernels/reduce/launch.cuh and instantiated once per
// type in reduce_f32.cu, reduce_f16.cu and reduce_bf16.cu, so the three compile in parallel.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/reduce_path.h"
#include "kernels/reduce.h"

namespace opmark::kernels {

template <class T>
void launch_reduce_typed(ReduceOp op, const core::ReducePlan& plan, const ReduceTensors& t, std::int64_t rows,
                         std::int64_t cols, cudaStream_t stream);

}  // namespace opmark::kernels
