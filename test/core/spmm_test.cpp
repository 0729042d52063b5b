// The spmm family on the host: the sparsity field (a fraction, one canonical spelling), the non-zero count, and
// the FLOP and byte arithmetic.
#include <gtest/gtest.h>

#include "core/case.h"
#include "core/error.h"
#include "core/families.h"

using namespace opmark::core;

static Case spmm(const std::string& sparsity, std::int64_t m = 100, std::int64_t n = 30, std::int64_t k = 200,
                 const char* precision = "fp16") {
  return make_case("spmm", "fwd", precision, {{"m", m}, {"n", n}, {"k", k}, {"sparsity", sparsity}});
}

TEST(Spmm, SparsityIsAFractionWithOneSpelling) {
  EXPECT_EQ(make_case_name(spmm("0.950")), "spmm/fwd/fp16/m=100/n=30/k=200/sparsity=0.95/format=csr");
  EXPECT_EQ(make_case_name(spmm("0.9")), make_case_name(parse_case_name(make_case_name(spmm("0.90")))));
  EXPECT_THROW(spmm("1"), opmark::Error);    // all zeros is not a product
  EXPECT_THROW(spmm("-0.1"), opmark::Error);
  EXPECT_THROW(spmm("95%"), opmark::Error);
}

TEST(Spmm, NonZerosPerRowAndUsefulFlops) {
  const SpmmProblem p = spmm_problem(spmm("0.95"));
  EXPECT_EQ(p.nnz_per_row, 10);  // 200 x 0.05
  EXPECT_EQ(p.nnz(), 1000);
  EXPECT_EQ(spmm_problem(spmm("0.999")).nnz_per_row, 1);  // never an empty row
  const Work w = work_of(spmm("0.95"));
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 1000 * 30);
  // CSR values (2 bytes) and int32 column indices, 101 int32 row offsets, B (200 x 30) read; C (100 x 30) written.
  EXPECT_DOUBLE_EQ(w.bytes_read, 1000.0 * (2 + 4) + 101.0 * 4 + 200.0 * 30 * 2);
  EXPECT_DOUBLE_EQ(w.bytes_written, 100.0 * 30 * 2);
}

TEST(Spmm, RandomPatternHasDistinctSortedColumnsAndIsSeeded) {
  std::vector<std::int32_t> offsets, columns, offsets2, columns2;
  random_csr_pattern(50, 64, 60, 7, &offsets, &columns);  // 60 of 64: the sampling must not repeat a column
  ASSERT_EQ(offsets.size(), 51u);
  ASSERT_EQ(columns.size(), 50u * 60);
  for (std::size_t r = 0; r < 50; ++r) {
    EXPECT_EQ(offsets[r + 1] - offsets[r], 60);
    for (std::int32_t i = offsets[r] + 1; i < offsets[r + 1]; ++i) EXPECT_LT(columns[i - 1], columns[i]);
    EXPECT_GE(columns[offsets[r]], 0);
    EXPECT_LT(columns[offsets[r + 1] - 1], 64);
  }
  random_csr_pattern(50, 64, 60, 7, &offsets2, &columns2);
  EXPECT_EQ(columns, columns2);
  random_csr_pattern(50, 64, 60, 8, &offsets2, &columns2);
  EXPECT_NE(columns, columns2);
}

TEST(Spmm, BlockedEllCountsWholeBlocks) {
  EXPECT_EQ(ell_block_size(3072, 768), 32);
  EXPECT_EQ(ell_block_size(7860, 2560), 4);  // 7860 = 4 x 1965
  EXPECT_EQ(ell_block_size(77, 301), 0);
  const Case c = make_case("spmm", "fwd", "fp16",
                           {{"m", 256}, {"n", 10}, {"k", 512}, {"sparsity", std::string("0.9")},
                            {"format", std::string("bell")}});
  const SpmmProblem p = spmm_problem(c);
  EXPECT_EQ(p.block, 32);
  EXPECT_EQ(p.nnz_per_row, 64);  // round(16 blocks x 0.1) = 2 blocks of 32 per block row
  const Work w = spmm_work(c);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 256 * 64 * 10);
  // values (2 B each), one int32 column per 32 x 32 block, B read, C written
  EXPECT_DOUBLE_EQ(w.bytes_read, 256.0 * 64 * 2 + 256.0 * 64 / 1024 * 4 + 512.0 * 10 * 2);
  EXPECT_DOUBLE_EQ(w.bytes_written, 256.0 * 10 * 2);
}
