#pragma once
// The reduce family's kernels, one template per path of core::reduce_plan (core/reduce_path.h):
//   registers      a group of 1, 8, 32 or 256 threads holds a row in registers: read once, reduced, written
//   cluster        a cluster of 1 to 16 blocks holds a long (or unaligned) row in registers, statistics combined
//                  through the blocks' shared memory: read once
//   shared_memory  a block copies its row into shared memory, takes its statistics there, then writes from there
//   rereads        a block per row: statistics as it reads, then a second read (from L2) writes the row normalised
//   two_pass       blocks each take a slice of a row: partial statistics, then (second read) the normalised slice
//   streaming      sum, mean, max: a group of threads per row reduces as it reads
//   split_rows     sum, mean, max on few long rows: partial states per slice, then one thread per row combines
//   all_partials   sum_all: a grid of partial sums (the plan's blocks), then one block sums them; or one block
//                  that sums everything itself
//   tile           very short rows: a run of whole rows (one contiguous span) staged in shared memory, reduced there
//   packed         rows of 1, 2, 4 (or 8) elements: 16-byte vectors of whole rows, each thread's reduced in registers
// Why each path is built as it is, with the measurements: docs/reduce.md. This file: the plan's path to its
// kernels. Included by reduce_f32.cu, reduce_f16.cu and reduce_bf16.cu only.
#include "kernels/reduce/cluster.cuh"
#include "kernels/reduce/packed.cuh"
#include "kernels/reduce/registers.cuh"
#include "kernels/reduce/rereads.cuh"
#include "kernels/reduce/staged_tiles.cuh"
#include "kernels/reduce/sums.cuh"
#include "kernels/reduce/two_pass.cuh"

namespace opmark::kernels {
namespace reduce_detail {

template <ReduceOp Op, class T>
void launch_normalise(const ReducePlan& plan, const Rows<T>& a, void* workspace, cudaStream_t stream) {
  using State = typename Norm<Op>::State;
  switch (plan.path) {
    case ReducePath::registers:
      if (plan.vectorised) launch_registers<Op, T, Vec<T>::kCount>(plan, a, stream);
      else launch_registers<Op, T, 1>(plan, a, stream);
      return;
    case ReducePath::shared_memory: {
      // The row plus a vector's room for the alignment shift.
      const std::size_t bytes = static_cast<std::size_t>(a.cols + Vec<T>::kCount) * sizeof(T);
      allow_shared_bytes(reinterpret_cast<const void*>(shared_row_kernel<Op, T>), bytes);
      shared_row_kernel<Op, T><<<grid_for(a.rows, 1), kThreads, bytes, stream>>>(a);
      return;
    }
    case ReducePath::rereads:
      reread_row_kernel<Op, T, core::kRereadThreads>
          <<<static_cast<unsigned>(plan.blocks), core::kRereadThreads, 0, stream>>>(a);
      return;
    case ReducePath::tile: return launch_tile_normalise<Op, T>(plan, a, stream);
    case ReducePath::cluster: return launch_cluster<Op, T>(plan, a, stream);
    case ReducePath::packed:
      return with_packed_cols<T>(a.cols, [&](auto cols) {
        packed_normalise_kernel<Op, T, decltype(cols)::value><<<packed_blocks(a), kThreads, 0, stream>>>(a);
      });
    case ReducePath::two_pass: {
      auto* partials = static_cast<State*>(workspace);
      const unsigned blocks = grid_for(a.rows * plan.splits, 1);
      slice_state_kernel<State, T, Norm<Op>::kAdd><<<blocks, kThreads, 0, stream>>>(a, plan.splits, partials);
      OPMARK_CHECK_LAUNCH();
      slice_normalise_kernel<Op, T><<<blocks, kThreads, 0, stream>>>(a, plan.splits, partials);
      return;
    }
    default: throw Error("reduce: a normalising op has no plan '" + plan.label + "'");
  }
}

template <class S, class T>
void launch_row_reduce(const ReducePlan& plan, const Rows<T>& a, bool mean, void* workspace, cudaStream_t stream) {
  const float scale = value_scale(mean, a.cols);
  if (plan.path == ReducePath::split_rows) {
    auto* partials = static_cast<S*>(workspace);
    slice_state_kernel<S, T, false><<<grid_for(a.rows * plan.splits, 1), kThreads, 0, stream>>>(a, plan.splits,
                                                                                                 partials);
    OPMARK_CHECK_LAUNCH();
    combine_slices_kernel<S, T><<<grid_for(a.rows, kThreads), kThreads, 0, stream>>>(a, plan.splits, partials, scale);
    return;
  }
  if (plan.path == ReducePath::tile) return launch_tile_reduce<S, T>(plan, a, scale, stream);
  if (plan.path == ReducePath::packed)
    return with_packed_cols<T>(a.cols, [&](auto cols) {
      packed_reduce_kernel<S, T, decltype(cols)::value><<<packed_blocks(a), kThreads, 0, stream>>>(a, scale);
    });
  if (plan.vectorised) launch_streaming<S, T, true, false>(plan, a, scale, stream);
  else if (core::streaming_reads_pieces(plan, a.cols)) launch_streaming<S, T, false, true>(plan, a, scale, stream);
  else launch_streaming<S, T, false, false>(plan, a, scale, stream);
}

}  // namespace reduce_detail

template <class T>
void launch_reduce_typed(ReduceOp op, const core::ReducePlan& plan, const ReduceTensors& t, std::int64_t rows,
                         std::int64_t cols, cudaStream_t stream) {
  using namespace reduce_detail;
  const std::int64_t n = rows * cols;
  T* out = static_cast<T*>(t.out);
  const bool adds = op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm;
  const Rows<T> a{static_cast<const T*>(t.x),     static_cast<const T*>(t.residual),
                  static_cast<const T*>(t.gamma), static_cast<const T*>(t.beta),
                  out,                            adds ? out + reduce_sum_offset(rows, cols) : nullptr,
                  rows,                           cols};
  switch (op) {
    case ReduceOp::sum: launch_row_reduce<Sum>(plan, a, false, t.workspace, stream); break;
    case ReduceOp::mean: launch_row_reduce<Sum>(plan, a, true, t.workspace, stream); break;
    case ReduceOp::max: launch_row_reduce<Max>(plan, a, false, t.workspace, stream); break;
    case ReduceOp::sum_all: {
      auto* partials = static_cast<float*>(t.workspace);
      const auto blocks = static_cast<unsigned>(plan.blocks);
      if (blocks == 1) {
        if (plan.vectorised) sum_all_partials_kernel<T, true, true><<<1, kThreads, 0, stream>>>(a.x, partials, out, n);
        else sum_all_partials_kernel<T, false, true><<<1, kThreads, 0, stream>>>(a.x, partials, out, n);
        break;
      }
      if (plan.vectorised)
        sum_all_partials_kernel<T, true, false><<<blocks, kThreads, 0, stream>>>(a.x, partials, out, n);
      else sum_all_partials_kernel<T, false, false><<<blocks, kThreads, 0, stream>>>(a.x, partials, out, n);
      OPMARK_CHECK_LAUNCH();
      sum_all_final_kernel<T><<<1, kThreads, 0, stream>>>(partials, blocks, out);
      break;
    }
    case ReduceOp::softmax: launch_normalise<ReduceOp::softmax>(plan, a, t.workspace, stream); break;
    case ReduceOp::log_softmax: launch_normalise<ReduceOp::log_softmax>(plan, a, t.workspace, stream); break;
    case ReduceOp::layernorm: launch_normalise<ReduceOp::layernorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::rmsnorm: launch_normalise<ReduceOp::rmsnorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::add_layernorm: launch_normalise<ReduceOp::add_layernorm>(plan, a, t.workspace, stream); break;
    case ReduceOp::add_rmsnorm: launch_normalise<ReduceOp::add_rmsnorm>(plan, a, t.workspace, stream); break;
  }
  OPMARK_CHECK_LAUNCH();
}

}  // namespace opmark::kernels
