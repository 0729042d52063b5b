// All-reduce through NCCL (the allreduce family), in one of two launch modes with one timing path:
// - one process over `ranks` visible GPUs (ncclCommInitAll, one stream per GPU, grouped calls). The harness times
//   on GPU 0's stream: the other GPUs' streams wait for an event recorded there before a batch's first collective
//   and GPU 0's stream waits for theirs after its last (end_batch), so the two timing events bracket the batch on
//   every GPU, and within it each GPU's collectives follow each other as in one process per GPU;
// - one process per GPU under MPI (ncclCommInitRank, the unique id broadcast from rank 0): each rank times its own
//   call and the harness reports the mean over ranks (and the slowest).
// Verified once: every rank's result against the float64 reduction of all ranks' inputs, computed on each GPU by
// regenerating them (rank r's input is a seeded fill, seed + r, so no input has to travel).
#ifdef OPMARK_HAVE_NCCL  // built where NCCL was found (bench/CMakeLists.txt compiles every file of families/)
#include <nccl.h>

#include <cstdio>
#include <vector>

#include "bench/families/factories.h"
#include "bench/families/library_check.h"
#include "bench/families/library_types.h"
#include "bench/harness/gpu_state/topology.h"
#include "core/counters.h"
#include "core/families.h"
#include "core/precision.h"
#include "kernels/cuda_check.h"
#include "kernels/device_buffer.h"
#include "kernels/fill.h"

namespace opmark::bench {
namespace {

using kernels::DeviceBuffer;

ncclRedOp_t nccl_op(const std::string& op) {
  if (op == "prod") return ncclProd;
  if (op == "max") return ncclMax;
  if (op == "min") return ncclMin;
  return ncclSum;
}

// Switches the current device for a scope.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    OPMARK_CHECK_CUDA(cudaGetDevice(&previous_));
    OPMARK_CHECK_CUDA(cudaSetDevice(device));
  }
  ~DeviceScope() { OPMARK_CHECK_CUDA_NOEXCEPT(cudaSetDevice(previous_)); }

 private:
  int previous_ = 0;
};

class AllreduceWorkload final : public Workload {
 public:
  AllreduceWorkload(const core::Case& c, const RunContext& ctx)
      : p_(core::allreduce_problem(c)),
        prec_(core::precision_info(c.precision)),
        seed_(ctx.seed),
        group_(ctx.group && ctx.group->multi_process() ? ctx.group : nullptr) {
    if (group_) {
      init_one_rank_per_process(ctx);
      return;
    }
    int visible = 0;
    OPMARK_CHECK_CUDA(cudaGetDeviceCount(&visible));
    if (p_.ranks > visible)
      throw UnsupportedError(std::to_string(p_.ranks) + " ranks need as many GPUs; this machine shows " +
                             std::to_string(visible));
    int current = 0;
    OPMARK_CHECK_CUDA(cudaGetDevice(&current));
    if (current != 0) throw UnsupportedError("the harness must run on GPU 0 for a multi-GPU all-reduce");
    const int n = static_cast<int>(p_.ranks);
    comms_.resize(static_cast<std::size_t>(n));
    std::vector<int> devices(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) devices[static_cast<std::size_t>(r)] = r;
    OPMARK_CHECK_NCCL(ncclCommInitAll(comms_.data(), n, devices.data()));
    const std::size_t count = static_cast<std::size_t>(p_.count);
    for (int r = 0; r < n; ++r) {
      DeviceScope on(r);
      send_.emplace_back(prec_.input, count);
      recv_.emplace_back(prec_.input, p_.inplace ? 0 : count);
      cudaStream_t s = nullptr;
      cudaEvent_t done = nullptr;
      if (r > 0) {
        OPMARK_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        OPMARK_CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      }
      streams_.push_back(s);
      done_.push_back(done);
      devices_.push_back(r);
    }
    OPMARK_CHECK_CUDA(cudaEventCreateWithFlags(&start_, cudaEventDisableTiming));
    fill_inputs(ctx.stream);
    // Peer access between each pair, for the label: NVLink or PCIe paths decide the bandwidth.
    peers_ = static_cast<int>(peer_pairs(n).size());
  }

  ~AllreduceWorkload() override {
    for (auto c : comms_)
      if (c) ncclCommDestroy(c);
    for (auto s : streams_)
      if (s) cudaStreamDestroy(s);
    for (auto e : done_)
      if (e) cudaEventDestroy(e);
    if (start_) cudaEventDestroy(start_);
  }

  int gpus_used() const override { return static_cast<int>(devices_.size()); }

  void launch(cudaStream_t stream) override {
    // NCCL reduces more types; the family's tables and verification cover these three.
    core::require_float_type(prec_.input, "allreduce runs");
    const ncclDataType_t type = nccl_data_type(prec_.input);
    if (group_) {
      void* out = p_.inplace ? send_[0].get() : recv_[0].get();
      OPMARK_CHECK_NCCL(ncclAllReduce(send_[0].get(), out, static_cast<std::size_t>(p_.count), type,
                                      nccl_op(p_.op), comms_[0], stream));
      return;
    }
    const int n = static_cast<int>(p_.ranks);
    if (!forked_) {
      OPMARK_CHECK_CUDA(cudaEventRecord(start_, stream));
      for (int r = 1; r < n; ++r) OPMARK_CHECK_CUDA(cudaStreamWaitEvent(streams_[r], start_, 0));
      forked_ = true;
    }
    OPMARK_CHECK_NCCL(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
      void* out = p_.inplace ? send_[r].get() : recv_[r].get();
      OPMARK_CHECK_NCCL(ncclAllReduce(send_[r].get(), out, static_cast<std::size_t>(p_.count), type, nccl_op(p_.op),
                                      comms_[r], r == 0 ? stream : streams_[r]));
    }
    OPMARK_CHECK_NCCL(ncclGroupEnd());
  }

  void end_batch(cudaStream_t stream) override {
    if (!forked_) return;
    for (std::size_t r = 1; r < streams_.size(); ++r) {
      DeviceScope on(static_cast<int>(r));
      OPMARK_CHECK_CUDA(cudaEventRecord(done_[r], streams_[r]));
      OPMARK_CHECK_CUDA(cudaStreamWaitEvent(stream, done_[r], 0));
    }
    forked_ = false;
  }

  kernels::CompareResult verify(cudaStream_t stream) override {
    const int n = static_cast<int>(p_.ranks);
    const std::size_t count = static_cast<std::size_t>(p_.count);
    fill_inputs(stream);  // in place, timed launches have overwritten them
    for (std::size_t l = 0; l < devices_.size(); ++l) {
      DeviceScope on(devices_[l]);
      if (!p_.inplace) kernels::poison(recv_[l].get(), count, prec_.input, nullptr);
      OPMARK_CHECK_CUDA(cudaDeviceSynchronize());
    }
    launch(stream);
    end_batch(stream);
    OPMARK_CHECK_CUDA(cudaStreamSynchronize(stream));
    // Every rank holds the same result: compare each this process holds, and report the worst.
    kernels::CompareResult worst;
    for (std::size_t l = 0; l < devices_.size(); ++l) {
      DeviceScope on(devices_[l]);
      DeviceBuffer ref(core::DType::f64, count);
      const InputRange range = input_range();
      kernels::reduce_seeded_fills(ref.as<double>(), count, prec_.input, seed_, n, range.lo, range.hi, reduce_op(),
                                   nullptr);
      const kernels::CompareResult c = kernels::compare_to_reference(
          p_.inplace ? send_[l].get() : recv_[l].get(), prec_.input, ref.as<double>(), count,
          core::depth_tolerance(prec_.tolerance, double(n)), nullptr, prec_.tolerance);
      worst = l == 0 ? c : kernels::worse_of(worst, c);
      if (!c.ok()) break;
    }
    return worst;
  }

  std::string label() const override {
    char buf[200];
    if (group_) {
      std::snprintf(buf, sizeof buf, "NCCL %s, %lld rank(s), one process per GPU (MPI) | %s",
                    p_.inplace ? "in place" : "out of place", static_cast<long long>(p_.ranks),
                    core::name_of(prec_.input));
      return buf;
    }
    std::snprintf(buf, sizeof buf, "NCCL %s, %lld rank(s) in one process, %d of %lld GPU pairs with peer access | %s",
                  p_.inplace ? "in place" : "out of place", static_cast<long long>(p_.ranks), peers_,
                  static_cast<long long>(p_.ranks * (p_.ranks - 1)), core::name_of(prec_.input));
    return buf;
  }

  std::map<std::string, double> counters() const override {
    return {{core::counter::ranks, static_cast<double>(p_.ranks)},
            {core::counter::busbw_factor, core::busbw_factor(p_.ranks)}};
  }

 private:
  // Uniform in [0.5, 1.5] for prod (a product of values in [-1, 1] over ranks shrinks towards zero), [-1, 1]
  // otherwise: the range of every rank's fill and of the reference that regenerates them.
  struct InputRange {
    double lo, hi;
  };
  InputRange input_range() const { return p_.op == "prod" ? InputRange{0.5, 1.5} : InputRange{-1.0, 1.0}; }

  kernels::SeededReduceOp reduce_op() const {
    if (p_.op == "sum") return kernels::SeededReduceOp::sum;
    if (p_.op == "prod") return kernels::SeededReduceOp::prod;
    if (p_.op == "max") return kernels::SeededReduceOp::max;
    return kernels::SeededReduceOp::min;
  }

  // Rank r's input, seeded by r, written on the current device.
  void fill_rank_input(DeviceBuffer& buffer, int r) {
    const InputRange range = input_range();
    kernels::fill_uniform(buffer.get(), static_cast<std::size_t>(p_.count), prec_.input,
                          seed_ + static_cast<std::uint64_t>(r), range.lo, range.hi, nullptr);
    OPMARK_CHECK_CUDA(cudaDeviceSynchronize());
  }

  // The inputs of the ranks this process holds: all of them in one process, its own under MPI.
  void fill_inputs(cudaStream_t) {
    for (std::size_t l = 0; l < devices_.size(); ++l) {
      DeviceScope on(devices_[l]);
      fill_rank_input(send_[l], group_ ? group_->rank() : static_cast<int>(l));
    }
  }

  // MPI mode: this process is one rank on its own GPU (the current device, chosen by local rank in main).
  void init_one_rank_per_process(const RunContext& ctx) {
    if (p_.ranks != group_->size())
      throw UnsupportedError("the case has " + std::to_string(p_.ranks) + " rank(s) and this run " +
                             std::to_string(group_->size()) + " processes; under MPI G defaults to the process count");
    ncclUniqueId id{};
    if (group_->rank() == 0) OPMARK_CHECK_NCCL(ncclGetUniqueId(&id));
    group_->broadcast(&id, sizeof id, 0);
    comms_.resize(1);
    OPMARK_CHECK_NCCL(ncclCommInitRank(&comms_[0], group_->size(), id, group_->rank()));
    int device = 0;
    OPMARK_CHECK_CUDA(cudaGetDevice(&device));
    devices_ = {device};
    const std::size_t count = static_cast<std::size_t>(p_.count);
    send_.emplace_back(prec_.input, count);
    recv_.emplace_back(prec_.input, p_.inplace ? 0 : count);
    streams_ = {nullptr};
    done_ = {nullptr};
    fill_inputs(ctx.stream);
  }

  core::AllreduceProblem p_;
  const core::PrecisionInfo& prec_;
  std::uint64_t seed_;
  ProcessGroup* group_;       // set in MPI mode only
  std::vector<int> devices_;  // the GPU of each rank this process holds
  std::vector<ncclComm_t> comms_;
  std::vector<DeviceBuffer> send_, recv_;
  std::vector<cudaStream_t> streams_;  // rank 0 uses the harness's stream
  std::vector<cudaEvent_t> done_;
  cudaEvent_t start_ = nullptr;
  bool forked_ = false;  // the other GPUs' streams wait for start_ and are not yet joined (one process only)
  int peers_ = 0;
};

}  // namespace

const WorkloadFactory make_allreduce_workload = construct_workload<AllreduceWorkload>;

}  // namespace opmark::bench

#endif  // OPMARK_HAVE_NCCL
