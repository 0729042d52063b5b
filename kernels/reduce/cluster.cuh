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
// no barrier guards the exit. The one-step norms lost this way (more registers, a block fewer) and keep
// cluster_reduce.
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
// and 3 with 8: left alone, ptxas took a few registers more and lost a block. A minimum on every kernel lost where
// ptxas then took more registers than without it. 0 is no minimum; 1 is not (with it ptxas took more registers).
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
  // layer norm with 4 vectors a thread (pushing took it from 48 to 68 registers), go through cluster_reduce's slots.
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
    // The cache stays in the stored type and is widened each pass (widened once, 2-byte rows took twice the
    // registers). exact_coef's steps (two for softmax and layer norm) are each combined over the cluster: one merged
    // state a row (as Welford and online softmax merge) was slower.
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
    // arrival releases (a fence: MEMBAR and ERRBAR in the SASS), which cost every cluster of more blocks than one.
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
// at most grid_for's blocks, a whole number of clusters; fewer clusters, each walking rows, were slower.
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
