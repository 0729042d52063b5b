#pragma once
// How opmark's reduce kernels walk a rows x cols tensor: which threads share a row, where the row is kept between
// reading it and writing the result, and how many times the input is read. A pure host function of the shape, so
// the choice is tested on the CPU (test/core/reduce_path_test.cpp) and named in every case's label. The
// measurements behind each threshold here and in reduce_path.cpp: docs/reduce.md.
#include <cstdint>
#include <string>
#include <vector>

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
  std::int64_t blocks = 0;  // rereads: the grid, so the rows in flight at once (a block each) stay in L2; all_partials:
                            // the blocks of partial sums
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
// columns; 1, 2, 4 4-byte). It ran near copy speed wherever it applies, ahead of every path such rows had.
constexpr std::int64_t kPackedMaxCols = 8;
bool packs_rows(std::int64_t cols, std::int64_t elem_bytes);

// The tile path, for rows the packed path does not take: rows of kTileMinCols to kTileMaxCols columns (sum, mean
// and max: at most kTileMaxSumCols, or an odd number up to kTileMaxOddSumCols), kTileBytes of them a tile: where
// tiles won against the registers and streaming paths (even sum rows gained little or lost, and stay streamed).

constexpr std::int64_t kTileMinCols = 2;
constexpr std::int64_t kTileMaxCols = 16;
constexpr std::int64_t kTileMaxSumCols = 4;
constexpr std::int64_t kTileMaxOddSumCols = 255;
constexpr std::int64_t kTileBytes = 16 * 1024;

// Staged tiles, the tile path for rows the registers path would read element by element (not whole 16-byte vectors)
// from kStagedMinCols to kStagedMaxCols columns: a block copies tiles of whole rows into shared memory as
// asynchronous 16-byte copies and the registers path's groups (its group and cache) take each row from there. A
// block walking several tiles has the next one's copies in flight while it works (two buffers); on a grid of a block
// a tile (kernels/reduce/common.cuh's grid_for) there is one buffer, and a grid capped so that blocks walk several
// tiles was slower. A tile holds kStagedTileBytes of x (the residual ops: kStagedAddTileBytes each of x and the
// residual). Which ops and lengths are staged (reduce_path.cpp's stages_rows) is where staging won against the
// registers path; sums over odd rows from kStagedSumMinCols columns.
constexpr std::int64_t kStagedSumMinCols = 7;
constexpr std::int64_t kStagedMinCols = kTileMaxCols + 1;
constexpr std::int64_t kStagedMaxCols = 256;
constexpr std::int64_t kStagedTileBytes = 16 * 1024;
constexpr std::int64_t kStagedAddTileBytes = 12 * 1024;

// Rows too long for registers that fit one block's shared memory. softmax and log_softmax copy the row into shared
// memory and take its max, then its sum of exponentials, from there (one exponential an element; online statistics
// over a stream take two). The norms read the row twice instead (rereads), the second time from L2: blocks of
// kRereadThreads, two a multiprocessor for rows up to kRereadTwoPerSmBytes (fewer rows in flight keep the second read
// in L2), else one. Most such rows of the norms now go to clusters (kMostClusterBlocks); rereads keep layer norm and
// add + layer norm over 2-byte elements up to kClusterTwoByteLayerNormMinCols.
constexpr int kRereadThreads = 512;
constexpr std::int64_t kRereadTwoPerSmBytes = 128 * 1024;

// The cluster path: at most kMostClusterBlocks blocks a row (past 8, a cluster size an H100 or H200 allows but not
// every sm_90 part promises: the launch asks for it), and rows that are not whole 16-byte vectors from more than
// kClusterUnalignedMinCols columns (measured at 4095; from 2049 to 4094 not measured). reduce_path.cpp's
// clusters_rows says where the path won (the numbers: docs/reduce.md).
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
// unit_bytes each): enough for about 32 bytes in flight. Rows that short are packed or tiled where the tensors are
// aligned; unaligned ones come here. Groups of 8 and 32 lanes keep one row: several rows a warp halved the warps a
// multiprocessor holds, and were slower. A constant expression: the kernels take it as a template constant.
constexpr int registers_rows_in_flight(int group, int cache, std::int64_t unit_bytes) {
  if (group != 1 || cache * unit_bytes >= 32) return 1;
  const std::int64_t rows = 32 / (cache * unit_bytes);
  return rows >= 8 ? 8 : rows >= 4 ? 4 : rows >= 2 ? 2 : 1;
}

// Streaming sums over rows that do not start on 16-byte boundaries read 16-byte vectors past each row's start from
// this many columns on, elements below it (kernels/reduce/sums.cuh's streaming_kernel says why).
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

// sum_all's grid: kSumAllBlocks blocks of partial sums by default; its candidates go up to kSumAllMostBlocks.
constexpr std::int64_t kSumAllBlocks = 1024;
constexpr std::int64_t kSumAllMostBlocks = 8192;
// Tensors of up to this many elements also list one block that sums everything in one launch.
constexpr std::int64_t kSumAllOneBlockMostElements = std::int64_t{1} << 20;

// The plan for `op` on rows x cols elements of elem_bytes each. `aligned`: every tensor a row is read from or written
// to starts on a 16-byte boundary (the caller checks the pointers); rows are then read as 16-byte vectors where cols
// is a multiple of the vector. The packed and tile paths read whole tensors as 16-byte vectors and need it; without
// it short rows take the registers path (normalisations) or are streamed (sums), both read element by element.
// `shared_bytes`: the most shared memory one block may use; `sms`: the device's multiprocessors (few rows of long
// columns are split over blocks).
ReducePlan reduce_plan(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                       bool aligned, std::int64_t shared_bytes = kDefaultSharedBytes, int sms = kDefaultSms);

// Every plan the kernels can run for the shape that may beat reduce_plan's, reduce_plan's first: the tuner's
// candidates (the family times them and keeps the fastest, as it keeps a library's algorithm). For the
// normalisations, the registers path with each group that holds the row (one row per thread, 8 or 16 threads, a warp,
// the block: several rows a warp where the rows are short, more threads a row where they are few), the one-shot grid
// or not, a cluster of blocks per row, the shared-memory and two-pass paths; for sum, mean and max, streaming with
// fewer or more threads a row and split rows; for sum_all, larger grids, and one block for small tensors. Labels
// are unique.
std::vector<ReducePlan> reduce_plans(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                                     bool aligned, std::int64_t shared_bytes = kDefaultSharedBytes,
                                     int sms = kDefaultSms);

}  // namespace opmark::core
