// GEMM through cuBLASLt: C(m x n) = op(A) op(B), column-major, strided-batched, beta = 0.
// The top heuristic candidates are listed for the harness's tuner, which keeps the fastest, so a result shows what
// the GPU can do rather than the heuristic's first guess (its time is kept too: default_us). Candidates come from
// the stated layout and from the same product with the result stored row-major (how PyTorch runs `a @ b`); the
// label and the row_major_c counter say which one won. PyTorch's own call (torch_call below) is a candidate too,
// so a tuned GEMM is never behind what PyTorch gets from the same cuBLAS.
#include <cmath>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/handles.h"
#include "bench/families/library_types.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

cublasComputeType_t compute_type(const std::string& precision) {
  if (precision == "tf32") return CUBLAS_COMPUTE_32F_FAST_TF32;
  if (precision == "int8") return CUBLAS_COMPUTE_32I;
  return CUBLAS_COMPUTE_32F;
}

using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DestroyWith<cublasLtMatmulDescDestroy>>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, DestroyWith<cublasLtMatrixLayoutDestroy>>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, DestroyWith<cublasLtMatmulPreferenceDestroy>>;

Layout make_layout(core::DType type, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
  cublasLtMatrixLayout_t l = nullptr;
  OPMARK_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&l, cuda_data_type(type), rows, cols, rows));
  Layout out(l);
  if (batch > 1) {
    const std::int32_t count = static_cast<std::int32_t>(batch);
    const std::int64_t stride = rows * cols;
    OPMARK_CHECK_CUBLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
    OPMARK_CHECK_CUBLAS(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  return out;
}

// One way to run the case: how A and B are stored (ta, tb) and whether the result is stored column-major (C) or
// row-major (C^T, computed as op(B)^T op(A)^T with the operands swapped, as PyTorch runs `a @ b`). The descriptors
// describe the call as cuBLASLt sees it: `first` and `second` operand, `out`put of out_rows x out_cols.
struct LayoutConfig {
  bool ta = false, tb = false, row_major_c = false;
  bool op_first_t = false, op_second_t = false;
  std::int64_t out_rows = 0, out_cols = 0;
  std::int64_t ld_first = 0, ld_second = 0, size_first = 0, size_second = 0;  // per batch entry
  MatmulDesc desc;
  Layout first, second, out;
};

struct Candidate {
  int config;  // index into the workload's layout configs
  cublasLtMatmulAlgo_t algo;
  bool gemm_ex = false;  // cublasGemmStridedBatchedEx with cuBLAS's own heuristic instead of a cuBLASLt algorithm
  bool torch_call = false;  // the call PyTorch 2.11's `a @ b` (mm) or bmm makes (torch_matmul)
};

// The cuBLAS workspace PyTorch 2.11 gives its handles on sm_90 (CUBLAS_WORKSPACE_CONFIG's default there, :4096:8):
// cuBLAS's heuristic looks at the workspace it has, so the same call with opmark's workspace may run another kernel.
constexpr std::size_t kTorchWorkspaceBytes = std::size_t{4096} * 8 * 1024;

int algo_attr(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  int value = 0;
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS)
    return -1;
  return value;
}

class GemmWorkload final : public Workload {
 public:
  GemmWorkload(const core::Case& c, const RunContext& ctx)
      : precision_(c.precision), prec_(core::precision_info(c.precision)), p_(core::gemm_problem(c)) {
    const std::size_t batch = static_cast<std::size_t>(p_.batch);
    a_ = DeviceBuffer(prec_.input, p_.elements_a() * batch);
    b_ = DeviceBuffer(prec_.input, p_.elements_b() * batch);
    c_ = DeviceBuffer(prec_.output, p_.elements_c() * batch);
    workspace_ = DeviceBuffer(ctx.options.gemm_workspace_bytes());
    kernels::fill_random(a_.get(), p_.elements_a() * batch, prec_.input, ctx.seed, ctx.stream);
    kernels::fill_random(b_.get(), p_.elements_b() * batch, prec_.input, ctx.seed + 1, ctx.stream);
    kernels::fill_random(c_.get(), p_.elements_c() * batch, prec_.output, ctx.seed + 2, ctx.stream);
    if (prec_.output == core::DType::i32) {
      alpha_i_ = 1;
      beta_i_ = 0;
    }
    const bool stated_ta = p_.trans_a, stated_tb = p_.trans_b;
    add_layout(ctx, stated_ta, stated_tb, false);
    stated_has_kernels_ = !candidates_.empty();
    // The same product with the result stored row-major competes too: it is how a row-major framework runs this
    // GEMM, and cuBLASLt's kernels for the swapped problem (n x m) are sometimes faster (skinny m, odd n).
    add_layout(ctx, stated_ta, stated_tb, true);
    // Hopper's int8 and fp8 Tensor Core kernels take A transposed and B not ("TN"); for other layouts cuBLASLt
    // offers slow kernels or none. Quantized weights are stored however the engine likes, so for these precisions
    // the TN layout of the same problem competes too, and the label says which layout ran.
    const bool quantized = precision_ == "int8" || precision_ == "fp8";
    if (quantized && !(stated_ta && !stated_tb)) {
      add_layout(ctx, true, false, false);
      add_layout(ctx, true, false, true);
    }
    if (candidates_.empty())
      throw UnsupportedError("cuBLASLt offers no algorithm for " + precision_ + " with these shapes and layouts");
  }

  void launch(cudaStream_t stream) override { matmul(chosen(), stream); }

  int candidate_count() const override { return static_cast<int>(candidates_.size()); }
  std::string candidate_name(int i) const override { return kernel_name(i); }
  // The heuristic's first choice for the layout the table states, as a library user without autotuning gets it.
  int default_candidate() const override { return stated_has_kernels_ ? 0 : -1; }
  int reference_candidate() const override {
    for (int i = 0; i < candidate_count(); ++i)
      if (candidates_[static_cast<std::size_t>(i)].torch_call) return i;
    return -1;
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    // Reference: the same operands widened to float64 and multiplied by cuBLAS's DGEMM, an independent path.
    const std::size_t batch = static_cast<std::size_t>(p_.batch);
    DeviceBuffer a64(core::DType::f64, p_.elements_a() * batch);
    DeviceBuffer b64(core::DType::f64, p_.elements_b() * batch);
    DeviceBuffer c64(core::DType::f64, p_.elements_c() * batch);
    kernels::to_double(a_.get(), prec_.input, p_.elements_a() * batch, a64.as<double>(), stream);
    kernels::to_double(b_.get(), prec_.input, p_.elements_b() * batch, b64.as<double>(), stream);
    cublasHandle_t h = cublas_handle();
    OPMARK_CHECK_CUBLAS(cublasSetStream(h, stream));
    // In the orientation the chosen kernel writes: C, or C^T computed as op(B)^T op(A)^T.
    const LayoutConfig& run = running();
    const double one = 1.0, zero = 0.0;
    const double* first = run.row_major_c ? b64.as<double>() : a64.as<double>();
    const double* second = run.row_major_c ? a64.as<double>() : b64.as<double>();
    OPMARK_CHECK_CUBLAS(cublasDgemmStridedBatched(
        h, run.op_first_t ? CUBLAS_OP_T : CUBLAS_OP_N, run.op_second_t ? CUBLAS_OP_T : CUBLAS_OP_N, run.out_rows,
        run.out_cols, p_.run_k, &one, first, run.ld_first, run.size_first, second, run.ld_second, run.size_second,
        &zero, c64.as<double>(), run.out_rows, p_.elements_c(), p_.batch));
    kernels::poison(c_.get(), p_.elements_c() * batch, prec_.output, stream);
    launch(stream);
    return kernels::compare_to_reference(c_.get(), prec_.output, c64.as<double>(), p_.elements_c() * batch,
                                         core::depth_tolerance(prec_.tolerance, static_cast<double>(p_.run_k)), stream,
                                         prec_.tolerance);
  }

  std::string kernel_name(int candidate) const {
    const Candidate& c = candidates_[static_cast<std::size_t>(candidate)];
    const LayoutConfig& cfg = configs_[static_cast<std::size_t>(c.config)];
    // The layout is part of the name: the same algorithm id on another layout is another candidate.
    const std::string layout = std::string(" [") + (cfg.ta ? "T" : "N") + (cfg.tb ? "T" : "N") +
                               (cfg.row_major_c ? ", C row-major]" : "]");
    if (c.torch_call) return torch_call_name() + layout;
    if (c.gemm_ex) return "cublasGemmEx (cuBLAS's own heuristic)" + layout;
    char kernel[128];
    std::snprintf(kernel, sizeof kernel, "cublasLt algo %d tile %d stages %d splitk %d",
                  algo_attr(c.algo, CUBLASLT_ALGO_CONFIG_ID), algo_attr(c.algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                  algo_attr(c.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID), algo_attr(c.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM));
    return kernel + layout;
  }

  std::string label() const override {
    char buf[256];
    std::snprintf(buf, sizeof buf, "in %s, compute %s, out %s", core::name_of(prec_.input), prec_.compute,
                  core::name_of(prec_.output));
    std::string out = buf;
    if (p_.is_padded())
      out += " | padded to m=" + std::to_string(p_.run_m) + " n=" + std::to_string(p_.run_n) +
             " k=" + std::to_string(p_.run_k);
    const std::string note = layout_note();
    if (!note.empty()) out += " | " + note;
    if (running().row_major_c) out += " | C stored row-major (computed as C^T = op(B)^T op(A)^T, as PyTorch does)";
    return out;
  }

  std::map<std::string, double> counters() const override {
    return {
        {core::counter::row_major_c, running().row_major_c ? 1.0 : 0.0},
        {core::counter::cublas_gemm_ex, candidates_[static_cast<std::size_t>(chosen())].gemm_ex ? 1.0 : 0.0},
        {core::counter::torch_call, candidates_[static_cast<std::size_t>(chosen())].torch_call ? 1.0 : 0.0},
        {core::counter::padded, p_.is_padded() ? 1.0 : 0.0},
        {core::counter::stored_tn, layout_note().empty() ? 0.0 : 1.0},
    };
  }

 private:
  // Builds the descriptors for one layout and adds the heuristic's candidates for it.
  void add_layout(const RunContext& ctx, bool ta, bool tb, bool row_major_c) {
    LayoutConfig cfg;
    cfg.ta = ta;
    cfg.tb = tb;
    cfg.row_major_c = row_major_c;
    // A is stored k x m (ta) or m x k, B n x k (tb) or k x n, column-major, whichever orientation C has.
    Layout a = ta ? make_layout(prec_.input, p_.run_k, p_.run_m, p_.batch)
                  : make_layout(prec_.input, p_.run_m, p_.run_k, p_.batch);
    Layout b = tb ? make_layout(prec_.input, p_.run_n, p_.run_k, p_.batch)
                  : make_layout(prec_.input, p_.run_k, p_.run_n, p_.batch);
    const std::int64_t ld_a = ta ? p_.run_k : p_.run_m, ld_b = tb ? p_.run_n : p_.run_k;
    cfg.ld_first = row_major_c ? ld_b : ld_a;
    cfg.ld_second = row_major_c ? ld_a : ld_b;
    cfg.size_first = row_major_c ? p_.elements_b() : p_.elements_a();
    cfg.size_second = row_major_c ? p_.elements_a() : p_.elements_b();
    if (row_major_c) {  // C^T (n x m) = op(B)^T op(A)^T: B first, each operand's transpose flag flipped
      cfg.op_first_t = !tb;
      cfg.op_second_t = !ta;
      cfg.out_rows = p_.run_n;
      cfg.out_cols = p_.run_m;
      cfg.first = std::move(b);
      cfg.second = std::move(a);
    } else {
      cfg.op_first_t = ta;
      cfg.op_second_t = tb;
      cfg.out_rows = p_.run_m;
      cfg.out_cols = p_.run_n;
      cfg.first = std::move(a);
      cfg.second = std::move(b);
    }
    cfg.out = make_layout(prec_.output, cfg.out_rows, cfg.out_cols, p_.batch);
    cublasLtMatmulDesc_t d = nullptr;
    const cudaDataType_t scale = prec_.output == core::DType::i32 ? CUDA_R_32I : CUDA_R_32F;
    OPMARK_CHECK_CUBLAS(cublasLtMatmulDescCreate(&d, compute_type(precision_), scale));
    cfg.desc.reset(d);
    const cublasOperation_t op_first = cfg.op_first_t ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_second = cfg.op_second_t ? CUBLAS_OP_T : CUBLAS_OP_N;
    OPMARK_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first));
    OPMARK_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second));

    cublasLtMatmulPreference_t pref = nullptr;
    OPMARK_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    Preference pref_owner(pref);
    const std::uint64_t ws = workspace_.bytes();
    OPMARK_CHECK_CUBLAS(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(ctx.options.candidates));
    int returned = 0;
    cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(cublaslt_handle(), d, cfg.first.get(), cfg.second.get(),
                                                       cfg.out.get(), cfg.out.get(), pref, static_cast<int>(results.size()),
                                                       results.data(), &returned);
    if (st == CUBLAS_STATUS_NOT_SUPPORTED) return;
    OPMARK_CHECK_CUBLAS(st);
    const int config = static_cast<int>(configs_.size());
    for (int i = 0; i < returned; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS) candidates_.push_back({config, results[i].algo, false});
    // cuBLAS's classic entry point picks kernels by its own heuristic, sometimes one the cuBLASLt list above lacks
    // (it is what PyTorch's `a @ b` calls): it competes too, for the float precisions.
    if (prec_.input != core::DType::i8 && prec_.input != core::DType::f8_e4m3)
      candidates_.push_back({config, cublasLtMatmulAlgo_t{}, true});
    // PyTorch stores its result row-major: its call is a candidate of that layout, for the precisions it has.
    if (row_major_c && ta == p_.trans_a && tb == p_.trans_b && torch_runs_precision())
      candidates_.push_back({config, cublasLtMatmulAlgo_t{}, false, true});
    configs_.push_back(std::move(cfg));
  }

  bool torch_runs_precision() const {
    return precision_ == "fp32" || precision_ == "tf32" || precision_ == "fp16" || precision_ == "bf16";
  }

  std::string torch_call_name() const {
    const bool single = precision_ == "fp32" || precision_ == "tf32";
    const std::string api = single ? (p_.batch > 1 ? "cublasSgemmStridedBatched" : "cublasSgemm")
                                   : (p_.batch > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx");
    return "PyTorch's call: " + api + (single ? "" : " CUBLAS_GEMM_DEFAULT_TENSOR_OP") + ", " +
           (precision_ == "tf32" ? "TF32 tensor-op math" : "default math") + ", 32 MiB workspace";
  }

  // A handle as PyTorch 2.11 keeps one: its workspace of kTorchWorkspaceBytes, and the math mode its matmul sets
  // (TF32 tensor ops where float32 matmul precision allows TF32, else the default; the default for 2-byte types,
  // whose reduced-precision reductions PyTorch allows by default).
  cublasHandle_t torch_handle() {
    if (!torch_handle_) {
      cublasHandle_t h = nullptr;
      OPMARK_CHECK_CUBLAS(cublasCreate(&h));
      torch_handle_.reset(h);
      torch_workspace_ = DeviceBuffer(kTorchWorkspaceBytes);
      OPMARK_CHECK_CUBLAS(cublasSetWorkspace(h, torch_workspace_.get(), torch_workspace_.bytes()));
      OPMARK_CHECK_CUBLAS(
          cublasSetMathMode(h, precision_ == "tf32" ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    }
    return torch_handle_.get();
  }

  // What PyTorch 2.11 calls for `a @ b` (at::cuda::blas::gemm, batch 1) and bmm (bgemm) on its default cuBLAS
  // backend: cublasSgemm(StridedBatched) for float32, cublasGemm(StridedBatched)Ex with CUDA_R_32F as the compute
  // type and CUBLAS_GEMM_DEFAULT_TENSOR_OP for fp16 and bf16, C row-major (computed as C^T).
  void torch_matmul(const LayoutConfig& cfg, const void* first, const void* second, cudaStream_t stream) {
    cublasHandle_t h = torch_handle();
    OPMARK_CHECK_CUBLAS(cublasSetStream(h, stream));
    const cublasOperation_t op_first = cfg.op_first_t ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_second = cfg.op_second_t ? CUBLAS_OP_T : CUBLAS_OP_N;
    const auto rows = static_cast<int>(cfg.out_rows), cols = static_cast<int>(cfg.out_cols);
    const auto k = static_cast<int>(p_.run_k), ld_first = static_cast<int>(cfg.ld_first);
    const auto ld_second = static_cast<int>(cfg.ld_second), batch = static_cast<int>(p_.batch);
    if (precision_ == "fp32" || precision_ == "tf32") {
      const auto* a = static_cast<const float*>(first);
      const auto* b = static_cast<const float*>(second);
      auto* c = static_cast<float*>(c_.get());
      if (batch == 1)
        OPMARK_CHECK_CUBLAS(cublasSgemm(h, op_first, op_second, rows, cols, k, &alpha_f_, a, ld_first, b, ld_second,
                                        &beta_f_, c, rows));
      else
        OPMARK_CHECK_CUBLAS(cublasSgemmStridedBatched(h, op_first, op_second, rows, cols, k, &alpha_f_, a, ld_first,
                                                      cfg.size_first, b, ld_second, cfg.size_second, &beta_f_, c,
                                                      rows, p_.elements_c(), batch));
      return;
    }
    const cudaDataType_t type = cuda_data_type(prec_.input);
    // PyTorch passes the data type CUDA_R_32F where cuBLAS takes a compute type (the legacy spelling cuBLAS still
    // accepts): the same here, so cuBLAS reads the call exactly as it reads PyTorch's.
    const auto compute = static_cast<cublasComputeType_t>(CUDA_R_32F);
    if (batch == 1)
      OPMARK_CHECK_CUBLAS(cublasGemmEx(h, op_first, op_second, rows, cols, k, &alpha_f_, first, type, ld_first, second,
                                       type, ld_second, &beta_f_, c_.get(), type, rows, compute,
                                       CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    else
      OPMARK_CHECK_CUBLAS(cublasGemmStridedBatchedEx(
          h, op_first, op_second, rows, cols, k, &alpha_f_, first, type, ld_first, cfg.size_first, second, type,
          ld_second, cfg.size_second, &beta_f_, c_.get(), type, rows, p_.elements_c(), batch, compute,
          CUBLAS_GEMM_DEFAULT_TENSOR_OP));
  }

  // cuBLAS's classic entry point chooses its kernel at every call, by a heuristic that looks at the workspace it
  // has: left to its own pool, it chose other kernels inside a graph capture than outside one (seen with Nsight
  // Compute on an H100: an sm80 CUTLASS kernel of 17.8 us eagerly where the graph ran a 5.9 us one). A handle of the
  // workload's own, given the workload's workspace, sees the same workspace in both, as PyTorch gives its handles.
  cublasHandle_t gemm_ex_handle() {
    if (!gemm_ex_handle_) {
      cublasHandle_t h = nullptr;
      OPMARK_CHECK_CUBLAS(cublasCreate(&h));
      gemm_ex_handle_.reset(h);
      OPMARK_CHECK_CUBLAS(cublasSetWorkspace(h, workspace_.get(), workspace_.bytes()));
    }
    return gemm_ex_handle_.get();
  }

  // The layout of the candidate that runs.
  const LayoutConfig& running() const {
    return configs_[static_cast<std::size_t>(candidates_[static_cast<std::size_t>(chosen())].config)];
  }

  // What the label says when the running candidate stores the operands otherwise than the table states.
  std::string layout_note() const {
    const LayoutConfig& run = running();
    if (run.ta == p_.trans_a && run.tb == p_.trans_b) return "";
    return std::string("operands stored TN: ") + (stated_has_kernels_ ? "faster than" : "cuBLASLt has no kernel for") +
           " the stated ta=" + (p_.trans_a ? "T" : "N") + " tb=" + (p_.trans_b ? "T" : "N") + " in " + precision_ +
           " on this GPU";
  }

  void matmul(int candidate, cudaStream_t stream) {
    const LayoutConfig& cfg = configs_[candidates_[candidate].config];
    const void* alpha = prec_.output == core::DType::i32 ? static_cast<const void*>(&alpha_i_) : &alpha_f_;
    const void* beta = prec_.output == core::DType::i32 ? static_cast<const void*>(&beta_i_) : &beta_f_;
    const void* first = cfg.row_major_c ? b_.get() : a_.get();
    const void* second = cfg.row_major_c ? a_.get() : b_.get();
    if (candidates_[candidate].torch_call) return torch_matmul(cfg, first, second, stream);
    if (candidates_[candidate].gemm_ex) {
      cublasHandle_t h = gemm_ex_handle();
      OPMARK_CHECK_CUBLAS(cublasSetStream(h, stream));
      OPMARK_CHECK_CUBLAS(cublasGemmStridedBatchedEx(
          h, cfg.op_first_t ? CUBLAS_OP_T : CUBLAS_OP_N, cfg.op_second_t ? CUBLAS_OP_T : CUBLAS_OP_N, cfg.out_rows,
          cfg.out_cols, p_.run_k, alpha, first, cuda_data_type(prec_.input), cfg.ld_first, cfg.size_first, second,
          cuda_data_type(prec_.input), cfg.ld_second, cfg.size_second, beta, c_.get(), cuda_data_type(prec_.output),
          cfg.out_rows, p_.elements_c(), p_.batch, compute_type(precision_), CUBLAS_GEMM_DEFAULT));
      return;
    }
    OPMARK_CHECK_CUBLAS(cublasLtMatmul(cublaslt_handle(), cfg.desc.get(), alpha, first, cfg.first.get(), second,
                                       cfg.second.get(), beta, c_.get(), cfg.out.get(), c_.get(), cfg.out.get(),
                                       &candidates_[candidate].algo, workspace_.get(), workspace_.bytes(), stream));
  }

  std::string precision_;
  const core::PrecisionInfo& prec_;
  core::GemmProblem p_;
  DeviceBuffer a_, b_, c_, workspace_;
  std::vector<LayoutConfig> configs_;
  std::vector<Candidate> candidates_;
  bool stated_has_kernels_ = false;  // cuBLASLt had candidates for the table's own layout
  std::unique_ptr<cublasContext, DestroyWith<cublasDestroy>> gemm_ex_handle_;  // after workspace_: destroyed before it
  DeviceBuffer torch_workspace_;
  std::unique_ptr<cublasContext, DestroyWith<cublasDestroy>> torch_handle_;  // after its workspace, likewise
  float alpha_f_ = 1.0f, beta_f_ = 0.0f;
  std::int32_t alpha_i_ = 1, beta_i_ = 0;
};

}  // namespace

const WorkloadFactory make_gemm_workload = construct_workload<GemmWorkload>;

}  // namespace opmark::bench
