#pragma once
// The rereads path: a block per row reads it for its statistics, then again (from L2) to write it normalised.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// rereads (the norms): a block of kBlock threads per row (grid-strided) reads it for its statistics (online, as it
// streams in), then reads it again and writes it normalised. The grid holds few rows at once (ReducePlan::blocks), so
// the second read finds them in L2; no shared memory, so the loads of one block overlap another's arithmetic.
// docs/reduce.md has the measurements against the shared-memory path.
template <ReduceOp Op, class T, int kBlock>
__global__ void __launch_bounds__(kBlock, 1024 / kBlock) reread_row_kernel(Rows<T> a) {
  using M = Norm<Op>;
  for (std::int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const std::int64_t at = r * a.cols;
    typename M::State s;
    read_pieces<T, M::kAdd>(a.x + at, a.residual + at, a.cols, threadIdx.x, kBlock, [&](std::int64_t, const auto& p) {
      float v[std::decay_t<decltype(p)>::kCount];
      widen(p, v);
      s.add_chunk(v);
    });
    const float2 c = M::coef(group_reduce<kBlock>(s), static_cast<float>(a.cols));
    read_pieces<T, M::kAdd>(a.x + at, a.residual + at, a.cols, threadIdx.x, kBlock, [&](std::int64_t e, const auto& p) {
      write_piece<Op>(p, c, a.gamma + e, a.beta + e, a.out, a.sum, at + e);
    });
  }
}

}  // namespace opmark::kernels::reduce_detail
