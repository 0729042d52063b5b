#pragma once
// How opmark's reduce kernels walk a rows x cols tensor: which threads share a row, where the row is kept between
// reading it and writing the result, and how many times the input is read. A pure host function of the shape, so
// the choice is tested on the CPU (test/core/reduce_path_test.cpp) and named in every case's label.
#include <cstdint>
#include <string>

#include "core/device_defaults.h"

namespace opmark::core {

// The reduce family's ops: the planner's and the kernels' one list.
enum class ReduceOp { sum, mean, max, sum_all, softmax, layernorm, rmsnorm, log_softmax, add_layernorm, add_rmsnorm };
// Every op, in the order the schema lists their names (core/reduce.cpp's reduce_ops).
constexpr ReduceOp kReduceOps[] = {ReduceOp::sum,         ReduceOp::mean,          ReduceOp::max,
                                   ReduceOp::sum_all,     ReduceOp::softmax,       ReduceOp::layernorm,
                                   ReduceOp::rmsnorm,     ReduceOp::log_softmax,   ReduceOp::add_layernorm,
                                   ReduceOp::add_rmsnorm};
// An op's name in a case ("add_layernorm"), and the op of a name (throws opmark::Error for one that is none).
const char* reduce_op_name(ReduceOp op);
ReduceOp reduce_op(const std::string& name);

enum class ReducePath {
  registers,      // a group of threads (1, 8, 32 lanes or the block) holds the row in registers: one read
  shared_memory,  // the block copies the row into shared memory while reducing it: one read
  split_rows,     // (sum, mean, max) several blocks per row, each a partial state, then a small kernel combines them
  rereads,        // (norms) a block per row reads it twice: statistics online as it streams in, then the normalised
                  // row written as it is read again, from L2 (few rows are in flight at once): one read from memory
  two_pass,       // several blocks per row compute partial statistics (online softmax, Welford, sum of squares),
                  // then each normalises its part with the row's combined statistics: the input is read twice
  streaming,      // (sum, mean, max) a group of threads per row reduces as it reads: one read, nothing kept
  all_partials,   // (sum_all) a fixed grid of blocks each reduces a share, then one block sums the partials
  tile,           // short rows: a block copies a run of whole rows (one contiguous span, so 16-byte loads
                  // whatever the row length) into a shared-memory tile, groups of threads reduce and normalise rows
                  // there, and the block writes the span back: one read, few instructions per element. Rows of
                  // tens to hundreds of elements (staged tiles) are copied asynchronously, two tiles in
                  // flight, and taken into registers as the registers path holds them
  cluster,        // (norms) long rows, or rows that are not whole 16-byte vectors: a cluster of blocks per row
                  // (sm_90), each thread keeping 16-byte vectors of it in registers, statistics combined through
                  // the blocks' shared memory: one read
  packed,         // rows of 1, 2, 4 (2-byte elements: or 8) elements: every 16-byte vector holds whole rows, so the
                  // tensor is read and written as a pointwise op's (16-byte vectors, several in flight a thread)
                  // and each thread reduces its vectors' rows in registers: one read
};

struct ReducePlan {
  ReducePath path = ReducePath::streaming;
  bool vectorised = false;  // 16-byte loads (cols a multiple of the vector): the unit below is a vector, else an element
  int group = 32;           // threads sharing a row: 1, 8, 32, kReduceBlockThreads, kRereadThreads, or (cluster
                            // path) kReduceBlockThreads x cluster
  int cache = 0;            // registers path, staged tiles and clusters: units (vectors or elements) each thread keeps
  int cluster = 1;          // cluster path: blocks per row
  int rows_in_flight = 1;   // registers path: rows a group holds at once (registers_rows_in_flight)
  std::int64_t splits = 1;  // split_rows, two_pass: blocks per row
  std::int64_t tile_rows = 0;  // tile: rows per tile
  bool staged = false;      // tile: staged tiles (asynchronous 16-byte copies; kStagedMinCols on)
  std::int64_t blocks = 0;  // rereads: the grid, so the rows in flight at once (a block each) stay in L2
  bool one_shot = false;    // registers path: a block for every block's worth of rows, none looping (else at most
                            // 64 blocks an SM, each looping over rows)
  int passes = 1;           // reads of the input
  std::string label;        // "path: one row per warp in registers, 16-byte loads, 1 read"
};

// The threads of one block in these kernels (kernels/block_reduce.cuh asserts the same number).
constexpr int kReduceBlockThreads = 256;
// Shared memory one block may take on an H100 (227 KiB opt-in per block); the caller gives the device's own.
constexpr std::int64_t kDefaultSharedBytes = 227 * 1024;
// The packed path: rows of at most kPackedMaxCols columns that divide a 16-byte vector's count (1, 2, 4, 8 2-byte
// columns; 1, 2, 4 4-byte). Against the paths they had, both alternating in one process on an H100 (2026-11-24, 64
// MiB, fp16 unless named), packed rows ran at 2770-2900 GB/s (the copy's 2994) everywhere: softmax over 1 column
// 53.7 us (one row a thread in registers, 8 at once) -> 48.5, over 2 101.8 (tiles) -> 47.6, 4 394.7 -> 47.3, 8
// 202.5 -> 47.2; layer norm over 1 126.1 -> 47.6, 4 457.2 -> 47.4; add + layer norm over 1 146.0 -> 93.4; sum over
// 1 86.6 (tiles) -> 46.9, 2 52.8 -> 35.0, 4 191.4 -> 29.1, 8 28.4 (streamed) -> 26.3; fp32 softmax over 1 47.3 ->
// 47.5 (level), 2 61.6 -> 47.1, 4 210.5 -> 47.1; fp32 sum over 1 49.8 -> 46.8.
constexpr std::int64_t kPackedMaxCols = 8;
bool packs_rows(std::int64_t cols, std::int64_t elem_bytes);

// The tile path, for rows the packed path does not take: rows of kTileMinCols to kTileMaxCols columns (sum, mean
// and max: at most kTileMaxSumCols, or an odd number up to kTileMaxOddSumCols), kTileBytes of them a tile. Measured
// on an H100 against the register paths (fp16 sweep_shapes, 2026-11-24): tiles won at 7 columns (softmax 218 -> 76
// us, layer norm 353 -> 84) and, for sum/mean/max, at 1 (102 -> 74; packed rows since); they lost at 31 and 97
// columns (softmax 82 -> 134, 111 -> 155) and for the normalisations at 1 (116 -> 153). Sums over odd rows (a thread
// a row, at an odd stride: no bank conflicts) against streaming, both in one process (64 MiB, fp16 unless named): 5
// columns 167.6 -> 40.6 us, 7 120.7 -> 36.9, 31 42.3 -> 26.6, 97 61.2 -> 28.0, 197 38.1 -> 30.5, 255 30.8 -> 25.7,
// fp32 over 7 60.3 -> 32.4 and over 197 29.8 -> 25.2; but 513 28.8 -> 38.6 and 1001 29.2 -> 46.1. Even rows gained
// at most 7% (6, 10, 14 columns; 8 threads a row) or lost (8 and 16 columns, read as aligned vectors: 28.6 -> 99.3,
// 25.4 -> 60.0), and stay streamed.

constexpr std::int64_t kTileMinCols = 2;
constexpr std::int64_t kTileMaxCols = 16;
constexpr std::int64_t kTileMaxSumCols = 4;
constexpr std::int64_t kTileMaxOddSumCols = 255;
constexpr std::int64_t kTileBytes = 16 * 1024;

// Staged tiles, the tile path for rows the registers path would read element by element (not whole 16-byte vectors)
// from kStagedMinCols to kStagedMaxCols columns: a block copies tiles of whole rows into shared memory as
// asynchronous 16-byte copies and the registers path's groups (its group and cache) take each row from there. A
// block walking several tiles has the next one's copies in flight while it works (two buffers); on a grid of a block
// a tile (kernels/reduce/common.cuh's grid_for: up to 64 blocks a multiprocessor, every 64 MiB sweep tensor) there is
// one buffer. Capping the grid so blocks walk 2 to 8 tiles each was slower everywhere (fp16 softmax over 31 columns
// 53.1 -> 55.8 to 63.6 us, sum over 97 26.0 -> 27.8 to 30.4; H100, 2026-11-24). A tile holds kStagedTileBytes of x (the residual ops: kStagedAddTileBytes each of x and the
// residual). Against the registers path, alternating in one process on an H100 (2026-11-24, 64 MiB, fp16 unless
// named; 16 and 24 KiB tiles):
// - add + layer norm and add + RMSNorm gained at 17 to 255 columns: add + RMSNorm over 31 174.7 -> 97.7 us, over 197
//   122.8 -> 97.1; add + layer norm over 31 169.0 -> 132.6, 97 124.0 -> 108.5; fp32 add + RMSNorm over 31 166.2 ->
//   97.8. Slower only add + RMSNorm over 65 to 128 columns (a warp, 4 a lane), in three calls (97: 126.3 -> 130.6,
//   126.7 -> 131.4; bf16 125.8 -> 132.7; fp32 108.1 -> 119.7, 108.4 -> 114.7; 127: 116.0 -> 116.8): those stay.
// - RMSNorm over 2-byte rows of up to 128 columns: 17 81.9 -> 63.4, 31 67.1 -> 50.4, 97 58.2 -> 54.4; softmax over
//   31 59.6 -> 52.5, 127 55.2 -> 48.8, and level at 33 (75.4 -> 76.3). RMSNorm past 128: 151 54.1 -> 57.9.
// - layer norm gained over rows of up to 32 columns (31: 67.5 -> 60.6) and lost past them (63: 57.1 -> 67.1, 97
//   64.8 -> 75.4; gamma and beta from L1 instead of registers there: 78.5).
// - softmax and log_softmax gained where the row fills its group's registers (group x cache): log_softmax over 31
//   64.3 -> 57.5, 97 61.8 -> 60.2, 113 58.9 -> 55.2, 127 56.8 -> 49.3, 255 51.4 -> 48.8; softmax over 63 55.8 ->
//   54.8, 255 51.0 -> 48.7. They lost where it does not: log_softmax over 33 (16 lanes, 4 each) 81.2 -> 87.0, 65 (16
//   lanes, 8 each) 64.4 -> 73.2, 151 (a warp, 8 each) 55.2 -> 65.6, 197 52.0 -> 60.1 (softmax 51.2 -> 57.9); level at
//   80 (49.8 -> 48.0, bf16 47.5 -> 48.0). Over 63 (16 lanes, 4 each, nearly full) log_softmax lost (56.7 -> 60.2)
//   and softmax gained 2%; over 17 (8 lanes, 4 each, half full) softmax gained 7% (78.9 -> 73.7) and log_softmax was
//   level, left out by the rule. Staged: rows at least three quarters of 8 lanes' or of 16 lanes' with 8 each, 95% of a
//   warp's.
// - fp32 softmax and layer norm lost at 31 to 197 columns (softmax over 31 46.6 -> 49.3), and stay in registers.
// - sum, mean and max over odd rows (their tiles, a thread a row) from 7 columns: 7 36.9 -> 31.2 us, 13 33.3 -> 28.5,
//   17 31.9 -> 28.0, 63 29.3 -> 26.6, 97 28.0 -> 25.9, 197 30.5 -> 25.9; level at 31, 127 and 255 (26.6 -> 27.0,
//   25.4 -> 25.0, 25.7 -> 25.5) and in fp32 (17 to 255: 26.0 -> 25.8 at 17, 26.7 -> 25.6 at 97). 8 or 32 threads
//   a row there were slower (fp16 over 31: 45.1 and 93.2).
constexpr std::int64_t kStagedSumMinCols = 7;
constexpr std::int64_t kStagedMinCols = kTileMaxCols + 1;
constexpr std::int64_t kStagedMaxCols = 256;
constexpr std::int64_t kStagedTileBytes = 16 * 1024;
constexpr std::int64_t kStagedAddTileBytes = 12 * 1024;

// Rows too long for registers that fit one block's shared memory. softmax and log_softmax copy the row into shared
// memory and take its max, then its sum of exponentials, from there (one exponential an element; online statistics
// over a stream take two). The norms read the row twice instead (rereads), the second time from L2: blocks of
// kRereadThreads, two a multiprocessor for rows up to kRereadTwoPerSmBytes (fewer rows in flight keep the second read
// in L2), else one. Measured both ways on an H100 (2026-11-24, 32000 and 50257 columns): softmax 25% faster in
// shared memory (fp16 50257: 54.7 against 71.3 us); layer norm over 32000 fp32 columns 25% faster as rereads (142.5
// against 190.0 us), RMSNorm over 50257 fp32 columns 18% (161.7 against 198.0); fp16 and bf16 norms within 10%.
// Most such rows of the norms now go to clusters (kMostClusterBlocks); rereads keep layer norm and add + layer norm
// over 2-byte elements up to kClusterTwoByteLayerNormMinCols.
constexpr int kRereadThreads = 512;
constexpr std::int64_t kRereadTwoPerSmBytes = 128 * 1024;

// The cluster path: at most kMostClusterBlocks blocks a row (past 8, a cluster size an H100 or H200 allows but not
// every sm_90 part promises: the launch asks for it), and rows that are not whole 16-byte vectors from more than
// kClusterUnalignedMinCols columns (measured at 4095; from 2049 to 4094 not measured). reduce_path.cpp's
// clusters_rows says where the path won.
constexpr int kMostClusterBlocks = 16;
constexpr std::int64_t kClusterUnalignedMinCols = 2048;
// The residual ops take clusters for rows of more than this many 16-byte vectors, which one block would hold only
// with 8 or 16 a thread.
constexpr std::int64_t kClusterResidualMinVectors = 2048;
// Layer norm and add + layer norm over 2-byte elements take the cluster path only for rows of more than these many
// columns (layer norm lost at 32000 and won from 50257; add + layer norm won at 32000: reduce_path.cpp).
constexpr std::int64_t kClusterTwoByteLayerNormMinCols = 32768;
constexpr std::int64_t kClusterTwoByteAddLayerNormMinCols = 16384;

// Rows a thread of the registers path holds at once where it holds a row alone (group 1, `cache` units of
// unit_bytes each): enough for about 32 bytes in flight. A softmax over one fp16 column went from 116 to 81 us
// (PyTorch's 81) with 8 rows a thread, on an H100 (2026-11-24). Rows that short are packed or tiled where the
// tensors are aligned; unaligned ones come here. Groups of 8 and 32 lanes keep one row: 2 or 4 rows a
// warp at once made rows of 31 to 197 columns 10-40% slower there (softmax over 97 fp16 columns 111 -> 126 us; the
// cache's registers halved the warps a multiprocessor holds), and with the exact two-step statistics 2 rows a warp
// were still within 3% at 97 columns and 10% slower at 197. A constant expression: the kernels take it as a
// template constant.
constexpr int registers_rows_in_flight(int group, int cache, std::int64_t unit_bytes) {
  if (group != 1 || cache * unit_bytes >= 32) return 1;
  const std::int64_t rows = 32 / (cache * unit_bytes);
  return rows >= 8 ? 8 : rows >= 4 ? 4 : rows >= 2 ? 2 : 1;
}

// Streaming sums over rows that do not start on 16-byte boundaries read 16-byte vectors past each row's start from
// this many columns on, elements below it (kernels/reduce/sums.cuh's streaming_kernel says why). From 16384 down to
// 2048: sums over 4095 columns 28.8 -> 27.5 us in fp16 (PyTorch 26.6) and 46.5 -> 44.1 in fp32 (H100, 2026-11-24).
constexpr std::int64_t kStreamingPiecesMinCols = 2048;
bool streaming_reads_pieces(const ReducePlan& plan, std::int64_t cols);

// Reads of the input that memory serves: the plan's passes, but one for rereads (the second read comes from L2).
int memory_reads(const ReducePlan& plan);

// Whether the op writes a rows x cols result (softmax, log_softmax and the norms) rather than one value per row.
bool reduce_normalises(ReduceOp op);
// Whether the op is softmax or log_softmax (a max and a sum of exponentials per row).
bool reduce_is_softmax(ReduceOp op);
// Whether the op adds a residual first (add_layernorm, add_rmsnorm) and writes the sum beside the result.
bool reduce_adds_residual(ReduceOp op);
// The same for an op's name (a case's field); they throw where the name is not an op.
bool reduce_normalises(const std::string& op);
bool reduce_is_softmax(const std::string& op);
bool reduce_adds_residual(const std::string& op);

// The plan for `op` on rows x cols elements of elem_bytes each. `aligned`: every tensor a row is read from or written
// to starts on a 16-byte boundary (the caller checks the pointers); rows are then read as 16-byte vectors where cols
// is a multiple of the vector. The packed and tile paths read whole tensors as 16-byte vectors and need it; without
// it short rows take the registers path (normalisations) or are streamed (sums), both read element by element.
// `shared_bytes`: the most shared memory one block may use; `sms`: the device's multiprocessors (few rows of long
// columns are split over blocks).
ReducePlan reduce_plan(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                       bool aligned, std::int64_t shared_bytes = kDefaultSharedBytes, int sms = kDefaultSms);

}  // namespace opmark::core
