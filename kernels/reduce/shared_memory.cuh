#pragma once
// The shared_memory path (a block copies its row into shared memory), and the span copies the tiles share.
#include "kernels/reduce/norm.cuh"

namespace opmark::kernels::reduce_detail {

// ---- rows in shared memory (shared_memory, tile) ----

// The row sits in shared memory shifted so that a 16-byte vector of the row lands on a 16-byte boundary there too.
template <class T>
__device__ __forceinline__ std::int64_t shared_shift(const T* row, std::int64_t cols) {
  const std::int64_t head = head_elements(row, cols);
  return head == 0 ? 0 : Vec<T>::kCount - head;
}

// The single elements before a span's first 16-byte boundary and after its last (fewer than a vector each), which
// cp.async cannot copy: loaded into registers as the copies are issued, stored to shared memory once they are waited
// for (the loads' latency hidden behind the tile in hand).
template <class T>
struct SpanEdges {
  T head, tail;
  int head_at = -1, tail_at = -1;  // where they go in the span, or -1 (no element for this thread)

  __device__ void store(T* to) const {
    if (head_at >= 0) to[head_at] = head;
    if (tail_at >= 0) to[tail_at] = tail;
  }
};

// Issues the copy of [0, count) of src to `to` (16-byte vectors where src's are on 16-byte boundaries; `to` is
// shifted so theirs are too, shared_shift) and returns this thread's edges.
template <class T>
__device__ __forceinline__ SpanEdges<T> issue_span(const T* __restrict__ src, T* to, std::int64_t count) {
  constexpr int kC = Vec<T>::kCount;
  const auto [head, vectors, tail_at] = pieces_of(src, count);
  for (std::int64_t i = threadIdx.x; i < vectors; i += kThreads)
    __pipeline_memcpy_async(to + head + i * kC, src + head + i * kC, 16);
  SpanEdges<T> edges;
  if (threadIdx.x < head) {
    edges.head_at = static_cast<int>(threadIdx.x);
    edges.head = src[threadIdx.x];
  }
  const std::int64_t tail = tail_at + threadIdx.x;
  if (tail < count) {
    edges.tail_at = static_cast<int>(tail);
    edges.tail = src[tail];
  }
  return edges;
}

// Copies the span [start, start + count) of x (with kAdd: x + residual rounded to T, which is also the second
// output and is written here) into shared memory at saved + shift, and returns the shift. Nothing is computed
// while loading; the block waits for the whole span. kAsync (a whole row of the shared_memory path, without kAdd):
// the 16-byte vectors are asynchronous copies (cp.async), all of a thread's in flight at once and none through
// registers; tiles were slower that way, and stage kInFlight vectors at a time through registers.
template <class T, bool kAdd, bool kAsync = false>
__device__ __forceinline__ std::int64_t load_span(const Rows<T>& a, T* saved, std::int64_t start, std::int64_t count) {
  const std::int64_t shift = shared_shift(a.x + start, count);
  if constexpr (kAsync && !kAdd) {
    const SpanEdges<T> edges = issue_span(a.x + start, saved + shift, count);
    __pipeline_commit();
    edges.store(saved + shift);
    __pipeline_wait_prior(0);
  } else {
    read_pieces<T, kAdd>(a.x + start, a.residual + start, count, threadIdx.x, kThreads,
                         [&](std::int64_t e, const auto& p) {
                           using P = std::decay_t<decltype(p)>;
                           store_whole(saved + shift + e, p);
                           if constexpr (kAdd) store_global(a.sum + start + e, p);
                         });
  }
  __syncthreads();
  return shift;
}

// The coefficients of a row of `cols` elements in shared memory (exact_coef), computed by the kGroup threads sharing
// it (lane: this thread's place among them): a block walks the row in 16-byte pieces (element by element, an fp16
// row took eight times the shared-memory loads), a group within a warp element by element (a tile's short rows).
// Every thread of the warp (kGroup <= 32) or block must call it; cols 0 for a thread without a row.
template <ReduceOp Op, int kGroup, class T>
__device__ __forceinline__ float2 shared_row_coef(const T* row, std::int64_t cols, int lane) {
  return exact_coef<Op, kGroup>(
      [&](auto&& f) {
        if constexpr (kGroup > 32) {
          each_piece(row, cols, lane, kGroup, [&](std::int64_t e, auto n) {
            using P = Piece<T, decltype(n)::value>;
            float v[P::kCount];
            widen(load_whole<P>(row + e), v);
            f(v);
          });
        } else {
          for (std::int64_t c = lane; c < cols; c += kGroup) {
            const float v[1] = {to_float(row[c])};
            f(v);
          }
        }
      },
      static_cast<float>(cols));
}

// shared_memory: a block per row; the row (x, or x + residual) is copied into shared memory, its statistics come
// from there, and it is written normalised from there. Registers bounded for 4 blocks a multiprocessor (64 a thread).
template <ReduceOp Op, class T>
__global__ void __launch_bounds__(kThreads, 4) shared_row_kernel(Rows<T> a) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* saved = reinterpret_cast<T*>(shared_bytes);
  for (std::int64_t r = blockIdx.x; r < a.rows; r += gridDim.x) {
    const std::int64_t start = r * a.cols;
    const T* row = saved + load_span<T, Norm<Op>::kAdd, true>(a, saved, start, a.cols);
    const float2 c = shared_row_coef<Op, kThreads>(row, a.cols, threadIdx.x);
    each_piece(a.out + start, a.cols, threadIdx.x, kThreads, [&](std::int64_t e, auto n) {
      using P = Piece<T, decltype(n)::value>;
      write_piece<Op, T, P::kCount, false>(load_whole<P>(row + e), c, a.gamma + e, a.beta + e, a.out,
                                           nullptr, start + e);
    });
    __syncthreads();  // the next row overwrites `saved`
  }
}

}  // namespace opmark::kernels::reduce_detail
