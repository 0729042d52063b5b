#include <algorithm>
#include <cmath>
#include <random>

#include "core/families.h"
#include "core/precision.h"

namespace opmark::core {
namespace {

// The sparse A's dense shape bounds its non-zeros (and the dense GEMM timed beside it); B and C must be sizes a GPU
// could hold. This also keeps SpmmProblem's products inside int64.
std::string check_spmm(const Case& c) {
  const SpmmProblem p = spmm_problem(c);
  return first_problem({check_tensor_size("the sparse A", "m x k", {p.m, p.k}),
                        check_tensor_size("the dense B", "k x n", {p.k, p.n}),
                        check_tensor_size("the result C", "m x n", {p.m, p.n})});
}

}  // namespace

Schema spmm_schema() {
  Schema s;
  s.family = "spmm";
  s.help = "sparse A (m x k, random pattern at the given sparsity) times dense B (k x n), through cuSPARSE";
  s.fields = {
      {"m", FieldKind::positive_int, std::nullopt, {}, "rows of the sparse A and of C", ""},
      {"n", FieldKind::positive_int, std::nullopt, {}, "columns of the dense B and of C (1: a vector, SpMV)", ""},
      {"k", FieldKind::positive_int, std::nullopt, {}, "columns of A, rows of B", ""},
      {"sparsity", FieldKind::fraction, std::nullopt, {}, "share of A's elements that are zero", ""},
      {"format", FieldKind::choice, FieldValue{std::string("csr")}, {"csr", "bell"},
       "A's sparse format: csr, or bell (Blocked-ELL: square blocks, the same number in every block row)", ""},
  };
  s.directions = {"fwd"};
  s.precisions = {"fp32", "fp16", "bf16"};
  s.check = &check_spmm;
  return s;
}

SpmmProblem spmm_problem(const Case& c) {
  SpmmProblem p;
  p.m = c.int_field("m");
  p.n = c.int_field("n");
  p.k = c.int_field("k");
  p.sparsity = fraction_of(c.values.at(static_cast<std::size_t>(c.schema().index_of("sparsity"))));
  p.format = c.str_field("format");
  if (p.format == "bell") {
    p.block = ell_block_size(p.m, p.k);
    if (p.block == 0) return p;  // the workload reports it unsupported; counts stay those of CSR
    // Whole blocks: every block row holds round((k / block) (1 - sparsity)) of them, at least one.
    const std::int64_t per_block_row =
        std::max<std::int64_t>(1, std::llround(static_cast<double>(p.k / p.block) * (1.0 - p.sparsity)));
    p.nnz_per_row = per_block_row * p.block;
    return p;
  }
  // Every row holds the same number of non-zeros (at least one), so the pattern's density is exact per row.
  p.nnz_per_row = std::max<std::int64_t>(1, std::llround(static_cast<double>(p.k) * (1.0 - p.sparsity)));
  return p;
}

std::int64_t ell_block_size(std::int64_t m, std::int64_t k) {
  for (std::int64_t b : {32, 16, 8, 4, 2})
    if (m % b == 0 && k % b == 0) return b;
  return 0;
}

// FLOPs: the useful ones, 2 x nnz x n (DeepBench's sparse convention); bytes: A's values and indices (CSR: a column
// per value and the row offsets; Blocked-ELL: a column per block), B read once, C written once.
Work spmm_work(const Case& c) {
  const SpmmProblem p = spmm_problem(c);
  const double elem = static_cast<double>(size_of(precision_info(c.precision).input));
  // In doubles: no integer product to overflow.
  const double m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  const double nnz = m * static_cast<double>(p.nnz_per_row), block = static_cast<double>(p.block);
  Work w;
  w.flops = 2.0 * nnz * n;
  const double index_bytes = p.block > 0 ? nnz / (block * block) * 4.0 : nnz * 4.0 + (m + 1.0) * 4.0;
  w.bytes_read = nnz * elem + index_bytes + k * n * elem;
  w.bytes_written = m * n * elem;
  return w;
}

// A CSR pattern with `per_row` distinct, sorted columns in every row, seeded (Floyd's sampling per row).
void random_csr_pattern(std::int64_t m, std::int64_t k, std::int64_t per_row, std::uint64_t seed,
                        std::vector<std::int32_t>* offsets, std::vector<std::int32_t>* columns) {
  std::mt19937_64 rng(seed);
  offsets->assign(static_cast<std::size_t>(m + 1), 0);
  columns->clear();
  columns->reserve(static_cast<std::size_t>(m * per_row));
  std::vector<std::int32_t> row;
  std::vector<bool> taken(static_cast<std::size_t>(k), false);
  for (std::int64_t r = 0; r < m; ++r) {
    row.clear();
    for (std::int64_t j = k - per_row; j < k; ++j) {
      auto t = static_cast<std::int32_t>(std::uniform_int_distribution<std::int64_t>(0, j)(rng));
      if (taken[static_cast<std::size_t>(t)]) t = static_cast<std::int32_t>(j);
      taken[static_cast<std::size_t>(t)] = true;
      row.push_back(t);
    }
    for (std::int32_t t : row) taken[static_cast<std::size_t>(t)] = false;
    std::sort(row.begin(), row.end());
    columns->insert(columns->end(), row.begin(), row.end());
    (*offsets)[static_cast<std::size_t>(r + 1)] = static_cast<std::int32_t>(columns->size());
  }
}

}  // namespace opmark::core
