// Reductions and row normalisations (the reduce family): opmark's kernels (kernels/reduce.cu; every plan that can run
// the shape is a candidate the tuner times, the planner's own first as the default; the chosen path is in the label,
// the reads of the input in the `input_passes` counter) or the cuDNN call for the same op (cudnnReduceTensor,
// cudnnSoftmaxForward), on a rows x cols tensor. Memory bound: judged by GB/s, no FLOPs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/memory_bound.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "core/reduce_path.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"
#include "kernels/reduce.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

#ifdef OPMARK_HAVE_CUDNN
// cudnnReduceTensor (ADD, AVG, MAX; sum_all reduces to a 1 x 1 tensor) or cudnnSoftmaxForward (ACCURATE, or LOG
// for log_softmax; one instance per row), fp32 math.
class CudnnReduce final : public CudnnOp {
 public:
  CudnnReduce(const std::string& op, core::DType type, std::int64_t rows, std::int64_t cols, const void* x, void* out)
      : softmax_(core::reduce_is_softmax(op)), log_(op == "log_softmax"), x_(x), out_(out) {
    if (rows * cols > INT32_MAX) throw UnsupportedError("cuDNN tensor descriptors take at most 2^31 - 1 elements");
    // cudnnReduceTensor answers CUDNN_STATUS_BAD_PARAM when no dimension shrinks (checked before anything is made).
    if (!softmax_ && (op == "sum_all" ? rows * cols == 1 : cols == 1))
      throw UnsupportedError("cuDNN's reduce-tensor rejects a reduction that leaves the shape unchanged "
                             "(CUDNN_STATUS_BAD_PARAM)");
    if (softmax_) {  // INSTANCE mode normalises over C x H x W of each N: N = rows, C = cols
      in_ = tensor_4d(type, rows, cols, 1, 1);
      out_desc_ = tensor_4d(type, rows, cols, 1, 1);
      return;
    }
    in_ = tensor_4d(type, 1, 1, rows, cols);
    out_desc_ = tensor_4d(type, 1, 1, op == "sum_all" ? 1 : rows, 1);
    cudnnReduceTensorDescriptor_t d = nullptr;
    OPMARK_CHECK_CUDNN(cudnnCreateReduceTensorDescriptor(&d));
    reduce_.reset(d);
    const cudnnReduceTensorOp_t rop = op == "max" ? CUDNN_REDUCE_TENSOR_MAX
                                      : op == "mean" ? CUDNN_REDUCE_TENSOR_AVG
                                                     : CUDNN_REDUCE_TENSOR_ADD;
    OPMARK_CHECK_CUDNN(cudnnSetReduceTensorDescriptor(d, rop, CUDNN_DATA_FLOAT, CUDNN_PROPAGATE_NAN,
                                                      CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
    std::size_t bytes = 0;
    OPMARK_CHECK_CUDNN(cudnnGetReductionWorkspaceSize(cudnn_handle(), d, in_.get(), out_desc_.get(), &bytes));
    workspace_ = DeviceBuffer(bytes);
  }

  void run(cudaStream_t stream) override {
    cudnnHandle_t h = cudnn_on(stream);
    const float one = 1.0f, zero = 0.0f;
    if (softmax_) {
      OPMARK_CHECK_CUDNN(cudnnSoftmaxForward(h, log_ ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                             CUDNN_SOFTMAX_MODE_INSTANCE, &one, in_.get(), x_, &zero,
                                             out_desc_.get(), out_));
      return;
    }
    OPMARK_CHECK_CUDNN(cudnnReduceTensor(h, reduce_.get(), nullptr, 0, workspace_.get(), workspace_.bytes(), &one,
                                         in_.get(), x_, &zero, out_desc_.get(), out_));
  }
  std::string name() const override {
    return softmax_ ? "cuDNN cudnnSoftmaxForward" : "cuDNN cudnnReduceTensor";
  }

 private:
  bool softmax_, log_;
  const void* x_;
  void* out_;
  TensorDesc in_, out_desc_;
  ReduceTensorDesc reduce_;
  DeviceBuffer workspace_;
};
#endif

class ReduceWorkload final : public KernelOrCudnnWorkload {
 public:
  ReduceWorkload(const core::Case& c, const RunContext& ctx)
      : KernelOrCudnnWorkload(c), p_(core::tensor_op_problem(c)), prec_(core::precision_info(c.precision)),
        op_(kernels::reduce_op(p_.op)) {
    const std::size_t n = static_cast<std::size_t>(p_.rows * p_.cols), cols = static_cast<std::size_t>(p_.cols);
    x_ = DeviceBuffer(prec_.input, n);
    out_ = DeviceBuffer(prec_.input, out_elements());
    kernels::fill_random(x_.get(), n, prec_.input, ctx.seed, ctx.stream);
    if (core::reduce_adds_residual(p_.op)) {
      residual_ = DeviceBuffer(prec_.input, n);
      kernels::fill_random(residual_.get(), n, prec_.input, ctx.seed + 3, ctx.stream);
    }
    if (core::reduce_weights(p_.op) >= 1) {  // around 1, as trained norms' weights are
      gamma_ = DeviceBuffer(prec_.input, cols);
      kernels::fill_uniform(gamma_.get(), cols, prec_.input, ctx.seed + 1, 0.5, 1.5, ctx.stream);
    }
    if (core::reduce_weights(p_.op) >= 2) {
      beta_ = DeviceBuffer(prec_.input, cols);
      kernels::fill_random(beta_.get(), cols, prec_.input, ctx.seed + 2, ctx.stream);
    }
    if (wants_cudnn()) {
#ifdef OPMARK_HAVE_CUDNN
      use_cudnn(std::make_unique<CudnnReduce>(p_.op, prec_.input, p_.rows, p_.cols, x_.get(), out_.get()));
#endif
      return;
    }
    plans_ = kernels::plan_reduce_candidates(p_.op, prec_.input, tensors(), p_.rows, p_.cols);
    std::size_t workspace = 0;
    for (const core::ReducePlan& plan : plans_)
      workspace = std::max(workspace, kernels::reduce_workspace_bytes(plan, p_.rows));
    workspace_ = DeviceBuffer(workspace);
  }

  void launch_kernel(cudaStream_t stream) override {
    kernels::launch_reduce(op_, prec_.input, plan(), tensors(), p_.rows, p_.cols, stream);
  }

  // One plan (or the cuDNN call) is nothing to tune.
  int candidate_count() const override { return plans_.size() > 1 ? static_cast<int>(plans_.size()) : 0; }
  std::string candidate_name(int i) const override { return plans_[static_cast<std::size_t>(i)].label; }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const std::size_t n = static_cast<std::size_t>(p_.rows * p_.cols), cols = static_cast<std::size_t>(p_.cols);
    // The float64 reference on the GPU, as the pointwise family's: no copy of the rows through the host.
    const DeviceBuffer x = widen_on_device(x_, prec_.input, n, stream);
    const DeviceBuffer residual = widen_on_device(residual_, prec_.input, residual_.get() ? n : 0, stream);
    const DeviceBuffer gamma = widen_on_device(gamma_, prec_.input, gamma_.get() ? cols : 0, stream);
    const DeviceBuffer beta = widen_on_device(beta_, prec_.input, beta_.get() ? cols : 0, stream);
    const std::size_t outputs = static_cast<std::size_t>(core::reduce_outputs(p_));
    const DeviceBuffer ref(core::DType::f64, outputs);
    kernels::reduce_reference_on_device(op_, x.as<double>(), residual.as<double>(), gamma.as<double>(),
                                        beta.as<double>(), p_.rows, p_.cols, prec_.input, ref.as<double>(), stream);
    kernels::poison(out_.get(), out_elements(), prec_.input, stream);
    launch(stream);
    // Sums accumulate cols (sum_all: every) element; the normalisations one row's statistics each.
    const double depth = op_ == kernels::ReduceOp::sum_all ? double(n) : double(p_.cols);
    const double tolerance = core::depth_tolerance(prec_.tolerance, depth);
    if (!core::reduce_adds_residual(p_.op))
      return kernels::compare_to_reference(out_.get(), prec_.input, ref.as<double>(), outputs, tolerance, stream,
                                           prec_.tolerance);
    // The normalised rows, then the sum at its aligned offset (kernels::reduce_sum_offset); the reference holds
    // them back to back. The first part found wrong is the answer; both right, the sum's result says so.
    const kernels::CompareResult normalised = kernels::compare_to_reference(
        out_.get(), prec_.input, ref.as<double>(), n, tolerance, stream, prec_.tolerance);
    if (!normalised.ok()) return normalised;
    const std::size_t offset = static_cast<std::size_t>(kernels::reduce_sum_offset(p_.rows, p_.cols));
    return kernels::compare_to_reference(static_cast<char*>(out_.get()) + offset * core::size_of(prec_.input),
                                         prec_.input, ref.as<double>() + n, n, tolerance, stream, prec_.tolerance);
  }

  // A tuned case's label names its plan first (the harness puts the chosen candidate there).
  std::string label() const override {
    const std::string base = KernelOrCudnnWorkload::label();
    return runs_cudnn() || candidate_count() > 0 ? base : base + " | " + plan().label;
  }

  // Reads of the input: 1 where a row is kept (registers, shared memory) or reduced as read, 2 for two passes and
  // rereads; `memory_passes` counts the reads memory serves (a reread from L2 is not one).
  std::map<std::string, double> counters() const override {
    if (runs_cudnn()) return {};
    return {{core::counter::input_passes, static_cast<double>(plan().passes)},
            {core::counter::memory_passes, static_cast<double>(core::memory_reads(plan()))}};
  }

 private:
  // Elements of `out`: the op's outputs, with the add ops' sum at its aligned offset.
  std::size_t out_elements() const {
    if (!core::reduce_adds_residual(p_.op)) return static_cast<std::size_t>(core::reduce_outputs(p_));
    return static_cast<std::size_t>(kernels::reduce_sum_offset(p_.rows, p_.cols) + p_.rows * p_.cols);
  }

  kernels::ReduceTensors tensors() const {
    return {x_.get(), residual_.get(), gamma_.get(), beta_.get(), out_.get(), workspace_.get()};
  }
  const core::ReducePlan& plan() const { return plans_[static_cast<std::size_t>(chosen())]; }

  core::ReduceProblem p_;
  const core::PrecisionInfo& prec_;
  kernels::ReduceOp op_;
  std::vector<core::ReducePlan> plans_;  // empty where cuDNN runs the case
  DeviceBuffer x_, residual_, gamma_, beta_, out_, workspace_;
};

}  // namespace

const WorkloadFactory make_reduce_workload = construct_workload<ReduceWorkload>;

}  // namespace opmark::bench
