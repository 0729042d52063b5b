#include "kernels/permute.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>

#include "core/device_defaults.h"
#include "core/error.h"
#include "kernels/cuda_check.h"
#include "kernels/int_divider.h"
#include "kernels/pointwise.h"
#include "kernels/span_copy.cuh"
#include "kernels/vec.cuh"

namespace opmark::kernels {
namespace {

constexpr unsigned kCopyThreads = 256;
constexpr int kTile = 32;  // the side of the narrowest tiles

template <int kBytes>
struct alignas(kBytes) Bytes {
  unsigned char v[kBytes];
};

// A 16-byte vector of E (2- or 4-byte elements as unsigned integers: a copy needs no arithmetic on them).
template <class E>
struct alignas(16) Vector16 {
  static constexpr int kCount = 16 / sizeof(E);
  E v[kCount];
};

// A 64-bit index's divisor: the hardware's division (IntDivider is for indices under 2^31).
struct WideDivider {
  std::int64_t d;
  __host__ __device__ std::int64_t divisor() const { return d; }
  __device__ std::int64_t divmod(std::int64_t n, std::int64_t* rem) const {
    const std::int64_t q = n / d;
    *rem = n - q * d;
    return q;
  }
};

// The input run of output run r: r = (n b + j) a + i comes from (n a + i) b + j.
template <class I, class D>
__device__ __forceinline__ I source_run(I r, const D& a, const D& b) {
  I i, j;
  const I t = a.divmod(r, &i);
  const I n = b.divmod(t, &j);
  return (n * a.divisor() + i) * b.divisor() + j;
}

// The input index of output index o (in units of `inner`'s): element k of output run r comes from element k of
// source_run(r).
template <class I, class D>
__device__ __forceinline__ I source_of(I o, const D& a, const D& b, const D& inner) {
  I k;
  const I r = inner.divmod(o, &k);
  return source_run(r, a, b) * inner.divisor() + k;
}

// rows: a thread per output unit (kUnits of them, loads first), the source found by dividing the output index.
// I: 32-bit where the tensor's units allow, each division then a multiply-high and a shift (D = IntDivider).
template <class U, class I, class D, int kUnits>
__global__ void move_rows_kernel(const U* __restrict__ in, U* __restrict__ out, D a, D b, D inner_units, I total) {
  const I step = static_cast<I>(gridDim.x) * kCopyThreads * kUnits;
  for (I base = static_cast<I>(blockIdx.x) * kCopyThreads * kUnits + threadIdx.x; base < total; base += step) {
    U v[kUnits];
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I o = base + u * kCopyThreads;
      if (o >= total) break;
      v[u] = in[source_of(o, a, b, inner_units)];
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I o = base + u * kCopyThreads;
      if (o >= total) break;
      out[o] = v[u];
    }
  }
}

// pair_rows (inner == 1, 2-byte elements): a thread per output word, two elements, whose sources are found by one
// division of the first's index; the second is the next i (or the next j, or the next batch). The element path spends
// three divisions an element and issues an instruction slot short of the copy bandwidth in 2-byte types.
template <class I, class D, int kUnits>
__global__ void move_pairs_kernel(const unsigned short* __restrict__ in, unsigned* __restrict__ out, D a, D b,
                                  I words, bool odd) {
  if (odd && blockIdx.x == 0 && threadIdx.x == 0)  // an odd count's last output element is the last input element
    reinterpret_cast<unsigned short*>(out)[2 * words] = in[2 * words];
  const I step = static_cast<I>(gridDim.x) * kCopyThreads * kUnits;
  const I na = a.divisor(), nb = b.divisor();
  for (I base = static_cast<I>(blockIdx.x) * kCopyThreads * kUnits + threadIdx.x; base < words; base += step) {
    unsigned short lo[kUnits], hi[kUnits];
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I w = base + u * kCopyThreads;
      if (w >= words) break;
      // o = (n b + j) a + i  ->  source (n a + i) b + j
      I i, j;
      const I t = a.divmod(2 * w, &i);
      const I n = b.divmod(t, &j);
      const I s0 = (n * na + i) * nb + j;
      const I s1 = i + 1 < na ? s0 + nb : j + 1 < nb ? n * na * nb + j + 1 : (n + 1) * na * nb;
      lo[u] = in[s0];
      hi[u] = in[s1];
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I w = base + u * kCopyThreads;
      if (w >= words) break;
      out[w] = static_cast<unsigned>(lo[u]) | (static_cast<unsigned>(hi[u]) << 16);
    }
  }
}

// short_rows (inner == 1, a short b): a thread per input row (n, i), its b elements loaded into registers and stored
// to the b output rows j at column i. A warp's loads are one contiguous span of 32 rows (the first brings it into L1;
// the rest hit it), its stores b spans of 32 elements. The element path walks the output and reads each 32-byte
// sector once per element it holds, from L2 (ncu: L2-bound).
template <class E, int kMaxB>
__global__ void __launch_bounds__(kCopyThreads)
    short_rows_kernel(const E* __restrict__ in, E* __restrict__ out, unsigned rows, IntDivider a, int b) {
  const std::int64_t plane = std::int64_t(a.divisor()) * b;
  for (unsigned row = blockIdx.x * kCopyThreads + threadIdx.x; row < rows; row += gridDim.x * kCopyThreads) {
    unsigned i;
    const unsigned n = a.divmod(row, &i);
    const E* src = in + std::int64_t(row) * b;
    E v[kMaxB];
#pragma unroll
    for (int j = 0; j < kMaxB; ++j)
      if (j < b) v[j] = src[j];
    E* dst = out + n * plane + i;
#pragma unroll
    for (int j = 0; j < kMaxB; ++j)
      if (j < b) dst[std::int64_t(j) * a.divisor()] = v[j];
  }
}

// short_columns (inner == 1, a short a): a warp per 32 output rows c = n b + j of a elements, which are one contiguous
// span of the output. Lane x loads column c0 + x of each of the a input rows (a coalesced load per row), puts its
// elements into the warp's shared memory in output order (skewed a slot every 32 elements, so the lanes' stores of
// one row fall on distinct banks where a is a power of two), and the warp stores the span 32 elements an access.
constexpr int kShortColumnsWarps = kCopyThreads / 32;
template <class E, int kMaxA>
__global__ void __launch_bounds__(kCopyThreads)
    short_columns_kernel(const E* __restrict__ in, E* __restrict__ out, unsigned rows, int a, IntDivider b) {
  __shared__ E stage[kShortColumnsWarps][32 * kMaxA + kMaxA];
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  E* s = stage[warp];
  for (unsigned c0 = (blockIdx.x * kShortColumnsWarps + warp) * 32; c0 < rows;
       c0 += gridDim.x * kShortColumnsWarps * 32) {
    const unsigned c = c0 + lane;
    unsigned j;
    const unsigned n = b.divmod(c, &j);
    const E* src = in + std::int64_t(n) * a * b.divisor() + j;
    E v[kMaxA];
#pragma unroll
    for (int i = 0; i < kMaxA; ++i)
      if (i < a && c < rows) v[i] = src[std::int64_t(i) * b.divisor()];
#pragma unroll
    for (int i = 0; i < kMaxA; ++i)
      if (i < a) {
        const int e = lane * a + i;
        s[e + (e >> 5)] = v[i];
      }
    __syncwarp();
    const unsigned count = (rows - c0 < 32 ? rows - c0 : 32) * a;  // the span's elements
    E* dst = out + std::int64_t(c0) * a;
#pragma unroll
    for (int t = 0; t < kMaxA; ++t) {
      const unsigned e = lane + 32 * t;  // its slot: e + e / 32 = e + t
      if (t < a && e < count) dst[e] = s[e + t];
    }
    __syncwarp();  // the stage is refilled next
  }
}

// The tile kernels' walk: a block per tile along the grid's x, the rest along y and z (looped where they pass 65535).
// kAFast: x walks the tiles along a (the input's rows), so the blocks resident together write whole output rows.
template <bool kAFast>
struct TileWalk {
  std::int64_t tiles_y;
  __device__ std::int64_t ta(std::int64_t y) const { return kAFast ? std::int64_t(blockIdx.x) : y; }
  __device__ std::int64_t tb(std::int64_t y) const { return kAFast ? y : std::int64_t(blockIdx.x); }
};

// tiles (inner == 1): a batch of a x b matrices transposed, one kSide x kSide tile per block at a time, kThreads
// threads a tile. Every thread's loads are issued before any is stored to shared memory: a loop whose trip count the
// compiler cannot see (a thread's rows from threadIdx.y) waited for each load in turn (docs/pytorch.md). The tile's
// pitch is an odd number of 32-bit words (one element more for the 8- and 16-byte runs of run_tiles), so the column
// reads of shared memory are free of bank conflicts. kAFast: the grid walks a's tiles first (tiles_along_a), so the
// blocks resident together write adjacent pieces of the same output rows.
template <class E, int kSide, int kThreads, bool kAFast>
__global__ void __launch_bounds__(kThreads)
    transpose_tiles_kernel(const E* __restrict__ in, E* __restrict__ out, std::int64_t batch, std::int64_t a,
                           std::int64_t b, TileWalk<kAFast> walk) {
  static_assert(kSide * sizeof(E) % 8 == 0, "the pitch below is an odd number of words");
  static_assert(kThreads % kSide == 0 && kSide * kSide % kThreads == 0, "whole rows a step");
  constexpr int kPerThread = kSide * kSide / kThreads, kRowStep = kThreads / kSide;
  __shared__ E tile[kSide][kSide + (sizeof(E) < 4 ? 4 / sizeof(E) : 1)];
  const int x = static_cast<int>(threadIdx.x % kSide), y = static_cast<int>(threadIdx.x / kSide);
  for (std::int64_t n = blockIdx.z; n < batch; n += gridDim.z)
    for (std::int64_t t = blockIdx.y; t < walk.tiles_y; t += gridDim.y) {
      const std::int64_t i0 = walk.ta(t) * kSide, j0 = walk.tb(t) * kSide;
      const int na = static_cast<int>(a - i0 < kSide ? a - i0 : kSide);  // the tile's rows and columns
      const int nb = static_cast<int>(b - j0 < kSide ? b - j0 : kSide);
      const E* src = in + n * a * b + i0 * b + j0;  // tile row r at src + r b
      E* dst = out + n * a * b + j0 * a + i0;       // output row r at dst + r a
      E v[kPerThread];
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        if (r < na && x < nb) v[k] = src[r * b + x];
      }
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        if (r < na && x < nb) tile[r][x] = v[k];
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        if (r < nb && x < na) dst[r * a + x] = tile[x][r];
      }
      __syncthreads();  // the tile is refilled next
    }
}

// pair_tiles (inner == 1, 2-byte elements): 64 x 64 tiles whose global loads and stores are aligned 4-byte words,
// two elements each (as fp32's 32 x 32 tiles); a tile row of the input is 32 pairs in shared memory, and an output word
// joins the same column's elements of two adjacent rows. The pitch of 33 words keeps the word stores free of bank
// conflicts (the half-word reads meet two-way ones). The grid walks along a first (TileWalk<true>).
// kAnySides: a or b is odd, so a row may start at an odd element. Such an input row is loaded from the word holding its
// first element, and lane x's pair joins its word's high half to the next lane's low half (lane 31's from one more
// word, which lane k loads for the warp's k-th row). Such an output row's words join tile rows 2x - 1 and 2x; its
// first and last elements, where their word's other half is a neighbouring tile's, are stored alone after the words.
constexpr int kPairThreads = 256, kDeepPairThreads = 128, kDeepPairBlocksPerSm = 10;
template <bool kAnySides, int kThreads = kPairThreads, int kMinBlocks = 0>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    transpose_pairs_kernel(const unsigned short* __restrict__ in, unsigned short* __restrict__ out,
                           std::int64_t batch, std::int64_t a, std::int64_t b, TileWalk<true> walk) {
  constexpr int kSide = 2 * kTile, kPitch = kTile + 1, kRowStep = kThreads / kTile;
  constexpr int kPerThread = kSide / kRowStep;
  static_assert(kPerThread <= kTile, "lane k loads the k-th row's extra word");
  static_assert(kThreads >= 2 * kSide, "a thread for each end of each output row");
  __shared__ unsigned tile[kSide][kPitch];  // row r: input row i0 + r, columns j0 to j0 + 63 in pairs
  const auto* halves = reinterpret_cast<const unsigned short*>(&tile[0][0]);
  const auto* in_words = reinterpret_cast<const unsigned*>(in);
  auto* out_words = reinterpret_cast<unsigned*>(out);
  const std::int64_t total = batch * a * b, whole_words = total >> 1;  // words with both halves in the tensor
  // The word at w; the tensor's last, where its count is odd, is its last element alone.
  const auto word_at = [&](std::int64_t w) { return w < whole_words ? in_words[w] : unsigned(in[2 * w]); };
  const unsigned a_odd = static_cast<unsigned>(a & 1), b_odd = static_cast<unsigned>(b & 1);
  const int x = static_cast<int>(threadIdx.x % kTile), y = static_cast<int>(threadIdx.x / kTile);
  for (std::int64_t n = blockIdx.z; n < batch; n += gridDim.z)
    for (std::int64_t t = blockIdx.y; t < walk.tiles_y; t += gridDim.y) {
      const std::int64_t i0 = walk.ta(t) * kSide, j0 = walk.tb(t) * kSide;
      const int na = static_cast<int>(a - i0 < kSide ? a - i0 : kSide);
      const int nb = static_cast<int>(b - j0 < kSide ? b - j0 : kSide);
      const std::int64_t first_in = (n * a + i0) * b + j0;  // tile row r starts at element first_in + r b
      const unsigned odd_in = static_cast<unsigned>(first_in & 1);
      unsigned v[kPerThread], extra = 0;
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        const std::int64_t g = first_in + std::int64_t(r) * b;
        const int odd = kAnySides ? static_cast<int>(g & 1) : 0;
        if (r < na && 2 * x < nb + odd) v[k] = kAnySides ? word_at((g >> 1) + x) : in_words[(g >> 1) + x];
      }
      if (kAnySides && x < kPerThread) {
        const int r = y + x * kRowStep;
        const std::int64_t g = first_in + std::int64_t(r) * b;
        if (r < na && nb == kSide && (g & 1) != 0) extra = word_at((g >> 1) + kTile);
      }
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        unsigned pair = v[k];
        if constexpr (kAnySides) {
          const unsigned next = __shfl_down_sync(0xffffffffu, v[k], 1), last = __shfl_sync(0xffffffffu, extra, k);
          if ((odd_in ^ (r & b_odd)) != 0) pair = __byte_perm(v[k], x == kTile - 1 ? last : next, 0x5432);
        }
        if (r < na && 2 * x < nb) tile[r][x] = pair;
      }
      __syncthreads();
      const std::int64_t first_out = (n * b + j0) * a + i0;  // output row r starts at element first_out + r a
      const unsigned odd_out = static_cast<unsigned>(first_out & 1);
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        const int r = y + k * kRowStep;
        const std::int64_t h = first_out + std::int64_t(r) * a;
        const int lo = 2 * x - (kAnySides ? static_cast<int>(odd_out ^ (r & a_odd)) : 0);
        if (r < nb && lo >= 0 && lo + 1 < na)
          out_words[(h >> 1) + x] = halves[lo * 2 * kPitch + r] | (unsigned(halves[(lo + 1) * 2 * kPitch + r]) << 16);
      }
      if constexpr (kAnySides) {
        // Output row r's first element, a word's high half where the row starts at an odd element; its last, a low
        // half where the row ends at an even one.
        const int r = static_cast<int>(threadIdx.x >> 1), p = static_cast<int>(odd_out ^ (r & a_odd));
        const bool first = (threadIdx.x & 1) == 0;
        const int row = first ? 0 : na - 1;
        if (r < nb && (first ? p == 1 : ((na - 1 + p) & 1) == 0))
          out[first_out + std::int64_t(r) * a + row] = halves[row * 2 * kPitch + r];
      }
      __syncthreads();  // the tile is refilled next
    }
}

// word_tiles (inner == 1, 2-byte elements, any sides): 128 x 128 tiles whose global loads and stores are aligned 4-byte
// words wherever a row starts, so a warp moves 128 bytes an access (64 x 64 tiles of 256 threads were slower on the
// H200: docs/pytorch.md).
// A row's words land in shared memory as they are, its first element a half-word in where the row starts at an odd
// element. An output word joins one column of two adjacent tile rows; where its other half is a neighbouring tile's,
// the half alone is stored.
template <int kSide, int kThreadCount>
struct WordTile {
  static constexpr int kThreads = kThreadCount, kWarps = kThreads / 32;
  static constexpr int kTileA = kSide, kTileB = kSide, kPitch = kTileB / 2 + 1;  // a row's words, and one more
  static constexpr int kRowsPerWarp = kTileA / kWarps, kColsPerWarp = kTileB / kWarps;
  static constexpr int kLoadsPerRow = kTileB / 64;  // a warp's loads of a row's words, but the last
  static constexpr int kWords = kTileA * kPitch + kTileA / 32;
  // Tile row r's first word in shared memory: an odd pitch, and rows 32 apart one more word apart, so the two rows
  // an output word joins (2x, 2x + 1 for lane x) sit on distinct banks across the warp.
  __device__ static int row(int r) { return r * kPitch + (r >> 5); }
};
using WordTiles = WordTile<128, 256>;

// Every global access below is one predicated load or store, so a thread's loads are all in flight together; the
// rare cases (the half-word that ends a tensor of an odd count, the half-words that start and end an output row)
// are separate passes. What a row or an output word needs is found once a tile (a row's words and its source, a
// word's two half-word offsets in shared memory for either parity of its output row): found at every access, they
// made the kernel issue-bound (docs/pytorch.md).
template <class T>
__global__ void __launch_bounds__(T::kThreads, 1024 / T::kThreads)
    transpose_words_kernel(const unsigned short* __restrict__ in, unsigned short* __restrict__ out,
                           std::int64_t batch, std::int64_t a, std::int64_t b, int side_a, int side_b,
                           TileWalk<false> walk) {
  static_assert(T::kRowsPerWarp * T::kLoadsPerRow <= 32, "a bit a load in one word");
  constexpr int kOutWords = T::kTileA / 64 + 1;  // a lane's words of an output row: up to T::kTileA / 2 + 1
  __shared__ unsigned tile[T::kWords];
  const auto* halves = reinterpret_cast<const unsigned short*>(tile);
  const auto* in_words = reinterpret_cast<const unsigned*>(in);
  auto* out_words = reinterpret_cast<unsigned*>(out);
  const std::int64_t total = batch * a * b, whole_words = total >> 1;  // words with both halves in the tensor
  const unsigned a_odd = static_cast<unsigned>(a & 1), b_odd = static_cast<unsigned>(b & 1);
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  for (std::int64_t n = blockIdx.z; n < batch; n += gridDim.z)
    for (std::int64_t t = blockIdx.y; t < walk.tiles_y; t += gridDim.y) {
      const std::int64_t i0 = walk.ta(t) * side_a, j0 = walk.tb(t) * side_b;
      const int na = static_cast<int>(a - i0 < side_a ? a - i0 : side_a);
      const int nb = static_cast<int>(b - j0 < side_b ? b - j0 : side_b);
      const std::int64_t first_in = (n * a + i0) * b + j0;  // tile row r starts at element first_in + r b
      const unsigned odd_in = static_cast<unsigned>(first_in & 1);
      // Tile row r's words: from the one holding its first element to the one holding its last, none past the
      // tensor's whole words.
      const auto row_words = [&](int r, const unsigned*& src) {
        const std::int64_t g = first_in + std::int64_t(r) * b, w = g >> 1;
        src = in_words + w;
        const int words = r < na ? ((static_cast<int>(g & 1) + nb - 1) >> 1) + 1 : 0;
        return static_cast<int>(whole_words - w < words ? (whole_words - w > 0 ? whole_words - w : 0) : words);
      };
      // Lane x loads words x, x + 32, ... of each of the warp's rows, and lane k the last word of its k-th row, where
      // the row has one past T::kTileB / 2.
      unsigned word[T::kRowsPerWarp][T::kLoadsPerRow], extra = 0, loaded = 0;
#pragma unroll
      for (int k = 0; k < T::kRowsPerWarp; ++k) {
        const unsigned* src;
        const int words = row_words(warp + k * T::kWarps, src);
#pragma unroll
        for (int h = 0; h < T::kLoadsPerRow; ++h)
          if (lane + 32 * h < words) {
            word[k][h] = src[lane + 32 * h];
            loaded |= 1u << (k * T::kLoadsPerRow + h);
          }
      }
      const int extra_row = warp + lane * T::kWarps;
      const unsigned* extra_src;
      const bool has_extra = lane < T::kRowsPerWarp && row_words(extra_row, extra_src) > T::kTileB / 2;
      if (has_extra) extra = extra_src[T::kTileB / 2];
#pragma unroll
      for (int k = 0; k < T::kRowsPerWarp; ++k)
#pragma unroll
        for (int h = 0; h < T::kLoadsPerRow; ++h)
          if (loaded & (1u << (k * T::kLoadsPerRow + h)))
            tile[T::row(warp + k * T::kWarps) + lane + 32 * h] = word[k][h];
      if (has_extra) tile[T::row(extra_row) + T::kTileB / 2] = extra;
      if ((total & 1) != 0 && threadIdx.x == 0) {  // the tensor's last element, a word's low half
        const std::int64_t g = first_in + std::int64_t(na - 1) * b, last = ((g & 1) + nb - 1) >> 1;
        if ((g >> 1) + last == whole_words) tile[T::row(na - 1) + last] = in[total - 1];
      }
      __syncthreads();
      // Tile row r's element of column jj is the half-word at 2 row(r) + jj + (r's parity): its row's words start at
      // its first element's half. Output word x of an output row joins tile rows 2x - p and 2x - p + 1, p the row's
      // parity; for each of the lane's words and either parity, the two halves' offsets and whether both are rows.
      int lo_half[kOutWords][2], hi_half[kOutWords][2];
      unsigned whole = 0;
#pragma unroll
      for (int q = 0; q < kOutWords; ++q)
#pragma unroll
        for (int p = 0; p < 2; ++p) {
          const int lo = 2 * (lane + 32 * q) - p, lo_row = lo < 0 ? 0 : lo;
          lo_half[q][p] = 2 * T::row(lo_row) + static_cast<int>(odd_in ^ (lo_row & b_odd));
          hi_half[q][p] = 2 * T::row(lo + 1) + static_cast<int>(odd_in ^ ((lo + 1) & b_odd));
          if (lo >= 0 && lo + 1 < na) whole |= 1u << (2 * q + p);
        }
      const std::int64_t first_out = (n * b + j0) * a + i0;  // output row jj starts at element first_out + jj a
      const unsigned odd_out = static_cast<unsigned>(first_out & 1);
#pragma unroll
      for (int k = 0; k < T::kColsPerWarp; ++k) {
        const int jj = warp + k * T::kWarps;
        if (jj >= nb) break;
        const std::int64_t g = first_out + std::int64_t(jj) * a;
        const int p = static_cast<int>(odd_out ^ (jj & a_odd));
        unsigned* dst = out_words + (g >> 1);
#pragma unroll
        for (int q = 0; q < kOutWords; ++q)
          if (whole & (1u << (2 * q + p))) {
            const int lo = p ? lo_half[q][1] : lo_half[q][0], hi = p ? hi_half[q][1] : hi_half[q][0];
            dst[lane + 32 * q] = halves[lo + jj] | (unsigned(halves[hi + jj]) << 16);
          }
        // The row's first element is a word's high half where it starts at an odd element; its last, a low half
        // where it ends at an even one.
        if (lane == 0 && p == 1) out[g] = halves[2 * T::row(0) + jj + odd_in];
        if (lane == 1 && ((p + na) & 1) == 1)
          out[g + na - 1] = halves[2 * T::row(na - 1) + jj + (odd_in ^ ((na - 1) & b_odd))];
      }
      __syncthreads();  // the tile is refilled next
    }
}

// The divisors of a tile's or a strip's rows: `full` for a whole one's rows, `edge` for those of the last along a
// dimension that `side` does not divide.
struct RowDividers {
  IntDivider full, edge;
  std::int64_t side;
  __device__ const IntDivider& of(int n) const { return n == side ? full : edge; }
};

// strips (inner == 1, a or b at most kStripsMaxShort): the short dimension's rows, a strip of them at a time, staged
// in shared memory so that both the read and the write are contiguous spans or whole rows, where 32 x 32 tiles would
// stand mostly empty. Short b: a strip is `rows` input rows of b, one contiguous span read in 16-byte vectors, written
// as b output rows of `rows` elements, all of the block's threads over all of them. Short a: a strip is a input rows
// of `cols` elements, written as one contiguous span.
constexpr int kStripElems = 4096;
constexpr int kStripBytes = 16 * 1024;  // short b: a strip's span, 4 vectors a thread
constexpr int kStripVectors = kStripBytes / 16 / kCopyThreads + 1;  // and one more where the span is not aligned

// Short b's shared pitch, in elements: b, or b + 1 where b elements are a whole number of 8-byte pairs of banks (the
// column reads of consecutive rows would meet on the same banks).
template <class E>
int strip_pitch(int b) {
  return b * static_cast<int>(sizeof(E)) % 8 == 0 ? b + 1 : b;
}

// rows_of: a strip's rows (`full`), or the last strip's of a batch (`edge`).
template <class E>
__global__ void __launch_bounds__(kCopyThreads)
    strips_short_b_kernel(const E* __restrict__ in, E* __restrict__ out, std::int64_t batch, std::int64_t a, int b,
                          int pitch, RowDividers rows_of) {
  extern __shared__ __align__(16) unsigned char staged[];
  E* tile = reinterpret_cast<E*>(staged);  // input row c of the strip, element j at tile[c pitch + j]
  using V = Vector16<E>;
  const int rows = static_cast<int>(rows_of.side);
  const std::int64_t strips = (a + rows - 1) / rows, total = batch * a * b;
  for (std::int64_t t = blockIdx.x; t < batch * strips; t += gridDim.x) {
    const std::int64_t n = t / strips, i0 = (t - n * strips) * rows;
    const int na = static_cast<int>(a - i0 < rows ? a - i0 : rows);
    const std::int64_t s = (n * a + i0) * b, len = std::int64_t(na) * b;  // the span, in elements
    const std::int64_t v0 = s / V::kCount, vectors = (s + len - 1) / V::kCount - v0 + 1;
    V v[kStripVectors];
#pragma unroll
    for (int k = 0; k < kStripVectors; ++k) {
      const std::int64_t vi = threadIdx.x + k * kCopyThreads;
      if (vi >= vectors) continue;
      const std::int64_t e0 = (v0 + vi) * V::kCount;
      if (e0 + V::kCount <= total) {
        v[k] = reinterpret_cast<const V*>(in)[v0 + vi];
      } else {
#pragma unroll
        for (int u = 0; u < V::kCount; ++u)
          if (e0 + u < total) v[k].v[u] = in[e0 + u];
      }
    }
#pragma unroll
    for (int k = 0; k < kStripVectors; ++k) {
      const std::int64_t vi = threadIdx.x + k * kCopyThreads;
      if (vi >= vectors) continue;
      std::int64_t rel = (v0 + vi) * V::kCount - s;  // the span's element of the vector's first
      int c = static_cast<int>(rel >= 0 ? rel / b : -((-rel + b - 1) / b));  // floor division
      int j = static_cast<int>(rel - std::int64_t(c) * b);
#pragma unroll
      for (int u = 0; u < V::kCount; ++u, ++rel) {
        if (rel >= 0 && rel < len) tile[c * pitch + j] = v[k].v[u];
        if (++j == b) {
          j = 0;
          ++c;
        }
      }
    }
    __syncthreads();
    const IntDivider row = na == rows_of.side ? rows_of.full : rows_of.edge;
    for (unsigned e = threadIdx.x; e < static_cast<unsigned>(len); e += kCopyThreads) {
      unsigned c;
      const unsigned j = row.divmod(e, &c);
      out[(n * b + j) * a + i0 + c] = tile[c * pitch + j];
    }
    __syncthreads();  // the strip is refilled next
  }
}

template <class E>
__global__ void __launch_bounds__(kCopyThreads)
    strips_short_a_kernel(const E* __restrict__ in, E* __restrict__ out, std::int64_t batch, IntDivider a,
                          std::int64_t b, int cols, RowDividers strip_cols) {
  constexpr int kLoads = kStripElems / kCopyThreads;
  constexpr int kPad = 4 / sizeof(E);  // cols is a multiple of 64: the pitch is an odd number of words
  __shared__ E tile[kStripElems + core::kPermuteStripsMaxShort * kPad];
  const int pitch = cols + kPad;
  const std::int64_t strips = (b + cols - 1) / cols;
  const int na = static_cast<int>(a.divisor());
  for (std::int64_t t = blockIdx.x; t < batch * strips; t += gridDim.x) {
    const std::int64_t n = t / strips, j0 = (t - n * strips) * cols;
    const int nb = static_cast<int>(b - j0 < cols ? b - j0 : cols);
    const IntDivider& row = strip_cols.of(nb);
    const E* src = in + n * na * b + j0;  // the strip's row i at src + i b
    const unsigned loads = static_cast<unsigned>(na * nb);
    E v[kLoads];  // every load issued before any is stored (as in the tile kernels)
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const unsigned e = threadIdx.x + k * kCopyThreads;
      unsigned c;
      const unsigned i = row.divmod(e, &c);
      if (e < loads) v[k] = src[i * b + c];
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const unsigned e = threadIdx.x + k * kCopyThreads;
      unsigned c;
      const unsigned i = row.divmod(e, &c);
      if (e < loads) tile[i * pitch + c] = v[k];
    }
    __syncthreads();
    E* dst = out + (n * b + j0) * na;
#pragma unroll 8
    for (unsigned e = threadIdx.x; e < static_cast<unsigned>(nb * na); e += kCopyThreads) {
      unsigned i;
      const unsigned c = a.divmod(e, &i);
      dst[e] = tile[i * pitch + c];
    }
    __syncthreads();  // the strip is refilled next
  }
}

// Where output element o of a span of whole planes comes from in the same span, stepped one output at a time: the
// output plane is b x a x inner (j, i, k), the input plane a x b x inner.
struct PlaneWalk {
  unsigned plane, a, b, inner;
  unsigned p, j, i, k;
  __device__ PlaneWalk(unsigned o, unsigned a_, unsigned b_, unsigned inner_) : a(a_), b(b_), inner(inner_) {
    plane = a * b * inner;
    p = o / plane;
    const unsigned r = o - p * plane, t = r / inner;
    k = r - t * inner;
    j = t / a;
    i = t - j * a;
  }
  __device__ unsigned source() const { return p * plane + (i * b + j) * inner + k; }
  __device__ void next() {
    if (++k < inner) return;
    k = 0;
    if (++i < a) return;
    i = 0;
    if (++j < b) return;
    j = 0;
    ++p;
  }
};

// planes: a block copies a span of `span` elements (whole planes) into shared memory and writes it back permuted;
// both the read and the write are one contiguous span, in 16-byte vectors where kVec (every full span starts on a
// 16-byte boundary; a short last span goes element by element).
template <class E, bool kVec>
__global__ void __launch_bounds__(kCopyThreads)
    planes_kernel(const E* __restrict__ in, E* __restrict__ out, std::int64_t total, unsigned a, unsigned b,
                  unsigned inner, unsigned span) {
  extern __shared__ __align__(16) unsigned char staged[];
  E* tile = reinterpret_cast<E*>(staged);
  using V = Vector16<E>;
  for (std::int64_t base = std::int64_t(blockIdx.x) * span; base < total; base += std::int64_t(gridDim.x) * span) {
    const unsigned n = total - base < span ? static_cast<unsigned>(total - base) : span;
    const bool whole = kVec && n == span;
    if (whole) {
      const V* src = reinterpret_cast<const V*>(in + base);
      V* t = reinterpret_cast<V*>(tile);
      for (unsigned v = threadIdx.x; v < span / V::kCount; v += kCopyThreads) t[v] = src[v];
    } else {
      for (unsigned e = threadIdx.x; e < n; e += kCopyThreads) tile[e] = in[base + e];
    }
    __syncthreads();
    if (whole) {
      V* dst = reinterpret_cast<V*>(out + base);
      for (unsigned v = threadIdx.x; v < span / V::kCount; v += kCopyThreads) {
        PlaneWalk w(v * V::kCount, a, b, inner);
        V r;
#pragma unroll
        for (int q = 0; q < V::kCount; ++q) {
          r.v[q] = tile[w.source()];
          w.next();
        }
        dst[v] = r;
      }
    } else {
      for (unsigned o = threadIdx.x; o < n; o += kCopyThreads) out[base + o] = tile[PlaneWalk(o, a, b, inner).source()];
    }
    __syncthreads();  // the tile is refilled next
  }
}

// The pieces of runs this warp owns, piece_units units of a run each (a whole run where it is no longer): calls
// copy(src, dst, count, lane) for each, its source found once. Pieces keep every multiprocessor busy where the runs
// are few and long (a warp a run of 16312 fp32 elements left the grid at 236 blocks).
template <class U, class Copy>
__device__ __forceinline__ void for_each_run_piece(const U* __restrict__ in, U* __restrict__ out, std::int64_t a,
                                                   std::int64_t b, std::int64_t inner_units, std::int64_t runs,
                                                   std::int64_t piece_units, Copy&& copy) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t pieces = (inner_units + piece_units - 1) / piece_units;
  const std::int64_t warps = std::int64_t(gridDim.x) * (kCopyThreads / 32);
  for (std::int64_t w = (std::int64_t(blockIdx.x) * kCopyThreads + threadIdx.x) / 32; w < runs * pieces; w += warps) {
    const std::int64_t r = w / pieces, start = (w - r * pieces) * piece_units;
    const std::int64_t count = inner_units - start < piece_units ? inner_units - start : piece_units;
    copy(in + source_run(r, WideDivider{a}, WideDivider{b}) * inner_units + start, out + r * inner_units + start,
         count, lane);
  }
}

// runs (inner > 1): a warp per piece of a run. U: 16 bytes, the lanes copying kInFlight vectors at a time; or the
// element, for runs whose bytes or tensors are no whole number of vectors, each piece in destination-aligned vectors
// (warp_copy_span: element-wide units left a lane 8 or 16 bytes in flight).
template <class U>
__global__ void __launch_bounds__(kCopyThreads, sizeof(U) == 16 ? 1 : kSpanBlocksPerSm)
    runs_kernel(const U* __restrict__ in, U* __restrict__ out, std::int64_t a, std::int64_t b,
                std::int64_t inner_units, std::int64_t runs, std::int64_t piece_units) {
  for_each_run_piece(in, out, a, b, inner_units, runs, piece_units,
                     [](const U* src, U* dst, std::int64_t count, int lane) {
                       if constexpr (sizeof(U) == 16) warp_copy(src, dst, count, lane);
                       else warp_copy_span(src, dst, count, lane);
                     });
}

// tiled_runs: tiles of side x side runs of `units` units each (a run is inner elements, moved as the widest units it
// allows). A tile's rows of the input (fixed i, side runs j) are one contiguous span, and so are its rows of the
// output (fixed j, side runs i): the block reads the first into shared memory and writes the second from there.
template <class U>
__global__ void __launch_bounds__(kCopyThreads)
    tiled_runs_kernel(const U* __restrict__ in, U* __restrict__ out, std::int64_t batch, std::int64_t a,
                      std::int64_t b, IntDivider units, int side, RowDividers load_rows, RowDividers store_rows) {
  extern __shared__ __align__(16) unsigned char staged[];
  U* tile = reinterpret_cast<U*>(staged);  // side rows (i) of side runs (j)
  const std::int64_t tiles_a = (a + side - 1) / side, tiles_b = (b + side - 1) / side;
  const std::int64_t tiles = batch * tiles_a * tiles_b;
  const unsigned row = side * units.divisor();
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t tb = t % tiles_b, rest = t / tiles_b;
    const std::int64_t ta = rest % tiles_a, n = rest / tiles_a;
    const std::int64_t i0 = ta * side, j0 = tb * side;
    const int ni = static_cast<int>(a - i0 < side ? a - i0 : side);
    const int nj = static_cast<int>(b - j0 < side ? b - j0 : side);
    const IntDivider& load_row = load_rows.of(nj);
    const IntDivider& store_row = store_rows.of(ni);
    const U* src = in + ((n * a + i0) * b + j0) * units.divisor();  // input row ii of the tile at src + ii b units
    for (unsigned e = threadIdx.x; e < ni * load_row.divisor(); e += kCopyThreads) {
      unsigned r;
      const unsigned ii = load_row.divmod(e, &r);
      tile[ii * row + r] = src[ii * b * units.divisor() + r];
    }
    __syncthreads();
    U* dst = out + ((n * b + j0) * a + i0) * units.divisor();  // output row jj of the tile at dst + jj a units
    for (unsigned e = threadIdx.x; e < nj * store_row.divisor(); e += kCopyThreads) {
      unsigned r, k;
      const unsigned jj = store_row.divmod(e, &r);
      const unsigned ii = units.divmod(r, &k);
      dst[jj * a * units.divisor() + r] = tile[ii * row + jj * units.divisor() + k];
    }
    __syncthreads();  // the tile is refilled next
  }
}

unsigned blocks_for(std::int64_t work, std::int64_t per_block) {
  return static_cast<unsigned>(std::max<std::int64_t>(
      1, std::min<std::int64_t>((work + per_block - 1) / per_block, core::kMaxGridBlocks)));
}

// Calls launch(index, divider) with 32-bit indices (index an unsigned, divider(d) an IntDivider) where `total`
// stays under 2^31, else with 64-bit ones (a std::int64_t, a WideDivider).
template <class Launch>
void with_index_width(std::int64_t total, Launch&& launch) {
  if (total < (std::int64_t{1} << 31)) launch(0u, [](std::int64_t d) { return IntDivider(static_cast<unsigned>(d)); });
  else launch(std::int64_t{0}, [](std::int64_t d) { return WideDivider{d}; });
}

template <class U, int kUnits>
void launch_rows(const core::PermuteView& v, const void* in, void* out, std::int64_t inner_units,
                 cudaStream_t stream) {
  const std::int64_t total = v.batch * v.a * v.b * inner_units;
  const unsigned blocks = blocks_for(total, std::int64_t(kCopyThreads) * kUnits);
  with_index_width(total, [&](auto index, auto divider) {
    using I = decltype(index);
    move_rows_kernel<U, I, decltype(divider(1)), kUnits><<<blocks, kCopyThreads, 0, stream>>>(
        static_cast<const U*>(in), static_cast<U*>(out), divider(v.a), divider(v.b), divider(inner_units),
        static_cast<I>(total));
  });
}

// vector_rows (inner > 1, runs no whole number of vectors): a thread per 16-byte output vector, kUnits of them
// (loads first). Output vector o starts at element e = o kPer of run r = e / inner; where its kPer elements are all
// run r's, their source is 16 contiguous bytes, joined from the two aligned vectors they straddle (the second mostly
// the next thread's first, from L1); across a run's end, element by element. A total that is no whole number of
// vectors leaves its last elements to thread 0.
template <class E, class I, class D, int kUnits>
__global__ void __launch_bounds__(kCopyThreads)
    move_vectors_kernel(const E* __restrict__ in, E* __restrict__ out, D a, D b, D inner, I total) {
  constexpr int kPer = 16 / sizeof(E);
  const I vectors = total / kPer;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (I e = vectors * kPer; e < total; ++e) out[e] = in[source_of(e, a, b, inner)];
  const I step = static_cast<I>(gridDim.x) * kCopyThreads * kUnits;
  auto* to = reinterpret_cast<uint4*>(out);
  for (I base = static_cast<I>(blockIdx.x) * kCopyThreads * kUnits + threadIdx.x; base < vectors; base += step) {
    uint4 lo[kUnits], hi[kUnits];
    int offset[kUnits];
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I o = base + u * kCopyThreads;
      offset[u] = -1;
      if (o >= vectors) break;
      I k;
      const I r = inner.divmod(o * kPer, &k);
      if (k + kPer > inner.divisor()) continue;  // across a run's end: element by element below
      const auto* p = reinterpret_cast<const unsigned char*>(in + source_run(r, a, b) * inner.divisor() + k);
      offset[u] = static_cast<int>(reinterpret_cast<std::uintptr_t>(p) % 16);
      const auto* from = reinterpret_cast<const uint4*>(p - offset[u]);
      lo[u] = from[0];
      hi[u] = offset[u] != 0 ? from[1] : lo[u];
    }
#pragma unroll
    for (int u = 0; u < kUnits; ++u) {
      const I o = base + u * kCopyThreads;
      if (o >= vectors) break;
      if (offset[u] >= 0) {
        to[o] = join_vectors(lo[u], hi[u], offset[u]);
      } else {
        Vector16<E> r;
#pragma unroll
        for (int m = 0; m < kPer; ++m) r.v[m] = in[source_of(o * kPer + m, a, b, inner)];
        to[o] = *reinterpret_cast<const uint4*>(&r);
      }
    }
  }
}

// The pair rows path (move_pairs_kernel).
void launch_pair_rows(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const std::int64_t total = v.batch * v.a * v.b, words = total / 2;
  const unsigned blocks = blocks_for(std::max<std::int64_t>(words, 1), std::int64_t(kCopyThreads) * kInFlight);
  with_index_width(total, [&](auto index, auto divider) {
    using I = decltype(index);
    move_pairs_kernel<I, decltype(divider(1)), kInFlight><<<blocks, kCopyThreads, 0, stream>>>(
        static_cast<const unsigned short*>(in), static_cast<unsigned*>(out), divider(v.a), divider(v.b),
        static_cast<I>(words), total % 2 == 1);
  });
}

// The rows path with kUnits units in flight a thread: 16-byte units where the run and both tensors allow.
template <int kUnits>
void launch_rows_widest(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                        cudaStream_t stream) {
  const std::int64_t per_vector = 16 / static_cast<std::int64_t>(elem_bytes);
  if (v.inner % per_vector == 0 && aligned16(in) && aligned16(out))
    launch_rows<Bytes<16>, kUnits>(v, in, out, v.inner / per_vector, stream);
  else if (elem_bytes == 4) launch_rows<unsigned int, kUnits>(v, in, out, v.inner, stream);
  else launch_rows<unsigned short, kUnits>(v, in, out, v.inner, stream);
}

// The vector rows path (move_vectors_kernel); rows where the output is not aligned to a vector.
template <class E>
void launch_vector_rows(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  if (!aligned16(out)) return launch_rows_widest<kInFlight>(v, in, out, sizeof(E), stream);
  const std::int64_t total = v.batch * v.a * v.b * v.inner, per_block = std::int64_t(kCopyThreads) * kInFlight;
  const unsigned blocks = blocks_for(std::max<std::int64_t>(total / (16 / std::int64_t{sizeof(E)}), 1), per_block);
  with_index_width(total, [&](auto index, auto divider) {
    using I = decltype(index);
    move_vectors_kernel<E, I, decltype(divider(1)), kInFlight><<<blocks, kCopyThreads, 0, stream>>>(
        static_cast<const E*>(in), static_cast<E*>(out), divider(v.a), divider(v.b), divider(v.inner),
        static_cast<I>(total));
  });
}

// Calls f(E{}) with E the unsigned type of a 2- or 4-byte element.
template <class F>
void with_element(std::size_t elem_bytes, F&& f) {
  if (elem_bytes == 4) f(0u);
  else f(static_cast<unsigned short>(0));
}

// Calls f with a Bytes<unit> of the unit's size (16, 8, 4, 2 or 1), so a kernel is instantiated for each.
template <class F>
void with_unit(int unit, F&& f) {
  switch (unit) {
    case 16: return f(Bytes<16>{});
    case 8: return f(Bytes<8>{});
    case 4: return f(Bytes<4>{});
    case 2: return f(Bytes<2>{});
    default: return f(Bytes<1>{});
  }
}

bool aligned_to(const void* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// The widest unit (16, 8, 4, 2 or 1 bytes) that a run of `run_bytes` and both tensors allow.
int widest_unit(std::int64_t run_bytes, const void* in, const void* out) {
  for (const int unit : {16, 8, 4, 2})
    if (run_bytes % unit == 0 && aligned_to(in, unit) && aligned_to(out, unit)) return unit;
  return 1;
}

// The tile kernels' grid: a block per tile along x (b's tiles, or a's where kAFast), the other side's tiles and the
// batch walked where they pass 65535.
template <bool kAFast>
std::pair<dim3, TileWalk<kAFast>> tile_grid(const core::PermuteView& v, int side_a, int side_b) {
  const std::int64_t tiles_a = (v.a + side_a - 1) / side_a, tiles_b = (v.b + side_b - 1) / side_b;
  const std::int64_t tiles_x = kAFast ? tiles_a : tiles_b, tiles_y = kAFast ? tiles_b : tiles_a;
  if (tiles_x > 0x7fffffff) throw Error("permute: too many tiles along a moved dimension");
  return {dim3(static_cast<unsigned>(tiles_x), static_cast<unsigned>(std::min<std::int64_t>(tiles_y, 65535)),
               static_cast<unsigned>(std::min<std::int64_t>(v.batch, 65535))),
          TileWalk<kAFast>{tiles_y}};
}

// 32 x 32 tiles four elements a thread, 64 x 64 tiles eight: more loads in flight a thread were slower (docs/pytorch.md).
template <class E, int kSide, bool kAFast = false>
void launch_tiles(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  constexpr int kThreads = kSide == kTile ? 256 : 512;
  const auto [grid, walk] = tile_grid<kAFast>(v, kSide, kSide);
  transpose_tiles_kernel<E, kSide, kThreads, kAFast><<<grid, kThreads, 0, stream>>>(
      static_cast<const E*>(in), static_cast<E*>(out), v.batch, v.a, v.b, walk);
}

// pair_tiles (256 threads, the registers ptxas picks) or pair_tiles_deep (128 threads, kDeepPairBlocksPerSm blocks).
template <int kThreads, int kMinBlocks>
void launch_pair_tiles(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const auto [grid, walk] = tile_grid<true>(v, 2 * kTile, 2 * kTile);
  const auto go = [&](auto kernel) {
    kernel<<<grid, kThreads, 0, stream>>>(static_cast<const unsigned short*>(in), static_cast<unsigned short*>(out),
                                          v.batch, v.a, v.b, walk);
  };
  // Both sides even: every row starts at an even element.
  if (v.a % 2 == 0 && v.b % 2 == 0) go(transpose_pairs_kernel<false, kThreads, kMinBlocks>);
  else go(transpose_pairs_kernel<true, kThreads, kMinBlocks>);
}

// The side of tiles of at most `most` that split n evenly: a dimension just past a tile's side takes two half tiles,
// not a whole one and a sliver that costs a whole one's time.
int balanced_side(std::int64_t n, int most) {
  const std::int64_t tiles = (n + most - 1) / most;
  return static_cast<int>((n + tiles - 1) / tiles);
}

void launch_word_tiles(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const int side_a = balanced_side(v.a, WordTiles::kTileA), side_b = balanced_side(v.b, WordTiles::kTileB);
  const auto [grid, walk] = tile_grid<false>(v, side_a, side_b);
  transpose_words_kernel<WordTiles><<<grid, WordTiles::kThreads, 0, stream>>>(
      static_cast<const unsigned short*>(in), static_cast<unsigned short*>(out), v.batch, v.a, v.b, side_a, side_b,
      walk);
}

template <class E>
void launch_strips(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const auto* src = static_cast<const E*>(in);
  auto* dst = static_cast<E*>(out);
  if (v.b <= core::kPermuteStripsMaxShort) {
    // Strips of equal rows, so a batch's last is no sliver: at most a span's worth each.
    const int b = static_cast<int>(v.b), most = kStripBytes / static_cast<int>(sizeof(E)) / b;
    const std::int64_t per_batch = (v.a + most - 1) / most;
    const int rows = static_cast<int>((v.a + per_batch - 1) / per_batch);
    const int edge = static_cast<int>(v.a - (per_batch - 1) * rows), pitch = strip_pitch<E>(b);
    const unsigned blocks = blocks_for(v.batch * per_batch, 1);
    const std::size_t shared = static_cast<std::size_t>(rows) * pitch * sizeof(E);
    strips_short_b_kernel<E><<<blocks, kCopyThreads, shared, stream>>>(
        src, dst, v.batch, v.a, b, pitch,
        RowDividers{IntDivider(static_cast<unsigned>(rows)), IntDivider(static_cast<unsigned>(edge)), rows});
  } else if (v.a <= core::kPermuteStripsMaxShort) {
    const int cols = kStripElems / static_cast<int>(v.a) / 64 * 64;
    const unsigned blocks = blocks_for(v.batch * ((v.b + cols - 1) / cols), 1);
    const int edge = static_cast<int>(v.b % cols == 0 ? cols : v.b % cols);
    strips_short_a_kernel<E><<<blocks, kCopyThreads, 0, stream>>>(
        src, dst, v.batch, IntDivider(static_cast<unsigned>(v.a)), v.b, cols,
        RowDividers{IntDivider(static_cast<unsigned>(cols)), IntDivider(static_cast<unsigned>(edge)), cols});
  } else {
    throw Error("permute: the strips path moves a dimension of at most " +
                std::to_string(core::kPermuteStripsMaxShort) + " elements");
  }
}

template <class E>
void launch_planes(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const std::int64_t plane = v.a * v.b * v.inner, plane_bytes = plane * std::int64_t{sizeof(E)};
  if (plane_bytes > core::kPermutePlaneMaxBytes)
    throw Error("permute: planes of over 8 KiB do not take the planes path");
  std::int64_t planes = std::max<std::int64_t>(1, core::kPermuteSpanBytes / plane_bytes);
  // Spans of whole 16-byte vectors where the planes allow: a multiple of `step` planes is one.
  const std::int64_t step = 16 / std::gcd<std::int64_t>(plane_bytes, 16);
  const bool vec = planes >= step && aligned16(in) && aligned16(out);
  if (vec) planes = planes / step * step;
  const std::int64_t span = planes * plane, total = v.batch * plane;
  const unsigned blocks = blocks_for(total, span);
  const std::size_t shared = static_cast<std::size_t>(span) * sizeof(E);
  const auto go = [&](auto kernel) {
    kernel<<<blocks, kCopyThreads, shared, stream>>>(static_cast<const E*>(in), static_cast<E*>(out), total,
                                                     static_cast<unsigned>(v.a), static_cast<unsigned>(v.b),
                                                     static_cast<unsigned>(v.inner), static_cast<unsigned>(span));
  };
  if (vec) go(planes_kernel<E, true>);
  else go(planes_kernel<E, false>);
}

void launch_runs(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes, cudaStream_t stream) {
  const std::int64_t run_bytes = v.inner * static_cast<std::int64_t>(elem_bytes);
  const std::int64_t runs = v.batch * v.a * v.b, piece_bytes = core::kPermuteRunPieceBytes;
  const unsigned blocks =
      blocks_for(runs * ((run_bytes + piece_bytes - 1) / piece_bytes), kCopyThreads / 32);
  if (widest_unit(run_bytes, in, out) == 16) {
    runs_kernel<Bytes<16>><<<blocks, kCopyThreads, 0, stream>>>(static_cast<const Bytes<16>*>(in),
                                                                static_cast<Bytes<16>*>(out), v.a, v.b,
                                                                run_bytes / 16, runs, piece_bytes / 16);
    return;
  }
  with_element(elem_bytes, [&](auto e) {
    using E = decltype(e);
    runs_kernel<E><<<blocks, kCopyThreads, 0, stream>>>(static_cast<const E*>(in), static_cast<E*>(out), v.a, v.b,
                                                        v.inner, runs, piece_bytes / std::int64_t{sizeof(E)});
  });
}

void launch_tiled_runs(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                       cudaStream_t stream) {
  const std::int64_t run_bytes = v.inner * static_cast<std::int64_t>(elem_bytes);
  const int side = core::permute_tile_side(run_bytes);
  if (side == 0) throw Error("permute: runs of over 256 bytes take no tiles");
  const int unit = widest_unit(run_bytes, in, out);
  const int units = static_cast<int>(run_bytes / unit);
  const std::int64_t tiles = v.batch * ((v.a + side - 1) / side) * ((v.b + side - 1) / side);
  const unsigned blocks = blocks_for(tiles, 1);
  const std::size_t shared = static_cast<std::size_t>(side) * side * static_cast<std::size_t>(run_bytes);
  const auto rows = [&](std::int64_t extent) {  // a tile's rows of `extent` runs: whole ones, and the last's
    const std::int64_t edge = extent % side == 0 ? side : extent % side;
    return RowDividers{IntDivider(static_cast<unsigned>(side * units)), IntDivider(static_cast<unsigned>(edge * units)),
                       side};
  };
  with_unit(unit, [&](auto tag) {
    using U = decltype(tag);
    tiled_runs_kernel<U><<<blocks, kCopyThreads, shared, stream>>>(static_cast<const U*>(in), static_cast<U*>(out),
                                                                   v.batch, v.a, v.b, IntDivider(units), side,
                                                                   rows(v.b), rows(v.a));
  });
}

// Calls f with the smallest of 4, 8, 16, ... kMost that holds n, as a compile-time bound (a kernel's registers).
template <int kMost, int kBound = 4, class F>
void with_bound(std::int64_t n, F&& f) {
  if constexpr (kBound >= kMost) f(std::integral_constant<int, kMost>{});
  else if (n <= kBound) f(std::integral_constant<int, kBound>{});
  else with_bound<kMost, 2 * kBound>(n, f);
}

template <class E>
void launch_short_rows(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const std::int64_t rows = v.batch * v.a;
  if (v.b > core::kPermuteShortRowsMaxB || rows >= (std::int64_t{1} << 31))
    throw Error("permute: the short rows path moves rows of at most " + std::to_string(core::kPermuteShortRowsMaxB) +
                " elements, under 2^31 of them");
  const unsigned blocks = blocks_for(rows, kCopyThreads);
  const auto go = [&](auto kernel) {
    kernel<<<blocks, kCopyThreads, 0, stream>>>(static_cast<const E*>(in), static_cast<E*>(out),
                                                static_cast<unsigned>(rows), IntDivider(static_cast<unsigned>(v.a)),
                                                static_cast<int>(v.b));
  };
  with_bound<static_cast<int>(core::kPermuteShortRowsMaxB)>(v.b, [&](auto most) {
    go(short_rows_kernel<E, decltype(most)::value>);
  });
}

template <class E>
void launch_short_columns(const core::PermuteView& v, const void* in, void* out, cudaStream_t stream) {
  const std::int64_t rows = v.batch * v.b;
  if (v.a > core::kPermuteShortColumnsMaxA || rows >= (std::int64_t{1} << 31))
    throw Error("permute: the short columns path moves output rows of at most " +
                std::to_string(core::kPermuteShortColumnsMaxA) + " elements, under 2^31 of them");
  const unsigned blocks = blocks_for(rows, kCopyThreads);
  const auto go = [&](auto kernel) {
    kernel<<<blocks, kCopyThreads, 0, stream>>>(static_cast<const E*>(in), static_cast<E*>(out),
                                                static_cast<unsigned>(rows), static_cast<int>(v.a),
                                                IntDivider(static_cast<unsigned>(v.b)));
  };
  with_bound<static_cast<int>(core::kPermuteShortColumnsMaxA)>(v.a, [&](auto most) {
    go(short_columns_kernel<E, decltype(most)::value>);
  });
}

// run_tiles: the 32 x 32 tiles with a whole run of 4, 8 or 16 bytes as the element; tiled_runs where the tensors are
// not aligned to the run.
void launch_run_tiles(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                      cudaStream_t stream) {
  const std::int64_t run_bytes = v.inner * static_cast<std::int64_t>(elem_bytes);
  if (v.inner < 2 || (run_bytes != 4 && run_bytes != 8 && run_bytes != 16))
    throw Error("permute: the run tiles path moves runs of 4, 8 or 16 bytes");
  const core::PermuteView runs{v.batch, v.a, v.b, 1};
  if (widest_unit(run_bytes, in, out) != run_bytes) return launch_tiled_runs(v, in, out, elem_bytes, stream);
  if (run_bytes == 4) launch_tiles<unsigned int, kTile>(runs, in, out, stream);
  else if (run_bytes == 8) launch_tiles<uint2, kTile>(runs, in, out, stream);
  else launch_tiles<uint4, kTile>(runs, in, out, stream);
}

// The paths that move the innermost dimension one element at a time: launch(E{}) with E the element's unsigned type.
template <class Launch>
void launch_innermost(const core::PermuteView& v, const char* path, std::size_t elem_bytes, Launch&& launch) {
  if (!v.moves_innermost()) throw Error(std::string("permute: the ") + path + " path moves the innermost dimension only");
  with_element(elem_bytes, launch);
}

}  // namespace

void launch_permute(const core::PermuteView& v, core::PermutePath path, const void* in, void* out,
                    std::size_t elem_bytes, cudaStream_t stream) {
  if (v.batch * v.a * v.b * v.inner == 0) return;
  if (elem_bytes != 2 && elem_bytes != 4)
    throw Error("permute moves 2- or 4-byte elements, not " + std::to_string(elem_bytes));
  switch (path) {
    case core::PermutePath::tiles:
      launch_innermost(v, "tiles", elem_bytes, [&](auto e) { launch_tiles<decltype(e), kTile>(v, in, out, stream); });
      break;
    case core::PermutePath::tiles_along_a:
      launch_innermost(v, "tiles along a", elem_bytes,
                       [&](auto e) { launch_tiles<decltype(e), kTile, true>(v, in, out, stream); });
      break;
    case core::PermutePath::wide_tiles:
      launch_innermost(v, "wide tiles", elem_bytes,
                       [&](auto e) { launch_tiles<decltype(e), 2 * kTile>(v, in, out, stream); });
      break;
    case core::PermutePath::pair_tiles:
    case core::PermutePath::pair_tiles_deep:
      if (!v.moves_innermost() || elem_bytes != 2)
        throw Error("permute: the pair tiles paths move the innermost dimension of 2-byte elements");
      if (!aligned_to(in, 4) || !aligned_to(out, 4))
        launch_tiles<unsigned short, 2 * kTile>(v, in, out, stream);  // the same tiles, a pair's halves apart
      else if (path == core::PermutePath::pair_tiles)
        launch_pair_tiles<kPairThreads, 0>(v, in, out, stream);
      else
        launch_pair_tiles<kDeepPairThreads, kDeepPairBlocksPerSm>(v, in, out, stream);
      break;
    case core::PermutePath::word_tiles:
      if (!v.moves_innermost() || elem_bytes != 2)
        throw Error("permute: the word tiles path moves the innermost dimension of 2-byte elements");
      if (aligned_to(in, 4) && aligned_to(out, 4)) launch_word_tiles(v, in, out, stream);
      else launch_tiles<unsigned short, 2 * kTile>(v, in, out, stream);  // no word is aligned at both ends
      break;
    case core::PermutePath::rows:
      launch_rows_widest<kInFlight>(v, in, out, elem_bytes, stream);
      break;
    case core::PermutePath::short_rows:
      launch_innermost(v, "short rows", elem_bytes,
                       [&](auto e) { launch_short_rows<decltype(e)>(v, in, out, stream); });
      break;
    case core::PermutePath::short_columns:
      launch_innermost(v, "short columns", elem_bytes,
                       [&](auto e) { launch_short_columns<decltype(e)>(v, in, out, stream); });
      break;
    case core::PermutePath::run_tiles:
      launch_run_tiles(v, in, out, elem_bytes, stream);
      break;
    case core::PermutePath::vector_rows:
      if (v.inner < 2) throw Error("permute: the vector rows path moves runs of 2 or more elements");
      with_element(elem_bytes, [&](auto e) { launch_vector_rows<decltype(e)>(v, in, out, stream); });
      break;
    case core::PermutePath::pair_rows:
      if (!v.moves_innermost() || elem_bytes != 2)
        throw Error("permute: the pair rows path moves the innermost dimension of 2-byte elements");
      if (aligned_to(out, 4)) launch_pair_rows(v, in, out, stream);
      else launch_rows_widest<kInFlight>(v, in, out, elem_bytes, stream);  // no output word is aligned
      break;
    case core::PermutePath::rows_one_unit:
      launch_rows_widest<1>(v, in, out, elem_bytes, stream);
      break;
    case core::PermutePath::strips:
      launch_innermost(v, "strips", elem_bytes, [&](auto e) { launch_strips<decltype(e)>(v, in, out, stream); });
      break;
    case core::PermutePath::planes:
      with_element(elem_bytes, [&](auto e) { launch_planes<decltype(e)>(v, in, out, stream); });
      break;
    case core::PermutePath::runs:
      if (v.inner < 2) throw Error("permute: the runs path moves runs of 2 or more elements");
      launch_runs(v, in, out, elem_bytes, stream);
      break;
    case core::PermutePath::tiled_runs:
      launch_tiled_runs(v, in, out, elem_bytes, stream);
      break;
    case core::PermutePath::copy_kernel:
      if (v.a != 1 && v.b != 1) throw Error("permute: a plain copy runs only a view that moves nothing");
      launch_pointwise(PointwiseOp::copy, elem_bytes == 4 ? core::DType::f32 : core::DType::f16, in, nullptr, nullptr,
                       nullptr, out, 1, v.batch * v.a * v.b * v.inner, stream);
      return;
    case core::PermutePath::copy:
      if (v.a != 1 && v.b != 1) throw Error("permute: a plain copy runs only a view that moves nothing");
      OPMARK_CHECK_CUDA(cudaMemcpyAsync(out, in, static_cast<std::size_t>(v.batch * v.a * v.b * v.inner) * elem_bytes,
                                        cudaMemcpyDeviceToDevice, stream));
      return;
  }
  OPMARK_CHECK_LAUNCH();
}

void launch_permute(const core::PermuteView& v, const void* in, void* out, std::size_t elem_bytes,
                    cudaStream_t stream) {
  launch_permute(v, core::permute_paths(v, static_cast<std::int64_t>(elem_bytes)).front(), in, out, elem_bytes,
                 stream);
}

std::vector<double> permute_reference(const core::PermuteView& v, const std::vector<double>& in) {
  std::vector<double> out(in.size());
  const auto sz = [](std::int64_t x) { return static_cast<std::size_t>(x); };
  for (std::size_t n = 0; n < sz(v.batch); ++n)
    for (std::size_t i = 0; i < sz(v.a); ++i)
      for (std::size_t j = 0; j < sz(v.b); ++j)
        for (std::size_t k = 0; k < sz(v.inner); ++k)
          out[((n * sz(v.b) + j) * sz(v.a) + i) * sz(v.inner) + k] = in[((n * sz(v.a) + i) * sz(v.b) + j) * sz(v.inner) + k];
  return out;
}

}  // namespace opmark::kernels
