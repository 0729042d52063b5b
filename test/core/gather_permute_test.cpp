// The gather and permute families on the host: schemas, case names, byte counts, the permutation views and paths,
// and the float64 references.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"
#include "kernels/gather.h"
#include "kernels/permute.h"

using namespace opmark;
using namespace opmark::core;

static Case gather(std::int64_t rows, std::int64_t cols, std::int64_t table_rows, const char* precision = "fp16") {
  return make_case("gather", "fwd", precision, {{"rows", rows}, {"cols", cols}, {"table_rows", table_rows}});
}

static Case permute(std::int64_t d0, std::int64_t d1, std::int64_t d2, std::int64_t d3, const char* perm,
                    const char* precision = "fp16") {
  return make_case("permute", "fwd", precision,
                   {{"d0", d0}, {"d1", d1}, {"d2", d2}, {"d3", d3}, {"perm", std::string(perm)}});
}

TEST(Gather, NameBytesAndChecks) {
  EXPECT_EQ(make_case_name(gather(16384, 4096, 32000)), "gather/fwd/fp16/rows=16384/cols=4096/table_rows=32000");
  const Work w = work_of(gather(16384, 768, 50257, "fp32"));
  EXPECT_DOUBLE_EQ(w.flops, 0);
  EXPECT_DOUBLE_EQ(w.bytes_read, 16384.0 * 768 * 4 + 16384.0 * 8);  // the rows looked up, and the int64 indices
  EXPECT_DOUBLE_EQ(w.bytes_written, 16384.0 * 768 * 4);
  EXPECT_DOUBLE_EQ(w.bytes_reread, 0);  // fewer lookups than table rows: none need be read twice
  // More lookups than rows: all but the table's rows are read again (the L2 may serve them), so from memory at
  // least the table, the output and the indices.
  const Work many = work_of(gather(655360, 128, 32768));
  EXPECT_DOUBLE_EQ(many.bytes_reread, (655360.0 - 32768) * 128 * 2);
  EXPECT_DOUBLE_EQ(many.bytes_from_memory(), 32768.0 * 128 * 2 + 655360.0 * 128 * 2 + 655360.0 * 8);
  EXPECT_THROW(gather(0, 768, 10), Error);
  EXPECT_THROW(gather(4, std::int64_t{1} << 30, std::int64_t{1} << 30), Error);  // a table over 2^40 elements
  EXPECT_THROW(make_case("gather", "bwd_data", "fp16", {{"rows", std::int64_t{4}}, {"cols", std::int64_t{4}},
                                                        {"table_rows", std::int64_t{4}}}),
               Error);  // forward only
  EXPECT_THROW(gather(4, 4, 4, "int8"), Error);
}

TEST(GatherReference, RowsOfTheTableByIndex) {
  const std::vector<double> table = {0, 1, 10, 11, 20, 21};  // 3 rows of 2
  EXPECT_EQ(kernels::gather_reference(table, {2, 0, 2}, 2), (std::vector<double>{20, 21, 0, 1, 20, 21}));
}

TEST(Permute, NameBytesAndChecks) {
  EXPECT_EQ(make_case_name(permute(32, 512, 12, 64, "0213")), "permute/fwd/fp16/d0=32/d1=512/d2=12/d3=64/perm=0213");
  EXPECT_DOUBLE_EQ(work_of(permute(32, 512, 12, 64, "0213", "bf16")).bytes(), 2.0 * 32 * 512 * 12 * 64 * 2);
  EXPECT_DOUBLE_EQ(work_of(permute(32, 512, 12, 64, "0213", "bf16")).flops, 0);
  EXPECT_THROW(permute(2, 2, 2, 2, "0123"), Error);  // the identity is no permutation to time
  EXPECT_THROW(permute(2, 2, 2, 2, "0321"), Error);  // not offered
  EXPECT_THROW(permute(1 << 20, 1 << 20, 2, 2, "0213"), Error);  // over 2^40 elements
}

TEST(Permute, ViewsAndPaths) {
  const auto view = [](const char* perm) { return permute_view(permute_problem(permute(2, 3, 4, 5, perm))); };
  const auto same = [](PermuteView a, PermuteView b) {
    return a.batch == b.batch && a.a == b.a && a.b == b.b && a.inner == b.inner;
  };
  EXPECT_TRUE(same(view("0213"), {2, 3, 4, 5}));
  EXPECT_TRUE(same(view("0132"), {6, 4, 5, 1}));
  EXPECT_TRUE(same(view("0231"), {2, 3, 20, 1}));
  EXPECT_TRUE(same(view("0312"), {2, 12, 5, 1}));
  EXPECT_TRUE(same(view("1023"), {1, 2, 3, 20}));
  EXPECT_EQ(permute_path(view("0213")), "path: rows of 5 elements moved whole");
  EXPECT_EQ(permute_path(view("0132")), "path: 32 x 32 shared-memory tiles (the innermost dimension moves)");
}

// The paths a view can take, the heuristic's first: planes where a plane is small, runs where a run is long enough
// for a warp; element by element for any view where the innermost dimension moves.
TEST(Permute, PathsThatCanRunAView) {
  using P = PermutePath;
  // 0132 over planes of 12 x 3: tiles (the default), element by element, element pairs, a thread per row of 3, strips
  // of rows of 3, staged planes.
  EXPECT_EQ(permute_paths({172, 12, 3, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::short_rows, P::short_columns, P::strips, P::planes}));
  // A thread per input row where b is at most kPermuteShortRowsMaxB, and the rows fewer than 2^31.
  EXPECT_EQ(permute_paths({1021, 1376, 6, 1}, 4), (std::vector<P>{P::tiles, P::rows, P::short_rows, P::strips}));
  EXPECT_EQ(permute_paths({1021, 1376, 65, 1}, 4),
            (std::vector<P>{P::tiles, P::rows, P::wide_tiles, P::tiles_along_a}));
  EXPECT_EQ(permute_paths({2, std::int64_t{1} << 30, 6, 1}, 4), (std::vector<P>{P::tiles, P::rows, P::strips}));
  EXPECT_EQ(permute_path_name(P::short_rows, {1021, 1376, 6, 1}),
            "path: a thread per input row of 6 elements, written to 6 output rows");
  // Runs of 4, 8 or 16 bytes are tiled as elements of their own.
  EXPECT_EQ(permute_paths({8, 545, 2895, 2}, 2),
            (std::vector<P>{P::rows, P::rows_one_unit, P::tiled_runs, P::run_tiles}));
  EXPECT_EQ(permute_paths({8, 545, 2895, 3}, 2), (std::vector<P>{P::rows, P::rows_one_unit, P::tiled_runs}));
  EXPECT_EQ(permute_path_name(P::run_tiles, {1211, 13, 921, 4}),
            "path: 32 x 32 shared-memory tiles of whole runs of 4 elements");
  EXPECT_EQ(permute_path_name(P::strips, {172, 12, 3, 1}),
            "path: strips of rows of 3 elements staged in shared memory, read and written as contiguous spans");
  // Strips where one moved dimension is 2 to 32 elements, and the other over 1.
  // A warp per 32 output rows where a is at most kPermuteShortColumnsMaxA.
  EXPECT_EQ(permute_paths({4, 2, 275250, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::short_columns, P::strips}));
  EXPECT_EQ(permute_paths({4, 26, 275250, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::short_columns, P::strips}));
  EXPECT_EQ(permute_path_name(P::short_columns, {4, 26, 275250, 1}),
            "path: a warp per 32 output rows of 26 elements, staged in shared memory and stored as one span");
  EXPECT_EQ(permute_paths({4, 33, 275250, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::wide_tiles, P::pair_tiles, P::pair_tiles_deep,
                            P::word_tiles}));
  // 1023 with runs of 99 elements: rows (4 units in flight a thread, and 1), a warp a run (the plane is the whole
  // tensor: too big), tiles of runs, and (198 bytes, no whole number of vectors) rows in 16-byte vectors.
  EXPECT_EQ(permute_paths({1, 300, 3, 99}, 2),
            (std::vector<P>{P::rows, P::rows_one_unit, P::runs, P::tiled_runs, P::vector_rows}));
  EXPECT_EQ(permute_path_name(P::vector_rows, {1, 300, 3, 99}),
            "path: rows of 99 elements moved whole in destination-aligned 16-byte vectors");
  // Runs of whole vectors (800 bytes) move in vectors on the rows path already; runs of 32 bytes or fewer end inside
  // most vectors.
  EXPECT_EQ(permute_paths({1, 30, 40, 200}, 4), (std::vector<P>{P::rows, P::rows_one_unit, P::runs}));
  EXPECT_EQ(permute_paths({1, 30, 40, 8}, 4), (std::vector<P>{P::rows, P::rows_one_unit, P::runs, P::tiled_runs}));
  EXPECT_EQ(permute_paths({1, 30, 40, 9}, 4),
            (std::vector<P>{P::rows, P::rows_one_unit, P::runs, P::tiled_runs, P::vector_rows}));
  // 0213 with runs of 13: tiles of 16 x 16 runs (26 bytes each); runs of 200 fp32 elements (800 bytes) take none.
  EXPECT_EQ(permute_paths({1, 2510, 2624, 13}, 2), (std::vector<P>{P::rows, P::rows_one_unit, P::runs, P::tiled_runs}));
  EXPECT_EQ(permute_tile_side(26), 16);
  EXPECT_EQ(permute_tile_side(4), 32);
  EXPECT_EQ(permute_tile_side(256), 8);
  EXPECT_EQ(permute_tile_side(257), 0);
  // A large transpose: no plane fits; 64 x 64 tiles compete where both moved dimensions pass 32.
  // The 32 x 32 tiles walking a first compete where both sides pass two tiles.
  EXPECT_EQ(permute_paths({1, 8192, 8192, 1}, 4),
            (std::vector<P>{P::tiles, P::rows, P::wide_tiles, P::tiles_along_a}));
  EXPECT_EQ(permute_paths({1, 64, 65, 1}, 4), (std::vector<P>{P::tiles, P::rows, P::wide_tiles}));
  // 2-byte elements: 64 x 64 tiles moved in 4-byte pairs and 128 x 128 tiles moved in aligned words compete for any
  // sides (an odd side's rows realigned).
  EXPECT_EQ(permute_paths({1, 33, 8192, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::wide_tiles, P::pair_tiles, P::pair_tiles_deep,
                            P::word_tiles}));
  EXPECT_EQ(permute_paths({1, 34, 8192, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::wide_tiles, P::pair_tiles, P::pair_tiles_deep,
                            P::word_tiles}));
  EXPECT_EQ(permute_path_name(P::pair_tiles_deep, {1, 33, 8192, 1}),
            "path: 64 x 64 shared-memory tiles moved in 4-byte pairs of elements, 16 pairs in flight a thread (the "
            "innermost dimension moves)");
  EXPECT_EQ(permute_path_name(P::word_tiles, {1, 33, 8192, 1}),
            "path: 128 x 128 shared-memory tiles moved in aligned 4-byte words (the innermost dimension moves)");
  EXPECT_EQ(permute_paths({1, 34, 8192, 1}, 4), (std::vector<P>{P::tiles, P::rows, P::wide_tiles}));
  // 2-byte elements: a thread per output word, where the element path spends an instruction slot more than the copy.
  EXPECT_EQ(permute_path_name(P::pair_rows, {1, 33, 8192, 1}),
            "path: element pairs, each output word's two sources from its index");
  EXPECT_EQ(permute_paths({1, 32, 8192, 1}, 2),
            (std::vector<P>{P::tiles, P::rows, P::pair_rows, P::short_columns, P::strips}));
  // Runs of 5: too short for a warp; a 2 x 3 x 5 plane is staged, and tiles of runs compete.
  EXPECT_EQ(permute_paths({4, 2, 3, 5}, 4), (std::vector<P>{P::rows, P::rows_one_unit, P::planes, P::tiled_runs}));
  // A dimension of 1 moves nothing: no planes; one cudaMemcpyAsync and one copy kernel compete.
  EXPECT_EQ(permute_paths({4, 1, 3, 5}, 4), (std::vector<P>{P::rows, P::rows_one_unit, P::copy, P::copy_kernel}));
  EXPECT_EQ(permute_paths({6, 4, 1, 1}, 4), (std::vector<P>{P::tiles, P::rows, P::copy, P::copy_kernel}));
  // Planes up to kPermutePlaneMaxBytes.
  EXPECT_EQ(permute_paths({2, 32, 64, 1}, 4).back(), P::planes);           // 8 KiB
  EXPECT_EQ(permute_paths({2, 33, 65, 1}, 4).back(), P::wide_tiles);       // over
  EXPECT_EQ(permute_path_name(P::planes, {172, 12, 3, 1}),
            "path: whole 12 x 3 planes staged in shared memory, a contiguous span a block");
  EXPECT_EQ(permute_path_name(P::rows, {172, 12, 3, 1}), "path: element by element, each one's source from its index");
  EXPECT_EQ(permute_path_name(P::rows_one_unit, {1, 300, 3, 99}),
            "path: rows of 99 elements moved whole, 1 unit in flight a thread");
  // Past kPermuteRowsOneUnitMaxBytes the one-unit rows are no candidate (a last wave short beside many).
  EXPECT_EQ(permute_paths({1, 4096, 4096, 8}, 4), (std::vector<P>{P::rows, P::runs, P::tiled_runs}));
  EXPECT_EQ(permute_path_name(P::runs, {1, 300, 3, 99}),
            "path: a warp per run of 99 elements, or per 8 KiB of a longer run");
}

// The reference against the definition out[idx permuted] = in[idx], for every permutation offered.
TEST(PermuteReference, EveryPermutationMatchesItsDefinition) {
  const std::int64_t d[4] = {2, 3, 4, 5};
  std::vector<double> in(120);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
  for (const std::string& perm : permute_perms()) {
    SCOPED_TRACE(perm);
    const auto out = kernels::permute_reference(permute_view(permute_problem(permute(2, 3, 4, 5, perm.c_str()))), in);
    std::int64_t od[4];
    for (int i = 0; i < 4; ++i) od[i] = d[perm[i] - '0'];
    std::int64_t idx[4];
    for (idx[0] = 0; idx[0] < d[0]; ++idx[0])
      for (idx[1] = 0; idx[1] < d[1]; ++idx[1])
        for (idx[2] = 0; idx[2] < d[2]; ++idx[2])
          for (idx[3] = 0; idx[3] < d[3]; ++idx[3]) {
            const std::int64_t src = ((idx[0] * d[1] + idx[1]) * d[2] + idx[2]) * d[3] + idx[3];
            std::int64_t o[4];
            for (int i = 0; i < 4; ++i) o[i] = idx[perm[i] - '0'];
            const std::int64_t dst = ((o[0] * od[1] + o[1]) * od[2] + o[2]) * od[3] + o[3];
            ASSERT_EQ(out[static_cast<std::size_t>(dst)], in[static_cast<std::size_t>(src)]);
          }
  }
}
