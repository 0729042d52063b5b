#include "core/counters.h"

#include <cctype>

namespace opmark::core {

const std::vector<CounterSpec>& counter_schema() {
  static const std::vector<CounterSpec> schema = {
      // what was timed and how
      {"flops", "FLOP", "all", "floating-point operations of one launch (0 for memory-bound work)"},
      {"bytes", "bytes", "all", "bytes one launch must read and write at the least"},
      {"batch", "count", "all", "launches per timed batch (a graph replay)"},
      {"graph", "flag", "all", "1: timed as CUDA-graph replays; 0: back-to-back launches from the host"},
      {"launch_bound", "flag", "all", "1: the host's launch time, not the GPU's, sets the eager time"},
      {"noise", "ratio", "all", "median absolute deviation of the repetitions over their median"},
      {"repetitions", "count", "all", "repetitions kept for the median"},
      {"discarded_samples", "count", "all", "samples dropped as throttled or under the clock bound, taken again"},
      {"throttled", "flag", "all", "1: some samples stayed throttled (the time is not a plain burst time)"},
      {"recovery_ms", "ms", "all", "idle time spent waiting for the clock to recover before samples"},
      {"overlap_edges", "count", "conv,gemm,rnn", "programmatic (early-start) edges per launch in the timed graph"},
      {"graph_nodes", "count", "all", "nodes per launch in the timed graph"},
      {"graph_kernel_nodes", "count", "all", "kernel nodes per launch in the timed graph"},
      {"graph_edges", "count", "all", "edges per launch in the timed graph"},
      {"graph_implied_edges", "count", "rnn", "edges per launch implied by the library's own stream order"},
      // other times of the case
      {"eager_us", "us", "all", "median time per launch, launched back to back from the host without a graph"},
      {"isolated_us", "us", "all", "each launch timed alone (--opmark_isolated), as a profiler sees one kernel"},
      {"serial_us", "us", "all", "graph replays with no early start between launches"},
      {"probe_us", "us", "all", "the first batched sample, before the repetitions"},
      {"first_median_us", "us", "all", "the first median, where the anomaly guard prepared and measured again"},
      {"kernel_us", "us", "all",
       "the kernels' own duration per launch (CUPTI), what Nsight Systems shows; per GPU over several"},
      {"kernel<N>_us", "us", "all", "the N-th kernel of a launch: its own duration"},
      {"kernels_per_launch", "count", "all", "kernels the trace saw per launch"},
      {"recheck_us", "us", "all", "the end-of-run re-time's median"},
      {"run_noise", "ratio", "all", "|recheck_us - time| / time: run-to-run drift within the run"},
      {"remeasured_us", "us", "all", "the median of a case measured again because the re-time disagreed"},
      {"remeasured_rep<N>_us", "us", "all", "the N-th repetition of that measurement"},
      {"slowest_rank_us", "us", "allreduce", "median over repetitions of the slowest rank's time per launch"},
      {"processes", "count", "allreduce", "processes (ranks) of a multi-process run"},
      // rates
      {"tflops", "TFLOPS", "all", "flops over the time"},
      {"gb_per_s", "GB/s", "all", "bytes over the time"},
      {"pct_peak", "%", "all", "tflops over the precision's peak (the run's peaks)"},
      {"pct_peak_bw", "%", "all", "gb_per_s over the memory's peak bandwidth (not for collectives)"},
      {"pct_link_bw", "%", "allreduce", "bus bandwidth over one GPU's NVLink bandwidth in one direction"},
      {"copy_gb_per_s", "GB/s", "memory-bound",
       "the run's copy ceiling: the faster device-to-device copy (cudaMemcpyAsync, opmark's kernel)"},
      {"pct_copy_bw", "%", "memory-bound", "gb_per_s over copy_gb_per_s"},
      // clocks
      {"sm_clock_mhz", "MHz", "all", "median SM clock over the kept samples (measured on the GPU)"},
      {"sm_clock_min_mhz", "MHz", "all", "lowest SM clock of a kept sample"},
      {"rested_sm_clock_mhz", "MHz", "all", "SM clock after the rest before the repetitions"},
      {"reference_sm_clock_mhz", "MHz", "all", "the clock samples were held to (NVML's maximum)"},
      {"clock_event_reasons", "bitmask", "all", "NVML's clock event reasons seen over the samples, OR-ed"},
      // energy
      {"energy_us", "us", "all", "time per launch over the energy window"},
      {"energy_sm_clock_mhz", "MHz", "all", "SM clock over the energy window"},
      {"energy_window_ms", "ms", "all", "length of the energy window"},
      {"power_w", "W", "all", "mean board power over the energy window"},
      {"joules_per_op", "J", "all", "energy per launch: power_w x energy_us"},
      {"energy_uncertainty", "ratio", "all", "relative uncertainty of the window's energy"},
      {"energy_periods", "count", "all", "whole periods of NVML's energy counter in the window (0: timed by calls)"},
      {"tflops_per_w", "TFLOPS/W", "all", "flops per joule, for work with FLOPs"},
      {"gb_per_s_per_w", "GB/s/W", "memory-bound", "bytes per joule, for memory-bound work"},
      {"energy_from_sustained", "flag", "all", "1: the energy counters are the sustained windows' (a heavy case)"},
      {"sustained_us", "us", "all", "heavy cases in burst: time per launch at the power limit"},
      {"sustained_sm_clock_mhz", "MHz", "all", "SM clock of the sustained windows"},
      {"sustained_energy_window_ms", "ms", "all", "length of the sustained windows"},
      {"sustained_power_w", "W", "all", "mean board power of the sustained windows"},
      {"sustained_joules_per_op", "J", "all", "energy per launch at the power limit"},
      {"sustained_energy_uncertainty", "ratio", "all", "relative uncertainty of the sustained energy"},
      {"sustained_energy_periods", "count", "all", "whole periods of NVML's energy counter in the sustained windows"},
      {"sustained_tflops_per_w", "TFLOPS/W", "all", "flops per joule at the power limit"},
      {"sustained_gb_per_s_per_w", "GB/s/W", "memory-bound", "bytes per joule at the power limit"},
      // tuning
      {"candidates", "count", "tuned", "candidates (algorithms, engines, paths) the tuner timed"},
      {"tuning_finalists", "count", "tuned", "candidates confirmed at the measurement's batch length"},
      {"default_us", "us", "tuned", "the library's default candidate's time in the tuning"},
      {"runner_up_us", "us", "tuned", "the second fastest candidate's time in the tuning"},
      {"autotune_speedup", "ratio", "tuned", "default_us over the chosen candidate's time"},
      {"torch_path_us", "us", "tuned", "the time of the call PyTorch makes for the case, in the tuning"},
      {"torch_path_chosen", "flag", "tuned", "1: PyTorch's call was the chosen candidate"},
      // families' own
      {"ranks", "count", "allreduce", "ranks the all-reduce spans"},
      {"busbw_factor", "ratio", "allreduce", "bus bandwidth over algorithm bandwidth: 2 (ranks - 1) / ranks"},
      {"cublas_gemm_ex", "flag", "gemm", "1: the chosen candidate is a cublasGemmEx call, not cuBLASLt's"},
      {"row_major_c", "flag", "gemm", "1: C is row-major"},
      {"stored_tn", "flag", "gemm", "1: the operands are stored transposed as TN"},
      {"padded", "flag", "conv,gemm", "1: the library ran a padded problem"},
      {"torch_call", "flag", "gemm", "1: the chosen candidate is the call PyTorch makes"},
      {"graph_api", "flag", "conv", "1: run through cuDNN's graph API"},
      {"workspace_mib", "MiB", "attention,conv", "the chosen candidate's workspace"},
      {"gqa_group", "count", "attention", "query heads per key-value head"},
      {"dense_us", "us", "spmm", "the dense product of the same problem (cuBLASLt)"},
      {"nnz", "count", "spmm", "non-zeros of the sparse operand"},
      {"input_passes", "count", "reduce", "passes the chosen path reads the input"},
      {"memory_passes", "count", "reduce", "passes over memory of the chosen path, reads and writes"},
  };
  return schema;
}

namespace {

// Whether `name` is `pattern` with a run of digits where the pattern says <N>.
bool matches(std::string_view pattern, std::string_view name) {
  const std::size_t hole = pattern.find("<N>");
  if (hole == std::string_view::npos) return pattern == name;
  const std::string_view head = pattern.substr(0, hole), tail = pattern.substr(hole + 3);
  if (name.size() <= head.size() + tail.size() || name.substr(0, head.size()) != head ||
      name.substr(name.size() - tail.size()) != tail)
    return false;
  for (const char c : name.substr(head.size(), name.size() - head.size() - tail.size()))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

const CounterSpec* find_counter(std::string_view name) {
  for (const CounterSpec& spec : counter_schema())
    if (matches(spec.name, name)) return &spec;
  return nullptr;
}

nlohmann::json counter_schema_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const CounterSpec& s : counter_schema())
    list.push_back({{"name", s.name}, {"unit", s.unit}, {"families", s.families}, {"description", s.description}});
  return {{"counters", list}};
}

namespace counter {
std::string kernel_n_us(std::size_t n) { return "kernel" + std::to_string(n) + "_us"; }
std::string remeasured_rep_us(std::size_t n) { return "remeasured_rep" + std::to_string(n) + "_us"; }
}  // namespace counter

}  // namespace opmark::core
