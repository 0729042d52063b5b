// The reduce kernels for float storage (kernels/reduce/launch.cuh and the path headers beside it).
#include "kernels/reduce/launch.cuh"

namespace opmark::kernels {

template void launch_reduce_typed<float>(ReduceOp op, const core::ReducePlan& plan, const ReduceTensors& t,
                                      std::int64_t rows, std::int64_t cols, cudaStream_t stream);

}  // namespace opmark::kernels
