#pragma once
// The cluster path: a row over a cluster of blocks (sm_90), in registers.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// ---- cluster: a row over a cluster of blocks, in registers ----

// A state combined over a cluster of `blocks` blocks (kThreads threads each), returned to every thread: each block's
// own (block_reduce), then all of theirs through distributed shared memory, lane r of every warp taking block r's.
// Every block combines the same states in the same order, and the states combined here (sums and maxima: the
// exact_coef steps) are symmetric, so every lane of the butterfly ends with the same bits: the blocks of a row agree.
// `slot`: the block's shared slot for this step of a row, a fresh one each step, so that no block overwrites a slot
// another may still be reading (the caller keeps blocks from starting the next row before all have read).
template <class S>
__device__ __forceinline__ S cluster_reduce(S s, S* slot, unsigned blocks) {
  s = block_reduce_of<kThreads>(s);
  if (blocks == 1) return s;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  if (threadIdx.x == 0) *slot = s;
  cluster.sync();  // every block's slot written
  const unsigned lane = threadIdx.x % 32;
  return warp_reduce(lane < blocks ? *cluster.map_shared_rank(slot, lane) : S{});
}

// The same by pushing, for the ops that combine twice a row (softmax, log_softmax and the layer norms): warp 0's
// lane r of each block stores the block's state into block r's inbox with st.async, which completes its bytes on
// block r's mbarrier (the block's own state: a plain store before its arrival); every thread then waits on its own
// block's mbarrier and combines the inbox in rank order, the same order in every block, so they agree to the bit.
// No cluster barrier a step: cluster.sync() is a release fence (MEMBAR, ERRBAR), the barrier and an L1 invalidation
// each time. Steps alternate between two inboxes and mbarriers (`pushes`, the block's steps so far): a block can be
// at most one step ahead of another, since a step needs every block's state of the step before, which each sends only
// after reading its inbox of the step before that. A block leaves only after every state sent to it has arrived, so
// no barrier guards the exit. In one call on an H100 against cluster_reduce (2026-11-25, 64 MiB): fp16 layer norm
// over 50257 columns 88.8 -> 78.4 us, 262144 83.9 -> 71.4; softmax over 131072 fp16 columns 68.8 -> 56.2, fp32 65.9
// -> 51.9; log_softmax over 262144 fp16 68.8 -> 55.0; fp32 layer norm over 50257 71.1 -> 63.5, add + layer norm 131.3
// -> 110.4 (not confirmed: in a later call fp32 add + layer norm lost, and keeps cluster_reduce). For the one-step
// norms it lost (fp16 add + RMSNorm over 50257 109.1 -> 119.0: 8 more registers, a block fewer; fp32 add + RMSNorm
// over 32000 97.5 -> 102.3), and they keep cluster_reduce.
struct ClusterInbox {
  float states[2][core::kMostClusterBlocks];  // one 32-bit state a block, for each of the two alternating steps
  std::uint64_t arrivals[2];                  // their mbarriers: one arrival (the block's own) and the others' bytes
};

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// The block's arrival at the cluster barrier without a release (no fence): for what the caller has ordered itself.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// Initialises the block's mbarriers and arrives (relaxed) at the cluster barrier that cluster_inbox_join waits for:
// no block pushes before every block's mbarriers are initialised. Called before the row's loads, so that the wait
// costs little.
__device__ __forceinline__ void cluster_inbox_open(ClusterInbox& inbox) {
  if (threadIdx.x == 0) {
    for (std::uint64_t& arrival : inbox.arrivals)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(&arrival)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_arrive_relaxed();
}
__device__ __forceinline__ void cluster_inbox_join() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

template <class S>
__device__ __forceinline__ S cluster_push_reduce(S s, ClusterInbox& inbox, int& pushes, unsigned blocks,
                                                 unsigned rank) {
  static_assert(sizeof(S) == sizeof(float), "one 32-bit word a state");
  // The next step's writes of the warps' states come after this step's wait, which follows warp 0's reads of them.
  const S block_state = block_state_in_warp0<kThreads>(s);
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int step = pushes & 1;
  const std::uint32_t parity = (pushes >> 1) & 1;
  ++pushes;
  S* states = reinterpret_cast<S*>(inbox.states[step]);
  const std::uint32_t arrival = shared_address(&inbox.arrivals[step]);
  if (warp == 0) {
    if (lane == rank) {
      states[rank] = block_state;
      asm volatile("{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1; }" ::"r"(arrival),
                   "r"(static_cast<std::uint32_t>((blocks - 1) * sizeof(S)))
                   : "memory");
    } else if (lane < blocks) {
      std::uint32_t word, their_state, their_arrival;
      memcpy(&word, &block_state, sizeof word);
      asm("mapa.shared::cluster.u32 %0, %1, %2;"
          : "=r"(their_state)
          : "r"(shared_address(&states[rank])), "r"(lane));
      asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(their_arrival) : "r"(arrival), "r"(lane));
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(their_state),
                   "r"(word), "r"(their_arrival)
                   : "memory");
    }
  }
  std::uint32_t arrived = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(arrived)
        : "r"(arrival), "r"(parity)
        : "memory");
  } while (!arrived);
  return warp_reduce(lane < blocks ? states[lane] : S{});
}

// cluster: a row over a cluster of blocks (sm_90 thread block clusters, 1 to 16 blocks: the launch's cluster
// dimension), each thread keeping kCache 16-byte vectors of it in registers from the row's first 16-byte boundary
// on, and the cluster's first threads one element each of the unaligned head and tail. The blocks combine their
// statistics through each other's shared memory (cluster_reduce, cluster_push_reduce), so a row too long for one
// block's registers is still read once, with every load of it issued before the first use; and rows that are not
// whole 16-byte vectors are read in 16-byte pieces, not element by element. The grid is a cluster a row, or fewer
// clusters looping over rows.
//
// Layer norm and add + layer norm over 2-byte elements are held to 4 blocks a multiprocessor with 4 vectors a thread
// and 3 with 8 (at most 64 and 80 registers; ptxas chose 76 for fp16 add + layer norm with 4, 90 and 94 for layer
// norm and add + layer norm with 8: a block fewer). In one call on an H100 against no minimum (2026-11-25): fp16
// layer norm over 131072 columns 89.3 -> 73.7 us, add + layer norm over 50257 155.6 -> 138.2 and 131072 155.5 ->
// 137.1 (bf16, which ptxas had fitted, level). A minimum for every kernel lost where it let ptxas take more registers
// than it had (fp32 add + layer norm over 50257 133.1 -> 141.2, 48 -> 63 registers: 5 blocks -> 4; fp16 RMSNorm over
// 4095 49.4 -> 51.7). 0 is no minimum, as if none were given (ptxas' registers as without it); 1 is not: with it
// ptxas took more (fp16 RMSNorm with 4 a thread 48 -> 71).
template <ReduceOp Op, class T, int kCache>
constexpr int cluster_min_blocks() {
  if (sizeof(T) == 2 && Norm<Op>::kBeta) return kCache == 4 ? 4 : kCache == 8 ? 3 : 0;
  return 0;
}
template <ReduceOp Op, class T, int kCache>
__global__ void __launch_bounds__(kThreads, (cluster_min_blocks<Op, T, kCache>())) cluster_row_kernel(Rows<T> a) {
  using M = Norm<Op>;
  constexpr int kC = Vec<T>::kCount;
  using V = Piece<T, kC>;
  using E = Piece<T, 1>;
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const unsigned blocks = cluster.num_blocks();
  const std::int64_t t = std::int64_t{cluster.block_rank()} * kThreads + threadIdx.x;  // this thread in the row
  const std::int64_t step = std::int64_t{blocks} * kThreads;
  // The ops that combine twice a row push their states (cluster_push_reduce); RMSNorm's one step, and fp32 add +
  // layer norm with 4 vectors a thread, go through cluster_reduce's slots. fp32 add + layer norm pushing lost with 4,
  // 128 MiB (the sweep's) in one call on an H100 (2026-11-25): 12288 columns 195.9 -> 203.2 us, 32000 202.4 ->
  // 215.8, 50257 243.6 -> 258.1 (48 -> 68 registers); held to 5 blocks a multiprocessor it spilled and still lost at
  // 12288 and 32000 (201.2, 207.9). With 8 (131072 columns, 16 blocks) the sweep's cell read 70% of copy pushing
  // (0422614) and 66% on the barrier (990f41d), in two calls.
  constexpr bool kPushes = !std::is_same_v<typename M::State, SumSquares> &&
                           !(sizeof(T) == 4 && Op == ReduceOp::add_layernorm && kCache < 8);
  struct ClusterSlots {
    alignas(16) float slots[2][4];  // the block's state at each step of a row, for the other blocks
  };
  // Only what the kernel's way of combining uses.
  __shared__ std::conditional_t<kPushes, ClusterInbox, ClusterSlots> combining;
  int pushes = 0;
  bool joined = !kPushes || blocks == 1;
  if constexpr (kPushes)
    if (!joined) cluster_inbox_open(combining);
  for (std::int64_t row = blockIdx.x / blocks; row < a.rows; row += gridDim.x / blocks) {
    const std::int64_t at = row * a.cols;
    const T* x = a.x + at;
    const T* res = a.residual + at;
    const auto [head, vectors, tail_at] = pieces_of(x, a.cols);
    const bool has_head = t < head, has_tail = tail_at + t < a.cols;
    const int held =  // vectors t, t + step, ... below the row's
        t < vectors ? static_cast<int>(std::min<std::int64_t>(kCache, (vectors - t + step - 1) / step)) : 0;
    V cache[kCache];
    E first, last;
    if (has_head) first = load_piece<T, 1, M::kAdd>(x, res, t);
#pragma unroll
    for (int u = 0; u < kCache; ++u)
      if (u < held) cache[u] = load_piece<T, kC, M::kAdd>(x, res, head + (t + u * step) * kC);
    if (has_tail) last = load_piece<T, 1, M::kAdd>(x, res, tail_at + t);
    const auto each = [&](auto&& f) {
#pragma unroll
      for (int u = 0; u < kCache; ++u)
        if (u < held) {
          float v[kC];
          widen(cache[u], v);
          f(v);
        }
      if (has_head) {
        const float v[1] = {to_float(first.v[0])};
        f(v);
      }
      if (has_tail) {
        const float v[1] = {to_float(last.v[0])};
        f(v);
      }
    };
    // The cache stays in the stored type and is widened each pass: widened to float once as it loads (twice the
    // registers for 2-byte types), fp16 layer norm over 32000 columns (4 blocks, 4 vectors a thread) ran 73.5 ->
    // 108.2 us, RMSNorm over 50257 61.7 -> 78.8, softmax over 32000 68.5 -> 95.3 (H100, both builds alternating
    // twice in one call, 2026-11-25).
    // exact_coef's steps (two for softmax and layer norm), each combined over the cluster. One combined state a row
    // instead (each thread's exact mean and squared deviations, or max and sum of exponentials, merged as Welford
    // and online softmax merge) was slower, both against the production plans in two calls on an H100 (2026-11-25):
    // fp32 layer norm over 32000 columns (4 blocks, 8 vectors a thread) 63.6 -> 91.6 us, fp16 over 4095 70.2 -> 80.1.
    if (!joined) {
      cluster_inbox_join();
      joined = true;
    }
    int reduction = 0;
    const auto reduce = [&](auto s) {
      if constexpr (kPushes) {
        if (blocks == 1) return block_reduce_of<kThreads>(s);
        return cluster_push_reduce(s, combining, pushes, blocks, cluster.block_rank());
      } else {
        return cluster_reduce(s, reinterpret_cast<decltype(s)*>(combining.slots[reduction++]), blocks);
      }
    };
    const float2 c = exact_coef_by<Op>(reduce, each, each, static_cast<float>(a.cols));
    // cluster_reduce's ops: past its last read of the other blocks' slots, a block may go on writing; none leaves (or
    // writes a slot for the next row) before every block has read its slots. The arrival is relaxed: what it must order
    // are those reads, and their values were used (warp_reduce) before it, so they are done; cooperative_groups'
    // arrival releases (a fence: MEMBAR and ERRBAR in the SASS, 7% of layer norm's warp stall samples under ncu).
    // Relaxed, on an H100 against the release, alternating in one call (2026-11-25): fp16 layer norm over 50257 columns
    // 94.7 -> 88.9 us, RMSNorm over 50257 61.5 -> 57.5, fp32 RMSNorm over 131072 66.6 -> 62.7, fp32 layer norm over
    // 50257 74.6 -> 70.7, fp16 add + RMSNorm over 50257 112.6 -> 108.6; every cluster of more than one block 2-7%
    // faster.
    if (!kPushes && blocks > 1) cluster_arrive_relaxed();
#pragma unroll
    for (int u = 0; u < kCache; ++u)
      if (u < held) {
        const std::int64_t e = head + (t + u * step) * kC;
        write_piece<Op>(cache[u], c, a.gamma + e, a.beta + e, a.out, a.sum, at + e);
      }
    if (has_head) write_piece<Op>(first, c, a.gamma + t, a.beta + t, a.out, a.sum, at + t);
    if (has_tail)
      write_piece<Op>(last, c, a.gamma + tail_at + t, a.beta + tail_at + t, a.out, a.sum, at + tail_at + t);
    if (!kPushes && blocks > 1) cluster.barrier_wait();
  }
}

// A cluster of plan.cluster blocks a row (more than 8 is a non-portable cluster size, which the kernel must allow),
// at most grid_for's blocks, a whole number of clusters. Fewer clusters, each walking rows (a grid the GPU holds at
// once, so that each block keeps its columns of gamma and beta in L1), were slower, against a cluster a row in one
// process on an H100 (2026-11-25): fp32 layer norm over 50257 columns (7 blocks) 74.5 us, 86.1 with 37 clusters and
// 102.9 with 56; over 32000 (4 blocks) 63.4, 72.4 with 66 clusters; RMSNorm over 50257 57.7, 60.9 with 56; fp16 softmax
// over 131072 (8 blocks) 69.8, 78.2 with 33; fp32 add + layer norm over 50257 (13 blocks) 139.0, 135.4 with 40.
template <ReduceOp Op, class T>
void launch_cluster(const ReducePlan& plan, const Rows<T>& a, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(plan.cluster);
  // 16 vectors a thread (one block a multiprocessor) lost everywhere (core/reduce_path.cpp): not compiled.
  const int cache = plan.cache <= 2 ? 2 : plan.cache <= 4 ? 4 : 8;
  if (plan.cache > 8) throw Error("reduce: the cluster path holds at most 8 vectors a thread, not " +
                                  std::to_string(plan.cache));
  if (plan.cluster < 1 || plan.cluster > core::kMostClusterBlocks ||
      std::int64_t{blocks} * kThreads * cache * Vec<T>::kCount < a.cols)
    throw Error("reduce: a cluster of " + std::to_string(plan.cluster) + " blocks with " + std::to_string(cache) +
                " vectors a thread does not hold a row of " + std::to_string(a.cols) + " columns");
  const auto go = [&](auto kernel) {
    if (blocks > 8)
      raise_attribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchConfig_t config{};
    const std::int64_t clusters =
        std::min<std::int64_t>(a.rows, std::max<std::int64_t>(1, grid_for(a.rows * blocks, 1) / blocks));
    config.gridDim = dim3(static_cast<unsigned>(clusters * blocks));
    config.blockDim = dim3(kThreads);
    config.stream = stream;
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = blocks;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    OPMARK_CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, a));
  };
  if (cache == 2) go(cluster_row_kernel<Op, T, 2>);
  else if (cache == 4) go(cluster_row_kernel<Op, T, 4>);
  else go(cluster_row_kernel<Op, T, 8>);
}

}  // namespace opmark::kernels::reduce_detail
