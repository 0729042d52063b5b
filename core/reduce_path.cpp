#include "core/reduce_path.h"

#include <algorithm>
#include <vector>

#include "core/error.h"

namespace opmark::core {
namespace {

// Two-pass and split-row plans give each block at least this many elements (fewer: the block's start-up and the
// combining cost more than the parallelism gains) and aim at this many blocks per multiprocessor.
constexpr std::int64_t kMinElementsPerSplit = 8192;
constexpr std::int64_t kBlocksPerSm = 8;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t splits_for(std::int64_t rows, std::int64_t cols, int sms) {
  const std::int64_t want = ceil_div(kBlocksPerSm * sms, rows);
  return std::max<std::int64_t>(1, std::min(want, ceil_div(cols, kMinElementsPerSplit)));
}

std::string group_words(int group) {
  if (group == 1) return "one row per thread";
  if (group == 32) return "one row per warp";
  if (group == kReduceBlockThreads) return "block per row";
  return std::to_string(group) + " threads per row";
}

std::string statistics_words(ReduceOp op) {
  if (reduce_is_softmax(op)) return "online softmax";
  if (op == ReduceOp::layernorm || op == ReduceOp::add_layernorm) return "Welford statistics";
  return "sum of squares";
}

// The group and register cache for rows of `units` vectors or elements: the smallest that holds the row.
// `element_bytes`: the unit's size where the units are elements (0 for 16-byte vectors).
bool fits_registers(ReduceOp op, std::int64_t units, std::int64_t element_bytes, ReducePlan* plan) {
  struct Fit {
    int group, cache;
  };
  // Each cache size is a kernel of its own: registers are sized for the whole cache whatever the row uses, and a
  // cache twice the row's need halves the blocks a multiprocessor holds (latency, not bandwidth, then bounds it).
  std::vector<Fit> fits = {{1, 1}, {1, 4}, {8, 4}};
  // Rows of 33 to 64 elements: 16 lanes a row (two rows a warp) use all of a 4-element cache where a warp used half.
  if (element_bytes > 0) fits.push_back({16, 4});
  // softmax and log_softmax over 65 to 128 2-byte elements: 16 lanes with 8 each (each shuffle serves two rows)
  // were faster than a warp with 4; the norms and fp32 softmax were not.
  if (element_bytes == 2 && reduce_is_softmax(op)) fits.push_back({16, 8});
  fits.insert(fits.end(), {{32, 4}, {32, 8}});
  // Rows of 257 to 512 16-byte vectors take the block with 4 a thread, not a warp with 16 (half of the block's cache
  // unused, but 8 times the rows' threads in flight). At 256 vectors the warp stays ahead.
  if (element_bytes > 0) fits.push_back({32, 16});
  fits.insert(fits.end(), {{kReduceBlockThreads, 4}, {kReduceBlockThreads, 8}, {kReduceBlockThreads, 16}});
  for (const Fit& f : fits)
    if (units <= std::int64_t{f.group} * f.cache) {
      plan->group = f.group;
      plan->cache = f.cache;
      return true;
    }
  return false;
}

// softmax and log_softmax over more than kSoftmaxSharedMinVectors 16-byte vectors of 2-byte elements go to shared
// memory although the block's registers (16 vectors a thread) would hold them: faster there (fp32 rows and shorter
// 2-byte rows were not).
constexpr std::int64_t kSoftmaxSharedMinVectors = 2048;
bool softmax_prefers_shared(ReduceOp op, std::int64_t units, bool vectorised, std::int64_t elem_bytes) {
  return reduce_is_softmax(op) && vectorised && elem_bytes == 2 && units > kSoftmaxSharedMinVectors;
}

// Whether the registers path launches a block for every block's worth of rows instead of looping blocks: faster for
// fp32 rows of groups of 8 to 32 lanes (softmax, log_softmax, RMSNorm, layer norm with 4 units a lane), mostly slower
// over 2-byte elements. Not measured: one lane a row, 16-byte vectors, the residual-add norms.
bool registers_one_shot(ReduceOp op, const ReducePlan& plan, std::int64_t element_bytes) {
  if (element_bytes != 4 || plan.group < 8 || plan.group > 32) return false;
  return reduce_is_softmax(op) || op == ReduceOp::rmsnorm || (op == ReduceOp::layernorm && plan.cache <= 4);
}

// Threads per row for a streaming reduction: enough lanes for the row's units, a warp up to 1024, then the block.
int streaming_group(std::int64_t units) {
  if (units <= 4) return 1;
  if (units <= 32) return 8;
  if (units <= 1024) return 32;
  return kReduceBlockThreads;
}

// Threads sharing a row of a tile: one, or 8 where a thread alone would meet 8 or more of its warp in a shared-memory
// bank. A thread walks its row at a stride of the row's bytes from its neighbours' rows: a multiple of 32 bytes puts
// every 8th (or closer) thread of a warp in one bank; other strides meet at most 4.
int tile_group(std::int64_t cols, std::int64_t elem_bytes) {
  return cols <= 3 || cols % 2 == 1 || (cols * elem_bytes) % 32 != 0 ? 1 : 8;
}

// Rows of exactly two 16-byte vectors (16 2-byte columns, 8 4-byte) are a thread's, in registers, not a tile's (8
// threads a row there, or bank conflicts alone). Four vectors (16 fp32 columns) stay tiled.
bool two_vector_row(std::int64_t cols, std::int64_t elem_bytes, bool vectorisable) {
  return vectorisable && cols * elem_bytes == 32;
}

// Whether rows the registers path would hold as `plan` (its group and cache) go to staged tiles instead (where that
// won: docs/reduce.md). Rows of whole vectors are read as vectors in place and stay there.
bool stages_rows(ReduceOp op, std::int64_t cols, std::int64_t elem_bytes, bool vectorisable,
                 const ReducePlan& plan) {
  if (vectorisable || cols < kStagedMinCols || cols > kStagedMaxCols) return false;
  if (op == ReduceOp::add_rmsnorm) return cols <= 64 || cols > 128;  // a warp with 4 a lane stays (slower staged)
  if (reduce_adds_residual(op)) return true;
  if (elem_bytes != 2) return false;
  if (op == ReduceOp::rmsnorm) return cols <= 128;
  if (op == ReduceOp::layernorm) return cols <= 32;
  // softmax and log_softmax: where the row fills its group's registers (a tile's rows take turns through them, and
  // padding costs every turn): three quarters of them for 8 lanes or 16 with 8 each, nearly all for a warp; not 16
  // lanes with 4 each (33 to 64 columns).
  const std::int64_t slots = std::int64_t{plan.group} * plan.cache;
  if (plan.group == 32) return 20 * cols >= 19 * slots;
  if (plan.group == 16 && plan.cache == 4) return false;
  return 4 * cols >= 3 * slots;
}

// The cluster path's blocks and cache (16-byte vectors a thread) for rows of `units` vectors: of the fits below, the
// one with the fewest slots (blocks x kReduceBlockThreads x cache) for the row, on a tie the larger cache, but the
// smaller for the residual ops. 16 vectors a thread (one block a multiprocessor) lost everywhere.
bool fits_cluster(ReduceOp op, std::int64_t units, ReducePlan* plan) {
  struct Fit {
    int cache, most_blocks;
  };
  const bool residual = reduce_adds_residual(op);
  const Fit fits[] = {{2, 1}, {4, residual ? kMostClusterBlocks : 8}, {8, kMostClusterBlocks}};
  std::int64_t best_slots = 0;
  for (const Fit& f : fits) {
    const std::int64_t per_block = std::int64_t{kReduceBlockThreads} * f.cache;
    const std::int64_t blocks = ceil_div(units, per_block);
    if (blocks > f.most_blocks) continue;
    const std::int64_t slots = blocks * per_block;
    if (best_slots == 0 || slots < best_slots || (slots == best_slots && !residual)) {
      best_slots = slots;
      plan->cluster = static_cast<int>(blocks);
      plan->cache = f.cache;
    }
  }
  return best_slots > 0;
}

// Whether a normalising op's rows go to the cluster path (where it won against the paths they had; the blocks and
// cache as fits_cluster chooses):
// - rows past one block's registers; softmax and log_softmax stay in shared memory where a row fits it;
// - rows that are not whole vectors, over kClusterUnalignedMinCols columns (read element by element in registers),
//   but softmax and fp32 layer norm there (level) stay;
// - the residual ops over rows of more than kClusterResidualMinVectors vectors (8 or 16 a thread in one block);
// - layer norm and add + layer norm over 2-byte elements only past kClusterTwoByteLayerNormMinCols and
//   kClusterTwoByteAddLayerNormMinCols columns.
// A cluster of few rows would leave the GPU idle: rows x blocks at least two blocks a multiprocessor.
bool clusters_rows(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                   bool vectorisable, bool in_registers, bool fits_shared, int sms, ReducePlan* plan) {
  const bool layer_norm = op == ReduceOp::layernorm || op == ReduceOp::add_layernorm;
  if (elem_bytes == 2 && layer_norm &&
      cols <= (op == ReduceOp::layernorm ? kClusterTwoByteLayerNormMinCols : kClusterTwoByteAddLayerNormMinCols))
    return false;
  const std::int64_t units = ceil_div(cols * elem_bytes, 16);
  const bool wanted = reduce_is_softmax(op) ? !in_registers && !fits_shared
                                            : (!vectorisable && cols > kClusterUnalignedMinCols) || !in_registers ||
                                                  (reduce_adds_residual(op) && units > kClusterResidualMinVectors);
  ReducePlan fit;
  if (!wanted || !fits_cluster(op, units, &fit) || rows * fit.cluster < 2 * std::int64_t{sms}) return false;
  plan->cluster = fit.cluster;
  plan->cache = fit.cache;
  return true;
}

// Whether a streamed row is read in 16-byte pieces past its unaligned start (long rows that are not whole vectors).
bool reads_pieces(bool vectorised, std::int64_t cols) { return !vectorised && cols >= kStreamingPiecesMinCols; }

// "path: <how>, 16-byte loads, 1 read": the plan's label from what its path does (`how`) and how it reads.
void label_plan(ReducePlan* plan, const std::string& how, std::int64_t cols) {
  // Rows cached in registers, short streamed rows and sum_all are read in elements where they are not whole
  // vectors; tiles are copied, and the other paths read, in 16-byte vectors from the first 16-byte boundary on.
  const bool elements = (plan->path == ReducePath::registers || plan->path == ReducePath::all_partials ||
                         (plan->path == ReducePath::streaming && !streaming_reads_pieces(*plan, cols)));
  const std::string loads = plan->vectorised ? "16-byte loads"
                            : elements ? "element loads"
                                       : "16-byte loads past each row's unaligned start";
  plan->label = "path: " + how + ", " + loads + ", " + std::to_string(plan->passes) +
                (plan->passes == 1 ? " read" : memory_reads(*plan) == 1 ? " reads (one from memory)" : " reads");
}

// What each path does, in the words of its plan's label: reduce_plan and reduce_plans' alternatives say it alike.
std::string registers_words(const ReducePlan& plan) {
  return group_words(plan.group) + " in registers" +
         (plan.rows_in_flight > 1 ? ", " + std::to_string(plan.rows_in_flight) + " rows at once" : "") +
         (plan.one_shot ? ", one-shot grid" : "");
}

std::string cluster_words(const ReducePlan& plan) {
  return (plan.cluster == 1 ? group_words(kReduceBlockThreads)
                            : "row over a cluster of " + std::to_string(plan.cluster) + " blocks") +
         ", " + std::to_string(plan.cache) + " 16-byte vectors a thread in registers";
}

std::string rereads_words(ReduceOp op, const ReducePlan& plan) {
  return std::to_string(plan.group) + " threads per row, " + statistics_words(op) + ", read again from L2";
}

std::string two_pass_words(ReduceOp op, std::int64_t splits) {
  return statistics_words(op) + ", 2 passes, " +
         (splits == 1 ? "block per row" : std::to_string(splits) + " blocks per row");
}

std::string streaming_words(int group) { return group_words(group) + ", reduced as read"; }

std::string split_rows_words(std::int64_t splits) {
  return "row split over " + std::to_string(splits) + " blocks, partials combined";
}

std::string partials_words(std::int64_t blocks) {
  if (blocks == 1) return "one block sums everything";
  return std::to_string(blocks) + " blocks of partial sums, then one block sums them";
}

}  // namespace

bool streaming_reads_pieces(const ReducePlan& plan, std::int64_t cols) {
  return plan.path == ReducePath::streaming && reads_pieces(plan.vectorised, cols);
}

bool packs_rows(std::int64_t cols, std::int64_t elem_bytes) {
  return cols >= 1 && cols <= kPackedMaxCols && (16 / elem_bytes) % cols == 0;
}

int memory_reads(const ReducePlan& plan) { return plan.path == ReducePath::rereads ? 1 : plan.passes; }

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::mean: return "mean";
    case ReduceOp::max: return "max";
    case ReduceOp::sum_all: return "sum_all";
    case ReduceOp::softmax: return "softmax";
    case ReduceOp::layernorm: return "layernorm";
    case ReduceOp::rmsnorm: return "rmsnorm";
    case ReduceOp::log_softmax: return "log_softmax";
    case ReduceOp::add_layernorm: return "add_layernorm";
    case ReduceOp::add_rmsnorm: return "add_rmsnorm";
  }
  return "?";
}

ReduceOp reduce_op(const std::string& name) {
  for (ReduceOp op : kReduceOps)
    if (name == reduce_op_name(op)) return op;
  throw Error("unknown reduce op '" + name + "'");
}

bool reduce_is_softmax(ReduceOp op) { return op == ReduceOp::softmax || op == ReduceOp::log_softmax; }

bool reduce_normalises(ReduceOp op) {
  return reduce_is_softmax(op) || op == ReduceOp::layernorm || op == ReduceOp::rmsnorm ||
         op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm;
}

bool reduce_adds_residual(ReduceOp op) { return op == ReduceOp::add_layernorm || op == ReduceOp::add_rmsnorm; }

bool reduce_is_softmax(const std::string& op) { return reduce_is_softmax(reduce_op(op)); }
bool reduce_normalises(const std::string& op) { return reduce_normalises(reduce_op(op)); }
bool reduce_adds_residual(const std::string& op) { return reduce_adds_residual(reduce_op(op)); }

ReducePlan reduce_plan(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                       bool aligned, std::int64_t shared_bytes, int sms) {
  const bool vectorisable = aligned && cols % (16 / elem_bytes) == 0;  // every row starts on a 16-byte boundary
  ReducePlan plan;
  plan.vectorised = vectorisable;
  const std::int64_t units = vectorisable ? cols / (16 / elem_bytes) : cols;
  std::string how;
  if (op == ReduceOp::sum_all) {
    plan.path = ReducePath::all_partials;
    plan.group = kReduceBlockThreads;
    plan.blocks = kSumAllBlocks;
    how = partials_words(plan.blocks);
  } else if (aligned && packs_rows(cols, elem_bytes)) {
    plan.path = ReducePath::packed;
    plan.vectorised = true;
    plan.group = 1;
    how = "one thread per 16-byte vector of " + std::to_string(16 / elem_bytes / cols) + " whole rows";
  } else if (aligned &&
             (reduce_normalises(op)
                  ? cols >= kTileMinCols && cols <= kTileMaxCols && !two_vector_row(cols, elem_bytes, vectorisable)
                  : cols <= kTileMaxSumCols || (cols % 2 == 1 && cols <= kTileMaxOddSumCols))) {
    // A handful of elements a row: loads of a row's own elements are narrow and its reductions short chains, so
    // whole rows are staged in a tile and the copy in and out runs at full width (where that won: docs/reduce.md).
    plan.path = ReducePath::tile;
    plan.vectorised = true;
    plan.group = tile_group(cols, elem_bytes);
    plan.staged = !reduce_normalises(op) && cols >= kStagedSumMinCols;
    plan.tile_rows = std::max<std::int64_t>(1, (plan.staged ? kStagedTileBytes : kTileBytes) / (cols * elem_bytes));
    how = group_words(plan.group) + ", " + std::to_string(plan.tile_rows) + "-row tiles in shared memory" +
          (plan.staged ? " (asynchronous copies)" : "");
  } else if (reduce_normalises(op)) {
    const std::int64_t element_bytes = vectorisable ? 0 : elem_bytes;  // 0: the units are 16-byte vectors
    const bool fits_shared = cols * elem_bytes <= shared_bytes && rows >= sms;
    // softmax_prefers_shared implies reduce_is_softmax: such rows skip the registers for the shared-memory branch.
    const bool shared_first = fits_shared && softmax_prefers_shared(op, units, vectorisable, elem_bytes);
    const bool in_registers = !shared_first && fits_registers(op, units, element_bytes, &plan);
    if (clusters_rows(op, rows, cols, elem_bytes, vectorisable, in_registers, fits_shared, sms, &plan)) {
      plan.path = ReducePath::cluster;
      plan.group = kReduceBlockThreads * plan.cluster;
      how = cluster_words(plan);
    } else if (in_registers && aligned && stages_rows(op, cols, elem_bytes, vectorisable, plan)) {
      plan.path = ReducePath::tile;
      plan.vectorised = true;
      plan.staged = true;
      const std::int64_t tile_bytes = reduce_adds_residual(op) ? kStagedAddTileBytes : kStagedTileBytes;
      plan.tile_rows = std::max<std::int64_t>(1, tile_bytes / (cols * elem_bytes));
      how = group_words(plan.group) + " in registers from " + std::to_string(plan.tile_rows) +
            "-row tiles in shared memory (asynchronous copies)";
    } else if (in_registers) {
      plan.path = ReducePath::registers;
      plan.rows_in_flight = registers_rows_in_flight(plan.group, plan.cache, vectorisable ? 16 : elem_bytes);
      plan.one_shot = registers_one_shot(op, plan, element_bytes);
      how = registers_words(plan);
    } else if (fits_shared && reduce_is_softmax(op)) {
      plan.path = ReducePath::shared_memory;
      plan.group = kReduceBlockThreads;
      how = "block per row, shared memory";
    } else if (fits_shared) {
      plan.path = ReducePath::rereads;
      plan.group = kRereadThreads;
      plan.passes = 2;
      plan.blocks =
          std::min<std::int64_t>(rows, std::int64_t{sms} * (cols * elem_bytes <= kRereadTwoPerSmBytes ? 2 : 1));
      how = rereads_words(op, plan);
    } else {
      plan.path = ReducePath::two_pass;
      plan.group = kReduceBlockThreads;
      plan.splits = splits_for(rows, cols, sms);
      plan.passes = 2;
      how = two_pass_words(op, plan.splits);
    }
  } else {
    // Rows read in 16-byte pieces past an unaligned start count their vectors, as aligned rows do (counted in
    // elements, rows of 4095 2-byte columns took a block each where 4096 took a warp, and were slower).
    plan.group = streaming_group(reads_pieces(vectorisable, cols) ? (cols * elem_bytes + 15) / 16 : units);
    const std::int64_t splits = splits_for(rows, cols, sms);
    if (plan.group == kReduceBlockThreads && rows < kBlocksPerSm / 2 * sms && splits > 1) {
      plan.path = ReducePath::split_rows;
      plan.splits = splits;
      how = split_rows_words(plan.splits);
    } else {
      plan.path = ReducePath::streaming;
      how = streaming_words(plan.group);
    }
  }
  label_plan(&plan, how, cols);
  return plan;
}

namespace {

// The registers path with `group` threads a row and `cache` units a thread (one of the kernels' instantiations).
ReducePlan registers_plan(std::int64_t cols, std::int64_t elem_bytes, bool vectorisable, int group, int cache,
                          bool one_shot) {
  ReducePlan plan;
  plan.path = ReducePath::registers;
  plan.vectorised = vectorisable;
  plan.group = group;
  plan.cache = cache;
  plan.rows_in_flight = registers_rows_in_flight(group, cache, vectorisable ? 16 : elem_bytes);
  plan.one_shot = one_shot;
  label_plan(&plan, registers_words(plan), cols);
  return plan;
}

// The (group, cache) pairs the registers kernels are built for, each group with its smallest cache first.
// Groups of 4 serve rows of 5 to 8 units, PyTorch's warp softmax's width for them; a warp with 32 elements a lane
// (rows of 513 to 1024 elements that are not whole vectors) is its widest, which a block a row does not match.
constexpr int kRegisterFits[][2] = {{1, 1},  {1, 4},  {4, 2},  {8, 4},  {16, 4},  {16, 8},
                                    {32, 4}, {32, 8}, {32, 16}, {32, 32}, {kReduceBlockThreads, 4},
                                    {kReduceBlockThreads, 8}, {kReduceBlockThreads, 16}};
constexpr int kElementsOnlyCache = 32;  // 32 16-byte vectors a lane would hold 128 registers

void add_unique(std::vector<ReducePlan>* plans, ReducePlan plan) {
  for (const ReducePlan& p : *plans)
    if (p.label == plan.label) return;
  plans->push_back(std::move(plan));
}

void add_normalising_plans(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes, bool aligned,
                           std::int64_t shared_bytes, int sms, std::vector<ReducePlan>* plans) {
  const bool vectorisable = aligned && cols % (16 / elem_bytes) == 0;
  const std::int64_t units = vectorisable ? cols / (16 / elem_bytes) : cols;
  // Each group that holds the row, with its smallest cache that does; the one-shot grid too for groups of 4 to 32,
  // whose rows a block holds several of.
  int last_group = 0;
  for (const auto& fit : kRegisterFits) {
    const int group = fit[0], cache = fit[1];
    if (group == last_group || units > std::int64_t{group} * cache) continue;
    if (cache == kElementsOnlyCache && vectorisable) continue;
    last_group = group;
    const ReducePlan plan = registers_plan(cols, elem_bytes, vectorisable, group, cache, false);
    add_unique(plans, plan);
    // A thread a row holds several rows of a few elements at once; where that leaves multiprocessors without a
    // block (88141 fp16 rows of 1 made 43 blocks: 2.04 us, PyTorch 1.38), one row at once competes.
    const std::int64_t rows_a_block = std::int64_t{kReduceBlockThreads} * plan.rows_in_flight;
    if (group == 1 && cache == 1 && !vectorisable && plan.rows_in_flight > 1 &&
        (rows + rows_a_block - 1) / rows_a_block < sms) {
      ReducePlan one_row = plan;
      one_row.rows_in_flight = 1;
      label_plan(&one_row, registers_words(one_row), cols);
      add_unique(plans, one_row);
    }
    const std::int64_t per_block = kReduceBlockThreads / group;
    if (group >= 4 && group <= 32 && (rows + per_block - 1) / per_block < (std::int64_t{1} << 31))
      add_unique(plans, registers_plan(cols, elem_bytes, vectorisable, group, cache, true));
  }
  // A row over a cluster of `blocks` blocks, `cache` 16-byte vectors a thread.
  const auto add_cluster = [&](std::int64_t blocks, int cache) {
    ReducePlan cluster;
    cluster.path = ReducePath::cluster;
    cluster.vectorised = vectorisable;
    cluster.cache = cache;
    cluster.cluster = static_cast<int>(blocks);
    cluster.group = kReduceBlockThreads * cluster.cluster;
    label_plan(&cluster, cluster_words(cluster), cols);
    add_unique(plans, cluster);
  };
  if (cols * elem_bytes >= 4096) {
    const std::int64_t vectors = (cols * elem_bytes + 15) / 16;
    ReducePlan fit;
    if (fits_cluster(op, vectors, &fit)) add_cluster(fit.cluster, fit.cache);
    // Few long rows: a cluster as wide as two vectors a thread make it, where a narrower one leaves most
    // multiprocessors idle (fp32 softmax over 3 rows of 4550: a block a row took 3.40 us, PyTorch 3.07).
    const std::int64_t wide_blocks = ceil_div(vectors, std::int64_t{2} * kReduceBlockThreads);
    if (wide_blocks > 1 && wide_blocks <= kMostClusterBlocks && rows * wide_blocks < sms) add_cluster(wide_blocks, 2);
  }
  if (cols * elem_bytes <= shared_bytes && cols * elem_bytes >= 2048) {
    ReducePlan shared;
    shared.vectorised = vectorisable;
    if (reduce_is_softmax(op)) {
      shared.path = ReducePath::shared_memory;
      shared.group = kReduceBlockThreads;
      label_plan(&shared, "block per row, shared memory", cols);
    } else {
      shared.path = ReducePath::rereads;
      shared.group = kRereadThreads;
      shared.passes = 2;
      shared.blocks = std::min<std::int64_t>(rows, 4 * std::int64_t{sms});  // more rows in flight than reduce_plan's
      label_plan(&shared, rereads_words(op, shared) + ", " + std::to_string(shared.blocks) + " blocks", cols);
    }
    add_unique(plans, shared);
  }
  if (cols >= 4096) {
    ReducePlan two;
    two.path = ReducePath::two_pass;
    two.vectorised = vectorisable;
    two.group = kReduceBlockThreads;
    two.passes = 2;
    for (const std::int64_t splits : {std::int64_t{1}, std::max<std::int64_t>(2, (cols + 8191) / 8192)}) {
      two.splits = splits;
      label_plan(&two, two_pass_words(op, splits), cols);
      add_unique(plans, two);
    }
  }
}

void add_row_reduce_plans(std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes, bool aligned, int sms,
                          std::vector<ReducePlan>* plans) {
  const bool vectorisable = aligned && cols % (16 / elem_bytes) == 0;
  const int heuristic = plans->front().path == ReducePath::streaming ? plans->front().group : 0;
  for (const int group : {1, 8, 32, kReduceBlockThreads}) {
    // Neighbours of the heuristic's group only: one row per thread over a long row, or the block over short ones,
    // is never close.
    if (heuristic != 0 && (group > 8 * heuristic || 8 * group < heuristic)) continue;
    ReducePlan plan;
    plan.path = ReducePath::streaming;
    plan.vectorised = vectorisable;
    plan.group = group;
    label_plan(&plan, streaming_words(group), cols);
    add_unique(plans, plan);
  }
  const std::int64_t splits = splits_for(rows, cols, sms);
  if (splits > 1) {
    ReducePlan plan;
    plan.path = ReducePath::split_rows;
    plan.vectorised = vectorisable;
    plan.group = kReduceBlockThreads;
    plan.splits = splits;
    label_plan(&plan, split_rows_words(splits), cols);
    add_unique(plans, plan);
  }
}

// The default's tiles cut smaller where they would leave multiprocessors idle (52401 fp16 rows of 7 columns made 45
// tiles for 132 of them, 1.4x PyTorch's time): tiles for 2 and 4 blocks a multiprocessor, each a candidate.
void add_smaller_tiles(std::int64_t rows, int sms, std::vector<ReducePlan>* plans) {
  const ReducePlan base = plans->front();
  if (base.path != ReducePath::tile || sms <= 0) return;
  const std::string words = std::to_string(base.tile_rows) + "-row tiles";
  const std::size_t at = base.label.find(words);
  if (at == std::string::npos) return;
  for (const std::int64_t per_sm : {2, 4}) {
    const std::int64_t blocks = per_sm * sms, tile_rows = (rows + blocks - 1) / blocks;
    if (tile_rows >= base.tile_rows) continue;
    ReducePlan plan = base;
    plan.tile_rows = tile_rows;
    plan.label.replace(at, words.size(), std::to_string(tile_rows) + "-row tiles");
    add_unique(plans, plan);
  }
}

}  // namespace

std::vector<ReducePlan> reduce_plans(ReduceOp op, std::int64_t rows, std::int64_t cols, std::int64_t elem_bytes,
                                     bool aligned, std::int64_t shared_bytes, int sms) {
  std::vector<ReducePlan> plans = {reduce_plan(op, rows, cols, elem_bytes, aligned, shared_bytes, sms)};
  if (op == ReduceOp::sum_all) {
    std::vector<std::int64_t> grids = {kSumAllBlocks, 16 * std::int64_t{sms}, 32 * std::int64_t{sms}};
    if (rows * cols <= kSumAllOneBlockMostElements) grids.push_back(1);  // one launch, not two
    // The tensor is one contiguous run: 16-byte loads wherever it is aligned, whatever the row length (the kernel
    // sums the elements after the last whole vector one a thread).
    for (const bool vectorised : {plans.front().vectorised, aligned})
      for (const std::int64_t blocks : grids) {
        ReducePlan plan = plans.front();
        plan.vectorised = vectorised;
        plan.blocks = std::min<std::int64_t>(kSumAllMostBlocks, blocks);
        label_plan(&plan, partials_words(plan.blocks), cols);
        add_unique(&plans, plan);
      }
  } else if (reduce_normalises(op)) {
    add_normalising_plans(op, rows, cols, elem_bytes, aligned, shared_bytes, sms, &plans);
  } else {
    add_row_reduce_plans(rows, cols, elem_bytes, aligned, sms, &plans);
  }
  add_smaller_tiles(rows, sms, &plans);
  return plans;
}

}  // namespace opmark::core
