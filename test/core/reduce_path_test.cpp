// The reduce kernels' path choice (core/reduce_path.h), a pure function of the shape: which threads share a row,
// where it is kept, how many reads of the input, and the label that says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/reduce_path.h"

using namespace opmark::core;

namespace {

// An H100: 227 KiB of shared memory a block less the kernels' 2 KiB, 132 multiprocessors.
constexpr std::int64_t kShared = 227 * 1024 - 2048;
// `vec`: whether every row starts on a 16-byte boundary. Rows of whole vectors that do not are rows of tensors off
// a boundary; other rows are of aligned tensors.
ReducePlan plan(const char* op, std::int64_t rows, std::int64_t cols, std::int64_t elem, bool vec) {
  return reduce_plan(reduce_op(op), rows, cols, elem, /*aligned=*/vec || cols % (16 / elem) != 0, kShared, 132);
}
// Rows holding 32 Mi elements, as the sweep_shapes set writes them.
std::int64_t rows_for(std::int64_t cols) { return (33554432 + cols / 2) / cols; }

}  // namespace

TEST(ReducePath, VeryShortRowsAreStagedInSharedMemoryTiles) {
  // 2 to 16 columns (sum, mean, max: 1 to 4) whole rows are copied as one span into a 16 KiB tile.
  const ReducePlan seven = plan("layernorm", rows_for(7), 7, 2, false);  // odd: a thread's rows miss each other's banks
  EXPECT_EQ(seven.path, ReducePath::tile);
  EXPECT_EQ(seven.group, 1);
  EXPECT_EQ(seven.tile_rows, 1170);
  EXPECT_FALSE(seven.staged);  // copied in one go, from registers
  EXPECT_EQ(seven.passes, 1);
  EXPECT_EQ(seven.label, "path: one row per thread, 1170-row tiles in shared memory, 16-byte loads, 1 read");
  EXPECT_EQ(plan("softmax", rows_for(16), 16, 4, true).group, 8);  // even: 8 threads share a row
  EXPECT_EQ(plan("add_rmsnorm", rows_for(3), 3, 4, false).group, 1);
  EXPECT_EQ(plan("add_rmsnorm", rows_for(16), 16, 4, true).path, ReducePath::tile);
  // Even rows go a thread a row unless their stride is a multiple of 32 bytes (8 or more threads a bank).
  for (std::int64_t cols : {6, 10, 12, 14}) EXPECT_EQ(plan("layernorm", rows_for(cols), cols, 2, false).group, 1);
  for (std::int64_t cols : {6, 10, 12, 14})
    EXPECT_EQ(plan("softmax", rows_for(cols), cols, 4, cols % 4 == 0).group, 1);
  // Rows of two 16-byte vectors: one thread's registers.
  for (const auto& [cols, elem] : {std::pair<std::int64_t, std::int64_t>{16, 2}, {8, 4}}) {
    const ReducePlan two = plan("rmsnorm", rows_for(cols), cols, elem, true);
    EXPECT_EQ(two.path, ReducePath::registers) << cols;
    EXPECT_EQ(two.group, 1) << cols;
    EXPECT_EQ(two.cache, 4) << cols;
  }
  // 17 columns: past the short tiles, a staged tile (8 threads a row in registers).
  const ReducePlan seventeen = plan("add_rmsnorm", rows_for(17), 17, 4, false);
  EXPECT_TRUE(seventeen.staged);
  EXPECT_EQ(seventeen.group, 8);
  const ReducePlan sum = plan("sum", rows_for(3), 3, 2, false);
  EXPECT_EQ(sum.path, ReducePath::tile);
  EXPECT_EQ(sum.tile_rows, 2730);
  EXPECT_EQ(plan("mean", rows_for(3), 3, 4, false).path, ReducePath::tile);
  EXPECT_EQ(plan("max", rows_for(6), 6, 2, false).path, ReducePath::streaming);
}

TEST(ReducePath, RowsThatDivideAVectorArePacked) {
  // 1, 2, 4 (or 8 2-byte) columns: a 16-byte vector holds whole rows, read and written as a pointwise op's.
  for (const char* op : {"sum", "mean", "max", "softmax", "log_softmax", "layernorm", "rmsnorm", "add_layernorm",
                         "add_rmsnorm"})
    for (std::int64_t elem : {2, 4})
      for (std::int64_t cols : {1, 2, 4, 8}) {
        const ReducePlan p = plan(op, rows_for(cols), cols, elem, cols % (16 / elem) == 0);
        SCOPED_TRACE(std::string(op) + " " + std::to_string(elem) + " bytes, " + std::to_string(cols) + " cols");
        if (cols * elem > 16) {
          EXPECT_NE(p.path, ReducePath::packed);
          continue;
        }
        EXPECT_EQ(p.path, ReducePath::packed);
        EXPECT_TRUE(p.vectorised);
        EXPECT_EQ(p.passes, 1);
        EXPECT_EQ(p.label, "path: one thread per 16-byte vector of " + std::to_string(16 / elem / cols) +
                               " whole rows, 16-byte loads, 1 read");
      }
  EXPECT_TRUE(packs_rows(8, 2));
  EXPECT_FALSE(packs_rows(8, 4));   // 32 bytes
  EXPECT_FALSE(packs_rows(3, 2));   // 3 does not divide 8
  EXPECT_FALSE(packs_rows(16, 1));  // past kPackedMaxCols
  EXPECT_EQ(plan("sum_all", 1, 1, 2, false).path, ReducePath::all_partials);
}

TEST(ReducePath, UnalignedTensorsReadShortRowsElementByElement) {
  // Packed rows and tiles read whole tensors as 16-byte vectors. A tensor off a 16-byte boundary (a slice of a larger
  // one) sends short rows to the registers path (normalisations) or streams them (sums), both element by element.
  const bool unaligned = false;
  for (const char* op : {"softmax", "layernorm", "add_rmsnorm", "sum", "max"})
    for (std::int64_t cols : {1, 2, 4, 7, 8, 13, 16, 31}) {
      const ReducePlan p = reduce_plan(reduce_op(op), rows_for(cols), cols, 2, unaligned, kShared, 132);
      SCOPED_TRACE(std::string(op) + " " + std::to_string(cols) + " cols");
      EXPECT_EQ(p.path, reduce_normalises(op) ? ReducePath::registers : ReducePath::streaming);
      EXPECT_FALSE(p.vectorised);
      EXPECT_NE(p.label.find("element loads"), std::string::npos) << p.label;
    }
  // One column a thread, 8 rows at once (about 32 bytes in flight).
  EXPECT_EQ(reduce_plan(ReduceOp::softmax, 1000, 1, 2, unaligned, kShared, 132).rows_in_flight, 8);
  // Rows of whole vectors are read as vectors only where the tensors are aligned.
  EXPECT_TRUE(reduce_plan(ReduceOp::layernorm, 8192, 4096, 2, true, kShared, 132).vectorised);
  EXPECT_FALSE(reduce_plan(ReduceOp::layernorm, 8192, 4095, 2, true, kShared, 132).vectorised);
  EXPECT_FALSE(reduce_plan(ReduceOp::layernorm, 8192, 4096, 2, unaligned, kShared, 132).vectorised);
  EXPECT_EQ(reduce_plan(ReduceOp::layernorm, 8192, 4096, 2, unaligned, kShared, 132).path, ReducePath::registers);
}

TEST(ReducePath, ShortRowsGoToSmallGroupsInRegisters) {
  // A lane holding one short row alone holds several at once (about 32 bytes in flight).
  EXPECT_EQ(registers_rows_in_flight(1, 1, 4), 8);
  EXPECT_EQ(registers_rows_in_flight(1, 1, 2), 8);
  EXPECT_EQ(registers_rows_in_flight(1, 4, 4), 2);
  EXPECT_EQ(registers_rows_in_flight(32, 1, 2), 1);
  EXPECT_EQ(plan("layernorm", rows_for(31), 31, 2, false).group, 8);
  const ReducePlan warp = plan("softmax", rows_for(197), 197, 2, false);  // odd: elements, 7 per lane
  EXPECT_EQ(warp.path, ReducePath::registers);
  EXPECT_EQ(warp.group, 32);
  EXPECT_EQ(warp.cache, 8);
  EXPECT_EQ(warp.rows_in_flight, 1);  // groups of 8 and 32 keep one row (several were slower)
  EXPECT_EQ(warp.label, "path: one row per warp in registers, element loads, 1 read");
  EXPECT_EQ(plan("softmax", rows_for(97), 97, 2, false).rows_in_flight, 1);
  // 33 to 64 elements: 16 lanes a row, every op and precision (a warp used half its cache there).
  for (const char* op : {"softmax", "log_softmax", "layernorm", "rmsnorm", "add_layernorm"})
    for (int bytes : {2, 4}) {
      const ReducePlan half_warp = plan(op, rows_for(63), 63, bytes, false);
      EXPECT_EQ(half_warp.group, 16) << op << " " << bytes;
      EXPECT_EQ(half_warp.cache, 4) << op << " " << bytes;
      EXPECT_EQ(plan(op, rows_for(33), 33, bytes, false).group, 16) << op << " " << bytes;
      EXPECT_EQ(plan(op, rows_for(512), 512, 2, true).group, 32) << op;  // 64 16-byte vectors: a warp, as before
    }
  EXPECT_EQ(plan("layernorm", rows_for(63), 63, 2, false).label,
            "path: 16 threads per row in registers, element loads, 1 read");
  // 65 to 128 2-byte elements: 16 lanes with 8 each for softmax and log_softmax only.
  const ReducePlan pairs = plan("log_softmax", rows_for(97), 97, 2, false);
  EXPECT_EQ(pairs.group, 16);
  EXPECT_EQ(pairs.cache, 8);
  EXPECT_EQ(plan("softmax", rows_for(128), 127, 2, false).group, 16);
  EXPECT_EQ(plan("softmax", rows_for(97), 97, 4, false).group, 32);  // fp32: a warp
  EXPECT_EQ(plan("rmsnorm", rows_for(97), 97, 2, false).group, 32);  // the norms: a warp
  EXPECT_EQ(plan("layernorm", rows_for(97), 97, 2, false).group, 32);
  // One-shot grids: 4-byte elements, 8 to 32 lanes a row, softmax, log_softmax, RMSNorm, and layer norm with 4 a lane.
  EXPECT_TRUE(plan("softmax", rows_for(97), 97, 4, false).one_shot);
  EXPECT_EQ(plan("softmax", rows_for(97), 97, 4, false).label,
            "path: one row per warp in registers, one-shot grid, element loads, 1 read");
  EXPECT_TRUE(plan("log_softmax", rows_for(31), 31, 4, false).one_shot);
  EXPECT_TRUE(plan("rmsnorm", rows_for(197), 197, 4, false).one_shot);
  EXPECT_TRUE(plan("layernorm", rows_for(97), 97, 4, false).one_shot);
  EXPECT_FALSE(plan("layernorm", rows_for(197), 197, 4, false).one_shot);   // 8 a lane
  EXPECT_FALSE(plan("add_rmsnorm", rows_for(97), 97, 4, false).one_shot);   // not measured
  EXPECT_FALSE(plan("softmax", rows_for(97), 97, 2, false).one_shot);       // 2-byte elements
  EXPECT_FALSE(plan("softmax", rows_for(400), 400, 4, true).one_shot);      // 16-byte vectors
}

TEST(ReducePath, RowsOfTensToHundredsOfElementsAreStagedWhereThatWon) {
  // Rows not of whole vectors, 17 to 256 columns: the registers path's group and cache, rows taken from tiles copied
  // asynchronously.
  const ReducePlan rms = plan("rmsnorm", rows_for(31), 31, 2, false);
  EXPECT_EQ(rms.path, ReducePath::tile);
  EXPECT_EQ(rms.group, 8);
  EXPECT_EQ(rms.cache, 4);
  EXPECT_TRUE(rms.vectorised);
  EXPECT_TRUE(rms.staged);
  EXPECT_EQ(rms.tile_rows, 16384 / 62);
  EXPECT_EQ(rms.passes, 1);
  EXPECT_EQ(rms.label,
            "path: 8 threads per row in registers from 264-row tiles in shared memory (asynchronous copies), "
            "16-byte loads, 1 read");
  // The residual ops: every precision, up to 256 columns, 12 KiB of x and 12 of the residual a tile.
  for (std::int64_t bytes : {2, 4})
    for (std::int64_t cols : {17, 31, 97, 197, 255}) {
      const ReducePlan add = plan("add_layernorm", rows_for(cols), cols, bytes, false);
      EXPECT_EQ(add.path, ReducePath::tile) << cols;
      EXPECT_GT(add.cache, 0) << cols;
      EXPECT_EQ(add.tile_rows, 12288 / (cols * bytes)) << cols;
    }
  EXPECT_EQ(plan("add_rmsnorm", rows_for(257), 257, 2, false).path, ReducePath::registers);  // past 256
  EXPECT_EQ(plan("add_rmsnorm", rows_for(97), 97, 2, false).path, ReducePath::registers);    // slower staged
  EXPECT_EQ(plan("add_rmsnorm", rows_for(197), 197, 4, false).path, ReducePath::tile);
  EXPECT_EQ(plan("add_rmsnorm", rows_for(96), 96, 2, true).path, ReducePath::registers);     // whole vectors
  // softmax and RMSNorm over 2-byte rows up to 128 columns, layer norm and log_softmax up to 32; fp32 stays.
  EXPECT_EQ(plan("softmax", rows_for(127), 127, 2, false).path, ReducePath::tile);
  EXPECT_EQ(plan("softmax", rows_for(197), 197, 2, false).path, ReducePath::registers);
  EXPECT_EQ(plan("log_softmax", rows_for(31), 31, 2, false).path, ReducePath::tile);
  EXPECT_EQ(plan("log_softmax", rows_for(63), 63, 2, false).path, ReducePath::registers);  // 16 x 4: not staged
  EXPECT_EQ(plan("log_softmax", rows_for(33), 33, 2, false).path, ReducePath::registers);  // 33 of 16 x 4
  EXPECT_EQ(plan("softmax", rows_for(81), 81, 2, false).path, ReducePath::registers);      // 81 of 16 x 8
  EXPECT_EQ(plan("log_softmax", rows_for(97), 97, 2, false).path, ReducePath::tile);       // 97 of 16 x 8
  EXPECT_EQ(plan("softmax", rows_for(255), 255, 2, false).path, ReducePath::tile);         // 255 of 32 x 8
  EXPECT_EQ(plan("log_softmax", rows_for(197), 197, 2, false).path, ReducePath::registers);  // 197 of 32 x 8
  EXPECT_EQ(plan("layernorm", rows_for(97), 97, 2, false).path, ReducePath::registers);
  EXPECT_EQ(plan("softmax", rows_for(31), 31, 4, false).path, ReducePath::registers);
  // Unaligned tensors cannot be copied as vectors: the registers path reads them.
  EXPECT_EQ(reduce_plan(ReduceOp::add_layernorm, 1000, 31, 2, /*aligned=*/false, kShared, 132).path,
            ReducePath::registers);
}

TEST(ReducePath, LongerRowsGoToTheSmallestRegisterCacheThatHoldsThem) {
  const ReducePlan warp = plan("softmax", rows_for(512), 512, 2, true);  // 64 vectors: 2 per lane
  EXPECT_EQ(warp.path, ReducePath::registers);
  EXPECT_EQ(warp.group, 32);
  EXPECT_EQ(warp.cache, 4);
  EXPECT_EQ(warp.rows_in_flight, 1);  // 64 bytes a lane already
  EXPECT_EQ(warp.label, "path: one row per warp in registers, 16-byte loads, 1 read");
  EXPECT_EQ(plan("layernorm", rows_for(2048), 2048, 2, true).cache, 8);   // 256 vectors: 8 per lane
  // 512 vectors (2048 fp32 columns, 4096 fp16): the block, 4 per thread; a warp keeps up to 256 vectors
  const ReducePlan wide = plan("softmax", rows_for(2048), 2048, 4, true);
  EXPECT_EQ(wide.group, kReduceBlockThreads);
  EXPECT_EQ(wide.cache, 4);
  EXPECT_EQ(plan("layernorm", rows_for(4096), 4096, 2, true).group, kReduceBlockThreads);
  EXPECT_EQ(plan("layernorm", rows_for(2056), 2056, 2, true).group, kReduceBlockThreads);  // 257 vectors
  const ReducePlan odd = plan("softmax", rows_for(401), 401, 2, false);  // odd: elements, 13 per lane
  EXPECT_EQ(odd.group, 32);
  EXPECT_EQ(odd.cache, 16);  // 401 elements: past 32 x 8
  EXPECT_EQ(odd.rows_in_flight, 1);  // 16 fp16 elements a lane: 32 bytes
  EXPECT_EQ(odd.label, "path: one row per warp in registers, element loads, 1 read");
}

TEST(ReducePath, LongerRowsTakeTheBlockThenClustersOrSharedMemoryThenTwoPasses) {
  const ReducePlan block = plan("layernorm", rows_for(12288), 12288, 2, true);  // 1536 vectors over 256 threads
  EXPECT_EQ(block.path, ReducePath::registers);
  EXPECT_EQ(block.group, kReduceBlockThreads);
  EXPECT_EQ(block.cache, 8);
  EXPECT_EQ(block.passes, 1);
  EXPECT_EQ(plan("layernorm", rows_for(32000), 32000, 2, true).cache, 16);  // 4000 vectors
  // 50257 odd columns: 98 KiB (fp16) or 196 KiB (fp32) a row. softmax: in shared memory, read once; layer norm over
  // a cluster of blocks in registers.
  for (std::int64_t elem : {2, 4}) {
    const ReducePlan shared = plan("softmax", rows_for(50257), 50257, elem, false);
    EXPECT_EQ(shared.path, ReducePath::shared_memory) << elem;
    EXPECT_EQ(shared.passes, 1);
    EXPECT_EQ(shared.label,
              "path: block per row, shared memory, 16-byte loads past each row's unaligned start, 1 read");
  }
  const ReducePlan two_byte = plan("layernorm", rows_for(50257), 50257, 2, false);  // 6283 vectors
  EXPECT_EQ(two_byte.path, ReducePath::cluster);
  EXPECT_EQ(two_byte.cluster, 7);  // 7 x 256 x 4
  EXPECT_EQ(two_byte.cache, 4);
  const ReducePlan cluster = plan("layernorm", rows_for(50257), 50257, 4, false);  // 12565 vectors
  EXPECT_EQ(cluster.path, ReducePath::cluster);
  EXPECT_EQ(cluster.cluster, 7);  // 7 x 256 x 8 = 14336 slots; 4 a thread would take 13 blocks
  EXPECT_EQ(cluster.cache, 8);
  EXPECT_EQ(cluster.passes, 1);
  EXPECT_EQ(cluster.label, "path: row over a cluster of 7 blocks, 8 16-byte vectors a thread in registers, 16-byte "
                           "loads past each row's unaligned start, 1 read");
  EXPECT_EQ(plan("rmsnorm", rows_for(50257), 50257, 2, false).cluster, 7);  // 6283 vectors: 7 x 256 x 4
  EXPECT_EQ(plan("softmax", rows_for(32000), 32000, 4, true).path, ReducePath::shared_memory);  // 8000 vectors
  const ReducePlan even = plan("layernorm", rows_for(32000), 32000, 4, true);  // 8192 slots either way: the larger
  EXPECT_EQ(even.cluster, 4);                                                   // cache, but for residual ops
  EXPECT_EQ(even.cache, 8);
  const ReducePlan residual = plan("add_rmsnorm", rows_for(32000), 32000, 4, true);
  EXPECT_EQ(residual.path, ReducePath::cluster);
  EXPECT_EQ(residual.cluster, 8);
  EXPECT_EQ(residual.cache, 4);
  // softmax over more than 2048 vectors of 2-byte elements: shared memory, although the block's registers hold 4096.
  for (const char* op : {"softmax", "log_softmax"}) {
    EXPECT_EQ(plan(op, rows_for(32000), 32000, 2, true).path, ReducePath::shared_memory) << op;  // 4000 vectors
    EXPECT_EQ(plan(op, rows_for(16400), 16400, 2, true).path, ReducePath::shared_memory) << op;  // 2050
    EXPECT_EQ(plan(op, rows_for(16384), 16384, 2, true).path, ReducePath::registers) << op;      // 2048
    EXPECT_EQ(plan(op, rows_for(16384), 16384, 4, true).path, ReducePath::registers) << op;      // fp32: 4096
  }
  EXPECT_EQ(plan("rmsnorm", rows_for(32000), 32000, 2, true).path, ReducePath::registers);
  // Past shared memory: clusters of up to 16 blocks with 8 vectors a thread hold 32768 vectors (262144 fp16
  // columns, 131072 fp32); longer rows take two passes over slices.
  const ReducePlan sixteen = plan("softmax", rows_for(262144), 262144, 2, true);
  EXPECT_EQ(sixteen.path, ReducePath::cluster);
  EXPECT_EQ(sixteen.cluster, 16);
  EXPECT_EQ(sixteen.cache, 8);
  EXPECT_EQ(plan("add_rmsnorm", rows_for(131072), 131072, 4, true).cluster, 16);
  const ReducePlan two = plan("softmax", rows_for(262144), 262144, 4, true);
  EXPECT_EQ(two.path, ReducePath::two_pass);
  EXPECT_EQ(two.passes, 2);
  EXPECT_EQ(two.splits, 9);  // 128 rows: 9 slices each fill 8 blocks on each of 132 multiprocessors
  EXPECT_EQ(two.label, "path: online softmax, 2 passes, 9 blocks per row, 16-byte loads, 2 reads");
  EXPECT_EQ(plan("layernorm", rows_for(262144), 262144, 4, true).label.rfind("path: Welford statistics, 2 passes", 0),
            0u);
  EXPECT_EQ(plan("add_rmsnorm", rows_for(262144), 262144, 4, true).label.rfind("path: sum of squares, 2 passes", 0),
            0u);
  // Few rows would leave multiprocessors idle in shared memory or clusters: two passes over slices instead.
  EXPECT_EQ(plan("softmax", 8, 50257, 2, false).path, ReducePath::two_pass);
  EXPECT_EQ(plan("rmsnorm", 8, 131072, 2, true).path, ReducePath::two_pass);
}

TEST(ReducePath, ClustersTakeUnalignedLongRowsAndTheResidualOpsPastTwoThousandVectors) {
  // 4095 columns: 16-byte pieces past each row's unaligned start, where the registers path reads elements.
  const ReducePlan rms = plan("rmsnorm", rows_for(4095), 4095, 2, false);
  EXPECT_EQ(rms.path, ReducePath::cluster);
  EXPECT_EQ(rms.cluster, 1);
  EXPECT_EQ(rms.cache, 2);  // 512 vectors
  EXPECT_EQ(rms.label, "path: block per row, 2 16-byte vectors a thread in registers, 16-byte loads past each row's "
                       "unaligned start, 1 read");
  EXPECT_EQ(plan("layernorm", rows_for(4095), 4095, 4, false).cache, 4);  // fp32: 1024 vectors
  EXPECT_EQ(plan("layernorm", rows_for(4095), 4095, 4, false).path, ReducePath::cluster);
  EXPECT_EQ(plan("layernorm", rows_for(4095), 4095, 2, false).path, ReducePath::registers);  // fp16 layer norm stays
  EXPECT_EQ(plan("softmax", rows_for(4095), 4095, 2, false).path, ReducePath::registers);
  EXPECT_EQ(plan("rmsnorm", rows_for(2047), 2047, 2, false).path, ReducePath::registers);  // up to 2048 columns
  // The residual ops over more than 2048 vectors, which the block would hold 8 or 16 a thread.
  const ReducePlan add = plan("add_layernorm", rows_for(12288), 12288, 4, true);  // 3072 vectors
  EXPECT_EQ(add.path, ReducePath::cluster);
  EXPECT_EQ(add.cluster, 3);
  EXPECT_EQ(add.cache, 4);
  EXPECT_EQ(plan("layernorm", rows_for(12288), 12288, 4, true).path, ReducePath::registers);
  EXPECT_EQ(plan("add_rmsnorm", rows_for(32000), 32000, 2, true).cluster, 4);  // 4000 vectors
  EXPECT_EQ(plan("add_layernorm", rows_for(12288), 12288, 2, true).path, ReducePath::registers);  // 1536 vectors
  EXPECT_EQ(plan("add_rmsnorm", rows_for(8192), 8192, 4, true).path, ReducePath::registers);  // 2048 vectors
}

TEST(ReducePath, TwoByteLayerNormsTakeClustersPastTheirBounds) {
  // Layer norm past 32768 columns (it lost at 32000), add + layer norm past 16384 (it won at 32000).
  EXPECT_NE(plan("layernorm", rows_for(32768), 32768, 2, true).path, ReducePath::cluster);
  EXPECT_EQ(plan("layernorm", rows_for(32776), 32776, 2, true).path, ReducePath::cluster);
  EXPECT_EQ(plan("add_layernorm", rows_for(32000), 32000, 2, true).path, ReducePath::cluster);
  EXPECT_EQ(plan("add_layernorm", rows_for(32000), 32000, 2, true).cluster, 4);  // 4000 vectors: 4 x 256 x 4
  EXPECT_NE(plan("add_layernorm", rows_for(16384), 16384, 2, true).path, ReducePath::cluster);
  EXPECT_NE(plan("add_layernorm", rows_for(4095), 4095, 2, false).path, ReducePath::cluster);
  for (const char* op : {"layernorm", "add_layernorm"}) {
    EXPECT_EQ(plan(op, rows_for(131072), 131072, 2, true).path, ReducePath::cluster) << op;
    EXPECT_EQ(plan(op, rows_for(131072), 131072, 2, true).cluster, op[0] == 'a' ? 16 : 8) << op;
    const ReducePlan longest = plan(op, rows_for(262144), 262144, 2, true);  // 32768 vectors
    EXPECT_EQ(longest.path, ReducePath::cluster) << op;
    EXPECT_EQ(longest.cluster, 16) << op;
    EXPECT_EQ(longest.cache, 8) << op;
    EXPECT_EQ(plan(op, rows_for(262152), 262152, 2, true).path, ReducePath::two_pass) << op;  // past 16 x 256 x 8
    EXPECT_EQ(plan(op, rows_for(50257), 50257, 4, false).path, ReducePath::cluster) << op;      // fp32: no bound
  }
  // The rereads path keeps 2-byte layer norms too long for one block's registers below the first bound.
  const ReducePlan rereads = plan("layernorm", rows_for(32001), 32001, 2, false);
  EXPECT_EQ(rereads.path, ReducePath::rereads);
  EXPECT_EQ(rereads.passes, 2);
  EXPECT_EQ(memory_reads(rereads), 1);
  EXPECT_EQ(rereads.group, kRereadThreads);
  EXPECT_EQ(rereads.blocks, 2 * 132);  // two 62.5 KiB rows a multiprocessor
  EXPECT_EQ(rereads.label, "path: 512 threads per row, Welford statistics, read again from L2, 16-byte loads past "
                           "each row's unaligned start, 2 reads (one from memory)");
}

TEST(ReducePath, SumsOverOddShortRowsGoToTiles) {
  for (std::int64_t cols : {5, 7, 31, 97, 197, 255}) {
    const ReducePlan p = plan("sum", rows_for(cols), cols, 2, false);
    EXPECT_EQ(p.path, ReducePath::tile) << cols;
    EXPECT_EQ(p.group, 1) << cols;  // a thread a row, at an odd stride
  }
  EXPECT_EQ(plan("max", rows_for(97), 97, 4, false).path, ReducePath::tile);
  // From 7 columns, staged (asynchronous copies) of 16 KiB.
  const ReducePlan staged = plan("sum", rows_for(97), 97, 2, false);
  EXPECT_TRUE(staged.staged);
  EXPECT_EQ(staged.tile_rows, 16384 / 194);
  EXPECT_EQ(staged.label,
            "path: one row per thread, 84-row tiles in shared memory (asynchronous copies), "
            "16-byte loads, 1 read");
  EXPECT_FALSE(plan("mean", rows_for(5), 5, 2, false).staged);
  EXPECT_EQ(plan("mean", rows_for(257), 257, 2, false).path, ReducePath::streaming);
  EXPECT_EQ(plan("sum", rows_for(6), 6, 2, false).path, ReducePath::streaming);  // even: streamed
  EXPECT_EQ(plan("sum", rows_for(16), 16, 2, true).path, ReducePath::streaming);  // aligned vectors
}

TEST(ReducePath, SumsReadOnceWhateverTheShape) {
  EXPECT_EQ(plan("sum", rows_for(3), 3, 4, false).group, 1);
  const ReducePlan six = plan("max", rows_for(6), 6, 2, false);
  EXPECT_EQ(six.group, 8);
  EXPECT_EQ(six.label, "path: 8 threads per row, reduced as read, element loads, 1 read");
  EXPECT_EQ(plan("max", rows_for(7), 7, 2, false).label,
            "path: one row per thread, 1170-row tiles in shared memory (asynchronous copies), "
            "16-byte loads, 1 read");
  EXPECT_EQ(plan("sum", rows_for(50257), 50257, 2, false).label,
            "path: block per row, reduced as read, 16-byte loads past each row's unaligned start, 1 read");
  EXPECT_EQ(plan("mean", rows_for(4096), 4096, 4, true).group, 32);
  // Unaligned rows read in 16-byte pieces count their vectors: 4095 2-byte columns are 512 of them, a warp's share.
  const ReducePlan odd = plan("sum", rows_for(4095), 4095, 2, false);
  EXPECT_EQ(odd.group, 32);
  EXPECT_EQ(odd.label, "path: one row per warp, reduced as read, 16-byte loads past each row's unaligned start, 1 read");
  EXPECT_EQ(plan("sum", rows_for(1000), 1000, 2, false).group, 32);  // element loads: a warp up to 1024 elements
  const ReducePlan block = plan("sum", rows_for(8192), 8192, 4, true);  // 4096 rows: a block each
  EXPECT_EQ(block.path, ReducePath::streaming);
  EXPECT_EQ(block.group, kReduceBlockThreads);
  const ReducePlan split = plan("max", rows_for(262144), 262144, 2, true);  // 128 rows: split
  EXPECT_EQ(split.path, ReducePath::split_rows);
  EXPECT_EQ(split.passes, 1);
  EXPECT_EQ(split.label, "path: row split over 9 blocks, partials combined, 16-byte loads, 1 read");
  EXPECT_EQ(plan("sum_all", 4, 1000, 4, true).path, ReducePath::all_partials);
  for (std::int64_t cols : {1, 7, 31, 97, 197, 512, 1000, 2048, 4095, 4096, 8192, 12288, 32000, 50257, 131072, 262144})
    for (const char* op : {"sum", "mean", "max"}) EXPECT_EQ(plan(op, rows_for(cols), cols, 2, false).passes, 1);
}

TEST(ReducePath, EverySweepShapeHasAPlanThatHoldsItsRow) {
  for (std::int64_t cols : {1, 7, 31, 97, 197, 512, 1000, 2048, 4095, 4096, 8192, 12288, 32000, 50257, 131072, 262144})
    for (std::int64_t elem : {2, 4})
      for (const char* op : {"softmax", "log_softmax", "layernorm", "rmsnorm", "add_layernorm", "add_rmsnorm"}) {
        const bool vec = cols % (16 / elem) == 0;
        const ReducePlan p = plan(op, rows_for(cols), cols, elem, vec);
        SCOPED_TRACE(std::string(op) + " cols " + std::to_string(cols));
        const std::int64_t units = vec ? cols / (16 / elem) : cols;
        if (p.path == ReducePath::registers) EXPECT_LE(units, std::int64_t{p.group} * p.cache);
        if (p.path == ReducePath::shared_memory) EXPECT_LE(cols * elem, kShared);
        if (p.path == ReducePath::tile) EXPECT_LE(p.tile_rows * cols * elem, kTileBytes);
        EXPECT_EQ(p.passes, p.path == ReducePath::two_pass || p.path == ReducePath::rereads ? 2 : 1);
        // Read once from memory wherever the row fits one multiprocessor's shared memory (rereads: the second read
        // comes from L2).
        if (cols * elem <= kShared) EXPECT_EQ(memory_reads(p), 1);
      }
}

TEST(ReducePath, OpsAndTheirNamesAreOneList) {
  // The planner, the kernels and the schema's names all come from core's ReduceOp.
  for (ReduceOp op : kReduceOps) EXPECT_EQ(reduce_op(reduce_op_name(op)), op) << reduce_op_name(op);
  EXPECT_EQ(reduce_op("add_rmsnorm"), ReduceOp::add_rmsnorm);
  EXPECT_THROW(reduce_op("norm"), opmark::Error);
  EXPECT_TRUE(reduce_normalises(ReduceOp::log_softmax));
  EXPECT_FALSE(reduce_normalises("sum_all"));
  EXPECT_TRUE(reduce_adds_residual("add_layernorm"));
}

// The tuner's candidates: reduce_plan's own first, every label once, each registers plan holding the row, and the
// paths the shape allows (several rows a warp for short rows, the block for few long ones, clusters, shared memory,
// two passes, streaming groups, split rows, sum_all's grids).
TEST(ReducePath, EveryCandidatePlanHoldsTheRowAndIsNamedOnce) {
  for (const char* op : {"sum", "max", "sum_all", "softmax", "log_softmax", "layernorm", "rmsnorm", "add_rmsnorm"})
    for (const auto& [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {1, 1}, {300, 300}, {65536, 100}, {84, 30000}, {2, 70001}, {1000, 33}, {7, 4096}})
      for (const std::int64_t elem : {2, 4}) {
        SCOPED_TRACE(std::string(op) + " " + std::to_string(rows) + "x" + std::to_string(cols));
        const std::vector<ReducePlan> plans = reduce_plans(reduce_op(op), rows, cols, elem, true, kShared, 132);
        ASSERT_FALSE(plans.empty());
        EXPECT_EQ(plans.front().label, reduce_plan(reduce_op(op), rows, cols, elem, true, kShared, 132).label);
        std::set<std::string> labels;
        for (const ReducePlan& p : plans) {
          EXPECT_TRUE(labels.insert(p.label).second) << p.label;
          if (p.path == ReducePath::registers) {
            const bool vec = cols % (16 / elem) == 0;
            EXPECT_GE(std::int64_t{p.group} * p.cache, vec ? cols / (16 / elem) : cols) << p.label;
          }
        }
      }
  // RMSNorm over 300 x 300: a warp a row (the default), and the block a row among the others.
  const std::vector<ReducePlan> small = reduce_plans(ReduceOp::rmsnorm, 300, 300, 2, true, kShared, 132);
  EXPECT_EQ(small.front().group, 32);
  EXPECT_TRUE(std::any_of(small.begin(), small.end(), [](const ReducePlan& p) {
    return p.path == ReducePath::registers && p.group == kReduceBlockThreads;
  }));
  // Softmax over 84 rows of 30000: the block in registers by default; a cluster a row and shared memory compete.
  const std::vector<ReducePlan> wide = reduce_plans(ReduceOp::log_softmax, 84, 30000, 2, true, kShared, 132);
  EXPECT_TRUE(std::any_of(wide.begin(), wide.end(), [](const ReducePlan& p) { return p.path == ReducePath::cluster; }));
  EXPECT_TRUE(
      std::any_of(wide.begin(), wide.end(), [](const ReducePlan& p) { return p.path == ReducePath::shared_memory; }));
  // sum_all: the default's 1024 blocks, then 16 and 32 a multiprocessor.
  const std::vector<ReducePlan> all = reduce_plans(ReduceOp::sum_all, 1, 1 << 28, 2, true, kShared, 132);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].blocks, kSumAllBlocks);
  EXPECT_EQ(all[1].blocks, 16 * 132);
  EXPECT_EQ(all[2].blocks, 32 * 132);
  EXPECT_EQ(all[2].label, "path: 4224 blocks of partial sums, then one block sums them, 16-byte loads, 1 read");
  // A small tensor: one block that sums everything in one launch, too; rows that are not whole vectors are summed in
  // 16-byte loads over the whole tensor as well.
  const std::vector<ReducePlan> small_all = reduce_plans(ReduceOp::sum_all, 57, 324, 2, true, kShared, 132);
  ASSERT_EQ(small_all.size(), 8u);
  EXPECT_EQ(small_all[3].blocks, 1);
  EXPECT_EQ(small_all[3].label, "path: one block sums everything, element loads, 1 read");
  EXPECT_EQ(small_all[7].label, "path: one block sums everything, 16-byte loads, 1 read");
  EXPECT_EQ(reduce_plans(ReduceOp::sum_all, 57, 324, 2, false, kShared, 132).size(), 4u);  // unaligned: elements
}

// Few rows in 1170-row tiles leave multiprocessors idle: tiles for 2 and 4 blocks a multiprocessor compete, named by
// their rows; many rows keep the default's tiles alone.
TEST(ReducePath, FewRowsAlsoTakeSmallerTiles) {
  const std::vector<ReducePlan> few = reduce_plans(ReduceOp::log_softmax, 52401, 7, 2, true, kShared, 132);
  ASSERT_EQ(few.front().path, ReducePath::tile);
  EXPECT_EQ(few.front().tile_rows, 1170);
  std::vector<std::int64_t> tile_rows;
  for (const ReducePlan& p : few)
    if (p.path == ReducePath::tile) {
      tile_rows.push_back(p.tile_rows);
      EXPECT_NE(p.label.find(std::to_string(p.tile_rows) + "-row tiles"), std::string::npos) << p.label;
    }
  EXPECT_EQ(tile_rows, (std::vector<std::int64_t>{1170, 199, 100}));
  for (const ReducePlan& p : reduce_plans(ReduceOp::log_softmax, 2264396, 11, 2, true, kShared, 132))
    if (p.path == ReducePath::tile) EXPECT_EQ(p.tile_rows, 16384 / 22) << p.label;
}

// A thread a row holds 8 short rows at once; where that leaves multiprocessors without a block, one row at once
// competes (88141 fp16 rows of 1 made 43 blocks for 132 multiprocessors).
TEST(ReducePath, FewRowsAlsoTakeOneRowAThreadAtOnce) {
  const auto one_row_at_once = [](std::int64_t rows, int sms) {
    int found = 0;
    for (const ReducePlan& p : reduce_plans(ReduceOp::log_softmax, rows, 1, 2, true, kShared, sms))
      if (p.path == ReducePath::registers && p.group == 1 && p.cache == 1 && p.rows_in_flight == 1) {
        EXPECT_EQ(p.label.find("rows at once"), std::string::npos) << p.label;
        ++found;
      }
    return found;
  };
  EXPECT_EQ(one_row_at_once(88141, 132), 1);
  EXPECT_EQ(one_row_at_once(2048 * 132, 132), 0);  // a block for every multiprocessor already
  EXPECT_EQ(one_row_at_once(88141, 0), 0);         // no multiprocessor count: nothing to fill
}

// Few long rows: a cluster as wide as two vectors a thread make it competes where rows x its blocks leave
// multiprocessors idle (fp32 softmax over 3 rows of 4550 columns: 1138 vectors, 3 blocks a row); many rows, or rows
// too long for 16 such blocks, take none.
TEST(ReducePath, FewLongRowsAlsoTakeAWideCluster) {
  const auto wide_clusters = [](std::int64_t rows, std::int64_t cols, std::int64_t elem) {
    std::vector<int> blocks;
    for (const ReducePlan& p : reduce_plans(ReduceOp::softmax, rows, cols, elem, false, kShared, 132))
      if (p.path == ReducePath::cluster && p.cache == 2) blocks.push_back(p.cluster);
    return blocks;
  };
  EXPECT_EQ(wide_clusters(3, 4550, 4), std::vector<int>{3});
  EXPECT_EQ(wide_clusters(3, 4550, 2), std::vector<int>{2});
  EXPECT_TRUE(wide_clusters(100, 4550, 4).empty());     // 300 blocks: every multiprocessor busy already
  EXPECT_TRUE(wide_clusters(2, 70001, 4).empty());      // 35 blocks of two vectors a thread: past 16
  EXPECT_EQ(reduce_plans(ReduceOp::softmax, 3, 4550, 4, false, kShared, 132)[2].label,
            "path: row over a cluster of 3 blocks, 2 16-byte vectors a thread in registers, 16-byte loads past each "
            "row's unaligned start, 1 read");
}
