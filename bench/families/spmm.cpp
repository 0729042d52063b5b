// Sparse GEMM (the spmm family): C (m x n) = A (m x k, CSR, a random pattern with the same number of non-zeros in
// every row) times B (k x n, dense), B and C row-major, through cuSPARSE's generic API (SpMM; SpMV when n = 1).
// cuSPARSE's algorithms are timed once and the fastest kept. The dense product of the same shape runs through the
// GEMM family (autotuned and verified there, on random operands) so each case reports DeepBench's speedup column.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "bench/harness/tuning/autotune.h"
#include "bench/families/factories.h"
#include "bench/families/handles.h"
#include "bench/families/library_check.h"
#include "bench/families/library_types.h"
#include "bench/harness/harness.h"
#include "bench/harness/timing/measure_case.h"
#include "bench/families/memory_bound.h"
#include "bench/harness/timing/timer.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

struct Algorithm {
  const char* name;
  int id;  // cusparseSpMMAlg_t or cusparseSpMVAlg_t
};

class SpmmWorkload final : public Workload {
 public:
  SpmmWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::spmm_problem(c)), prec_(core::precision_info(c.precision)), type_(cuda_data_type(prec_.input)) {
    // cuSPARSE's SpMM takes more types; the family's tables and verification cover these three.
    core::require_float_type(prec_.input, "spmm runs");
    if (static_cast<double>(p_.nnz()) >= 2147483647.0) throw UnsupportedError("more than 2^31 - 1 non-zeros");
    if (ell() && p_.block == 0)
      throw UnsupportedError("Blocked-ELL needs a block edge (32, 16, 8, 4 or 2) dividing both m and k");
    // Measured on an H100 (cuSPARSE 12.6): both Blocked-ELL algorithms give fp32 a rel-norm error of 2.6e-4 against
    // float64, the signature of TF32 Tensor Cores; reporting that as fp32 would overstate what ran.
    if (ell() && prec_.input == core::DType::f32)
      throw UnsupportedError("cuSPARSE's Blocked-ELL SpMM runs fp32 on TF32 Tensor Cores, not fp32 math "
                             "(rel-norm error 2.6e-4 against float64); fp16 and bf16 are measured");
    values_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.nnz()));
    b_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.k * p_.n));
    c_ = DeviceBuffer(prec_.input, static_cast<std::size_t>(p_.m * p_.n));
    kernels::fill_random(values_.get(), static_cast<std::size_t>(p_.nnz()), prec_.input, ctx.seed + 1, ctx.stream);
    kernels::fill_random(b_.get(), static_cast<std::size_t>(p_.k * p_.n), prec_.input, ctx.seed + 2, ctx.stream);
    if (ell()) make_blocked_ell(ctx);
    else make_csr(ctx);

    if (vector()) {
      OPMARK_CHECK_CUSPARSE(cusparseCreateDnVec(&x_desc_, p_.k, b_.get(), type_));
      OPMARK_CHECK_CUSPARSE(cusparseCreateDnVec(&y_desc_, p_.m, c_.get(), type_));
      algorithms_ = {{"SpMV default", CUSPARSE_SPMV_ALG_DEFAULT},
                     {"SpMV CSR_ALG1", CUSPARSE_SPMV_CSR_ALG1},
                     {"SpMV CSR_ALG2", CUSPARSE_SPMV_CSR_ALG2}};
    } else {
      OPMARK_CHECK_CUSPARSE(cusparseCreateDnMat(&b_desc_, p_.k, p_.n, p_.n, b_.get(), type_, CUSPARSE_ORDER_ROW));
      OPMARK_CHECK_CUSPARSE(cusparseCreateDnMat(&c_desc_, p_.m, p_.n, p_.n, c_.get(), type_, CUSPARSE_ORDER_ROW));
      if (ell())
        algorithms_ = {{"SpMM default", CUSPARSE_SPMM_ALG_DEFAULT},
                       {"SpMM BLOCKED_ELL_ALG1", CUSPARSE_SPMM_BLOCKED_ELL_ALG1}};
      else
        algorithms_ = {{"SpMM default", CUSPARSE_SPMM_ALG_DEFAULT},
                       {"SpMM CSR_ALG1", CUSPARSE_SPMM_CSR_ALG1},
                       {"SpMM CSR_ALG2", CUSPARSE_SPMM_CSR_ALG2},
                       {"SpMM CSR_ALG3", CUSPARSE_SPMM_CSR_ALG3}};
    }
    prepare_algorithms(ctx.stream);
    time_dense(c, ctx);
  }

  ~SpmmWorkload() override {
    if (a_desc_) cusparseDestroySpMat(a_desc_);
    if (b_desc_) cusparseDestroyDnMat(b_desc_);
    if (c_desc_) cusparseDestroyDnMat(c_desc_);
    if (x_desc_) cusparseDestroyDnVec(x_desc_);
    if (y_desc_) cusparseDestroyDnVec(y_desc_);
  }

  void launch(cudaStream_t stream) override { run(chosen(), stream); }

  int candidate_count() const override { return static_cast<int>(usable_.size()); }
  std::string candidate_name(int i) const override {
    return std::string("cuSPARSE ") + algorithms_[static_cast<std::size_t>(usable_[static_cast<std::size_t>(i)])].name;
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    // Reference: A made dense in float64 on the host from the pattern and the values, times B widened, by DGEMM.
    // Row-major A (m x k) and B, C are the column-major transposes, so C^T = B^T A^T.
    const std::vector<double> values = download_as_double(values_, prec_.input, static_cast<std::size_t>(p_.nnz()),
                                                          stream);
    std::vector<double> dense_a(static_cast<std::size_t>(p_.m * p_.k), 0.0);
    for (std::int64_t r = 0; r < p_.m; ++r)
      for (std::int32_t i = offsets_host_[r]; i < offsets_host_[r + 1]; ++i)
        dense_a[static_cast<std::size_t>(r * p_.k + columns_host_[i])] = values[static_cast<std::size_t>(i)];
    const DeviceBuffer a64 = upload(dense_a, stream);
    DeviceBuffer b64(core::DType::f64, static_cast<std::size_t>(p_.k * p_.n));
    DeviceBuffer c64(core::DType::f64, static_cast<std::size_t>(p_.m * p_.n));
    kernels::to_double(b_.get(), prec_.input, static_cast<std::size_t>(p_.k * p_.n), b64.as<double>(), stream);
    cublasHandle_t h = cublas_handle();
    OPMARK_CHECK_CUBLAS(cublasSetStream(h, stream));
    const double one = 1.0, zero = 0.0;
    OPMARK_CHECK_CUBLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(p_.n), int(p_.m), int(p_.k), &one,
                                    b64.as<double>(), int(p_.n), a64.as<double>(), int(p_.k), &zero, c64.as<double>(),
                                    int(p_.n)));
    const std::size_t count = static_cast<std::size_t>(p_.m * p_.n);
    kernels::poison(c_.get(), count, prec_.input, stream);
    launch(stream);
    return kernels::compare_to_reference(c_.get(), prec_.input, c64.as<double>(), count,
                                         core::depth_tolerance(prec_.tolerance, double(p_.nnz_per_row)), stream,
                                         prec_.tolerance);
  }

  std::string label() const override {
    char buf[256];
    const std::string format = ell() ? "Blocked-ELL A (" + std::to_string(p_.block) + "x" +
                                           std::to_string(p_.block) + " blocks)"
                                     : std::string("CSR A");
    std::snprintf(buf, sizeof buf, "%s, B and C row-major | dense: %s", format.c_str(), dense_label_.c_str());
    return std::string(buf) + " | in " + core::name_of(prec_.input) + ", compute fp32, out " +
           core::name_of(prec_.input);
  }

  // The dense product's time, for DeepBench's speedup column (the spreadsheet divides it by this case's time).
  std::map<std::string, double> counters() const override {
    return {{core::counter::nnz, static_cast<double>(p_.nnz())}, {core::counter::dense_us, dense_seconds_ * 1e6}};
  }

 private:
  bool ell() const { return p_.format == "bell"; }
  // SpMV takes no Blocked-ELL matrix: a Blocked-ELL case with n = 1 runs through SpMM.
  bool vector() const { return p_.n == 1 && !ell(); }

  void make_csr(const RunContext& ctx) {
    core::random_csr_pattern(p_.m, p_.k, p_.nnz_per_row, ctx.seed, &offsets_host_, &columns_host_);
    offsets_ = upload(offsets_host_, ctx.stream);
    columns_ = upload(columns_host_, ctx.stream);
    OPMARK_CHECK_CUSPARSE(cusparseCreateCsr(&a_desc_, p_.m, p_.k, p_.nnz(), offsets_.get(), columns_.get(),
                                            values_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type_));
  }

  // Blocked-ELL: a random block pattern (the same number of blocks in every block row), values row-major m x
  // ell_cols. The reference reads it through the equivalent element-level CSR arrays built here on the host: row r's
  // values are exactly values[r * ell_cols, (r + 1) * ell_cols), in column order.
  void make_blocked_ell(const RunContext& ctx) {
    const std::int64_t b = p_.block, ell_cols = p_.nnz_per_row, per_block_row = ell_cols / b;
    std::vector<std::int32_t> block_offsets, block_columns;
    core::random_csr_pattern(p_.m / b, p_.k / b, per_block_row, ctx.seed, &block_offsets, &block_columns);
    block_columns_ = upload(block_columns, ctx.stream);
    offsets_host_.resize(static_cast<std::size_t>(p_.m + 1));
    columns_host_.resize(static_cast<std::size_t>(p_.nnz()));
    for (std::int64_t r = 0; r <= p_.m; ++r) offsets_host_[static_cast<std::size_t>(r)] = std::int32_t(r * ell_cols);
    for (std::int64_t r = 0; r < p_.m; ++r)
      for (std::int64_t j = 0; j < per_block_row; ++j)
        for (std::int64_t e = 0; e < b; ++e)
          columns_host_[static_cast<std::size_t>(r * ell_cols + j * b + e)] =
              std::int32_t(block_columns[static_cast<std::size_t>((r / b) * per_block_row + j)] * b + e);
    OPMARK_CHECK_CUSPARSE(cusparseCreateBlockedEll(&a_desc_, p_.m, p_.k, b, ell_cols, block_columns_.get(),
                                                   values_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                   type_));
  }

  // A buffer (and ALG3's preprocessing) for every algorithm; those cuSPARSE refuses here are left out. Each
  // algorithm keeps its own buffer: what preprocessing writes there must survive the other algorithms' runs.
  void prepare_algorithms(cudaStream_t stream) {
    cusparseHandle_t h = cusparse_handle();
    OPMARK_CHECK_CUSPARSE(cusparseSetStream(h, stream));
    buffers_.resize(algorithms_.size());
    for (std::size_t i = 0; i < algorithms_.size(); ++i) {
      std::size_t bytes = 0;
      const cusparseStatus_t st =
          vector() ? cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a_desc_, x_desc_, &beta_,
                                             y_desc_, CUDA_R_32F, cusparseSpMVAlg_t(algorithms_[i].id), &bytes)
                   : cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             &alpha_, a_desc_, b_desc_, &beta_, c_desc_, CUDA_R_32F,
                                             cusparseSpMMAlg_t(algorithms_[i].id), &bytes);
      if (st != CUSPARSE_STATUS_SUCCESS) continue;
      usable_.push_back(static_cast<int>(i));
      buffers_[i] = DeviceBuffer(std::max<std::size_t>(bytes, 1));
    }
    if (usable_.empty()) throw UnsupportedError("cuSPARSE offers no algorithm for this case in " + std::string(prec_.name));
    if (!vector()) {
      std::vector<int> kept;
      for (int i : usable_) {
        if (algorithms_[static_cast<std::size_t>(i)].id == CUSPARSE_SPMM_CSR_ALG3 &&
            cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_,
                                    a_desc_, b_desc_, &beta_, c_desc_, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG3,
                                    buffers_[static_cast<std::size_t>(i)].get()) != CUSPARSE_STATUS_SUCCESS)
          continue;
        kept.push_back(i);
      }
      usable_ = kept;
    }
  }

  void run(int candidate, cudaStream_t stream) {
    cusparseHandle_t h = cusparse_handle();
    OPMARK_CHECK_CUSPARSE(cusparseSetStream(h, stream));
    const std::size_t index = static_cast<std::size_t>(usable_[static_cast<std::size_t>(candidate)]);
    const Algorithm& a = algorithms_[index];
    void* buffer = buffers_[index].get();
    if (vector()) {
      OPMARK_CHECK_CUSPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha_, a_desc_, x_desc_, &beta_,
                                         y_desc_, CUDA_R_32F, cusparseSpMVAlg_t(a.id), buffer));
    } else {
      OPMARK_CHECK_CUSPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &alpha_, a_desc_, b_desc_, &beta_, c_desc_, CUDA_R_32F,
                                         cusparseSpMMAlg_t(a.id), buffer));
    }
  }

  // The dense product of the same shape through the GEMM family: tuned and verified as the harness does, and
  // measured through the run's entry point as a case is (its L2 mode, regime, stopping rule and throttle retake).
  void time_dense(const core::Case& c, const RunContext& ctx) {
    const core::Case dense = core::make_case("gemm", "fwd", c.precision,
                                             {{"m", p_.m}, {"n", p_.n}, {"k", p_.k}});
    try {
      std::unique_ptr<Workload> gemm = make_gemm_workload(dense, ctx);
      TuningResult tuning;
      const Outcome o =
          tune_and_verify(*gemm, ctx.stream, ctx.options.graph_timing, &tuning, nullptr, ctx.options.batch_s);
      if (o.status != Status::ok) {
        dense_label_ = "not timed: " + o.reason;
        return;
      }
      std::optional<Measurer> own;
      Measurer* measurer = ctx.measurer;
      if (!measurer) measurer = &own.emplace(ctx.options, nullptr, ctx.group);
      dense_seconds_ = measurer->measure_alone(*gemm, ctx.stream).median_s;
      dense_label_ = gemm->candidate_name(gemm->chosen());
      return;
    } catch (const std::exception& e) {  // the dense product may not fit where the sparse one does
      dense_label_ = std::string("not timed: ") + e.what();
    }
  }

  core::SpmmProblem p_;
  const core::PrecisionInfo& prec_;
  cudaDataType_t type_;
  std::vector<std::int32_t> offsets_host_, columns_host_;
  DeviceBuffer offsets_, columns_, block_columns_, values_, b_, c_;
  std::vector<DeviceBuffer> buffers_;  // one per entry of algorithms_
  cusparseSpMatDescr_t a_desc_ = nullptr;
  cusparseDnMatDescr_t b_desc_ = nullptr, c_desc_ = nullptr;
  cusparseDnVecDescr_t x_desc_ = nullptr, y_desc_ = nullptr;
  std::vector<Algorithm> algorithms_;
  std::vector<int> usable_;  // indices into algorithms_ that cuSPARSE accepts for this case; chosen() indexes it
  const float alpha_ = 1.0f, beta_ = 0.0f;
  double dense_seconds_ = 0;
  std::string dense_label_ = "not timed";
};

}  // namespace

const WorkloadFactory make_spmm_workload = construct_workload<SpmmWorkload>;

}  // namespace opmark::bench
