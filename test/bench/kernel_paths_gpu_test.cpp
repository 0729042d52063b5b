// opmark's own kernels list their paths as the tuner's candidates (permute, reduce, pointwise, gather): every path
// each lists is verified here, not only the one a tuner keeps, at edge sizes (1, 2, 3, 7, 33, primes, tiny moved
// dimensions, rows of a few columns, very long rows, the largest tiles) and in every precision.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <tuple>
#include <vector>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "core/families.h"

using namespace opmark;

namespace {

class PathCase : public ::testing::TestWithParam<std::string> {};

}  // namespace

// Every permutation over shapes whose moved dimensions are tiny (planes of 12 x 3, 3 x 33 runs), odd, prime or a
// tile's edge: each path permute_paths lists (tiles walking either side first, wide tiles, pair tiles, word tiles,
// strips, element by element, element pairs, a thread a short row, a warp per 32 short columns, staged planes, a warp
// a run in destination-aligned vectors, tiles of runs, tiles of 4- to 16-byte runs, rows in 16-byte vectors with runs
// ending inside them and totals of no whole number of vectors) is exact.
TEST_P(PathCase, EveryPermutePathIsExact) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  const std::vector<std::array<std::int64_t, 4>> shapes = {
      {1, 1, 1, 1},   {2, 3, 7, 2},    {50, 7, 12, 3},  {3, 33, 3, 33}, {5, 4, 1, 1}, {1, 3, 33, 99},
      {2, 33, 12, 64}, {7, 31, 61, 5}, {1, 1, 97, 65}, {4, 32, 64, 128}, {2, 1, 509, 127}, {3, 2, 4099, 1},
      {5, 4097, 3, 2}, {2, 16, 3000, 1},
      {3, 5, 26, 2039},  // strips of 26, runs in 8 KiB pieces
      {2, 3, 98, 130},   // pair tiles with edge tiles 34 and 2 wide
      {2, 3, 2, 9001},   // runs of an odd count of 2-byte elements, in pieces
      {1, 3, 257, 129},  // word tiles with edge tiles 1 wide both ways, rows starting at either parity
      {3, 7, 1037, 8},   // strips of 8 (a padded pitch) in equal parts of a batch
      {2, 5, 300, 27}};  // a thread per row of 27 (0132), tiles of runs of 27 elements (0213)
  int verified = 0;
  for (const std::string& perm : core::permute_perms())
    for (const auto& d : shapes)
      verified += test::expect_every_candidate_verified(
          core::make_case("permute", "fwd", GetParam(),
                          {{"d0", d[0]}, {"d1", d[1]}, {"d2", d[2]}, {"d3", d[3]}, {"perm", perm}}),
          &bench::make_workload, options, ts.stream);
  EXPECT_GT(verified, static_cast<int>(core::permute_perms().size() * shapes.size()));  // more than one path a case
}

// Every op over rows of 1, 2, 3, 7, 33, a few hundred, primes and long rows, few and many: each plan reduce_plans
// lists for the shape (groups of 1 to 256 threads a row, a warp with 32 elements a lane, one-shot grids, clusters,
// shared memory, rereads, two passes, streaming groups, split rows, sum_all's grids) verifies.
TEST_P(PathCase, EveryReducePlanVerifies) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1, 1}, {7, 3}, {2, 2}, {1000, 33}, {300, 300}, {65, 100}, {3, 4097}, {84, 30000}, {2, 70001}, {33, 2048},
      {3001, 7}, {52401, 13},  // tiles cut smaller than the default's, too
      {9, 775}};               // a warp with 32 elements a lane
  for (const char* op : {"sum", "mean", "max", "sum_all", "softmax", "log_softmax", "layernorm", "rmsnorm",
                         "add_layernorm", "add_rmsnorm"})
    for (const auto& [rows, cols] : shapes)
      test::expect_every_candidate_verified(
          core::make_case("reduce", "fwd", GetParam(), {{"op", std::string(op)}, {"rows", rows}, {"cols", cols}}),
          &bench::make_workload, options, ts.stream);
}

// Every pointwise path (1, 2, 4 or 8 units a thread, a grid of one wave) on a vector's worth of columns, odd rows, a
// tensor of more tiles than a wave holds, and odd widths (flat vectors and a tail of 1 to 7 elements, but a biased op's
// rows element by element, unless there is one row or a row divides a vector).
TEST_P(PathCase, EveryPointwisePathVerifies) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {
      {1, 8}, {3, 16}, {7, 1024}, {4099, 4096}, {1, 3}, {3, 7}, {33, 1001}, {4099, 4093}, {1, 4093},
      {4099, 2}, {5, 4}, {9, 1}};  // rows that divide a vector: the bias a repeated pattern, a tail past the first row
  for (const char* op : {"copy", "gelu", "add", "bias_relu", "masked_fill"})
    for (const auto& [rows, cols] : shapes)
      test::expect_every_candidate_verified(
          core::make_case("pointwise", "fwd", GetParam(), {{"op", std::string(op)}, {"rows", rows}, {"cols", cols}}),
          &bench::make_workload, options, ts.stream);
}

// Both gather paths (a warp a row, a thread a unit) on rows of 1 to thousands of elements, vector and odd widths
// (a warp's row in destination-aligned vectors, one or several rounds of them).
TEST_P(PathCase, EveryGatherPathIsExact) {
  OPMARK_REQUIRE_GPU();
  bench::Options options;
  test::TestStream ts;
  for (const auto& [rows, cols, table] : std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>{
           {1, 1, 1}, {65536, 3, 1000}, {33, 7, 5}, {100, 768, 50257}, {1000, 1001, 300}, {7, 8, 2}, {64, 4099, 700}})
    EXPECT_EQ(test::expect_every_candidate_verified(
                  core::make_case("gather", "fwd", GetParam(), {{"rows", rows}, {"cols", cols}, {"table_rows", table}}),
                  &bench::make_workload, options, ts.stream),
              2);
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, PathCase, ::testing::Values("fp32", "fp16", "bf16"));
