#pragma once
// The counters a case's record carries, in one schema: each counter's name, unit, the families that carry it and
// what it means. opmark-bench writes counters by these names (core::counter::), opmark-aggregate's readers and page
// read them so, and the Python scripts load the same schema from bench/compare/counters.json, which
// `opmark-aggregate counters --json` writes (a CPU test holds the file to it). Host-only.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace opmark::core {

struct CounterSpec {
  std::string_view name;         // a pattern holds "<N>" (kernel<N>_us) where the writer puts a number
  std::string_view unit;         // us, ms, MHz, W, J, GB/s, TFLOPS, %, count, flag (0 or 1), ratio, ...
  std::string_view families;     // "all", "tuned" (families that tune library algorithms), "memory-bound", or names
  std::string_view description;
};

// Every counter, in the order a reader lists them.
const std::vector<CounterSpec>& counter_schema();
// The spec of `name`, a pattern's included (kernel3_us matches kernel<N>_us); null where the schema has none.
const CounterSpec* find_counter(std::string_view name);
// {"counters": [{"name", "unit", "families", "description"}, ...]}: what bench/compare/counters.json holds.
nlohmann::json counter_schema_json();

// The names, for writers and readers: one spelling each (a sustained window's energy counters carry the prefix
// sustained_prefix; its time is sustained_us).
namespace counter {
// what was timed and how
inline constexpr char flops[] = "flops";
inline constexpr char bytes[] = "bytes";
inline constexpr char batch[] = "batch";
inline constexpr char graph[] = "graph";
inline constexpr char launch_bound[] = "launch_bound";
inline constexpr char noise[] = "noise";
inline constexpr char repetitions[] = "repetitions";
inline constexpr char discarded_samples[] = "discarded_samples";
inline constexpr char throttled[] = "throttled";
inline constexpr char recovery_ms[] = "recovery_ms";
inline constexpr char overlap_edges[] = "overlap_edges";
inline constexpr char graph_nodes[] = "graph_nodes";
inline constexpr char graph_kernel_nodes[] = "graph_kernel_nodes";
inline constexpr char graph_edges[] = "graph_edges";
inline constexpr char graph_implied_edges[] = "graph_implied_edges";
// other times of the case
inline constexpr char eager_us[] = "eager_us";
inline constexpr char isolated_us[] = "isolated_us";
inline constexpr char serial_us[] = "serial_us";
inline constexpr char probe_us[] = "probe_us";
inline constexpr char first_median_us[] = "first_median_us";
inline constexpr char kernel_us[] = "kernel_us";
inline constexpr char kernels_per_launch[] = "kernels_per_launch";
inline constexpr char recheck_us[] = "recheck_us";
inline constexpr char run_noise[] = "run_noise";
inline constexpr char remeasured_us[] = "remeasured_us";
inline constexpr char slowest_rank_us[] = "slowest_rank_us";
inline constexpr char processes[] = "processes";
// rates
inline constexpr char tflops[] = "tflops";
inline constexpr char gb_per_s[] = "gb_per_s";
inline constexpr char pct_peak[] = "pct_peak";
inline constexpr char pct_peak_bw[] = "pct_peak_bw";
inline constexpr char pct_link_bw[] = "pct_link_bw";
inline constexpr char copy_gb_per_s[] = "copy_gb_per_s";
inline constexpr char pct_copy_bw[] = "pct_copy_bw";
// clocks
inline constexpr char sm_clock_mhz[] = "sm_clock_mhz";
inline constexpr char sm_clock_min_mhz[] = "sm_clock_min_mhz";
inline constexpr char rested_sm_clock_mhz[] = "rested_sm_clock_mhz";
inline constexpr char reference_sm_clock_mhz[] = "reference_sm_clock_mhz";
inline constexpr char clock_event_reasons[] = "clock_event_reasons";
// energy
inline constexpr char energy_us[] = "energy_us";
inline constexpr char energy_sm_clock_mhz[] = "energy_sm_clock_mhz";
inline constexpr char energy_window_ms[] = "energy_window_ms";
inline constexpr char power_w[] = "power_w";
inline constexpr char joules_per_op[] = "joules_per_op";
inline constexpr char energy_uncertainty[] = "energy_uncertainty";
inline constexpr char energy_periods[] = "energy_periods";
inline constexpr char tflops_per_w[] = "tflops_per_w";
inline constexpr char gb_per_s_per_w[] = "gb_per_s_per_w";
inline constexpr char energy_from_sustained[] = "energy_from_sustained";
inline constexpr char sustained_prefix[] = "sustained_";
inline constexpr char sustained_us[] = "sustained_us";
inline constexpr char sustained_power_w[] = "sustained_power_w";
inline constexpr char sustained_joules_per_op[] = "sustained_joules_per_op";
inline constexpr char sustained_sm_clock_mhz[] = "sustained_sm_clock_mhz";
// tuning
inline constexpr char candidates[] = "candidates";
inline constexpr char tuning_finalists[] = "tuning_finalists";
inline constexpr char default_us[] = "default_us";
inline constexpr char runner_up_us[] = "runner_up_us";
inline constexpr char autotune_speedup[] = "autotune_speedup";
inline constexpr char torch_path_us[] = "torch_path_us";
inline constexpr char torch_path_chosen[] = "torch_path_chosen";
// families' own
inline constexpr char ranks[] = "ranks";
inline constexpr char busbw_factor[] = "busbw_factor";
inline constexpr char cublas_gemm_ex[] = "cublas_gemm_ex";
inline constexpr char row_major_c[] = "row_major_c";
inline constexpr char stored_tn[] = "stored_tn";
inline constexpr char padded[] = "padded";
inline constexpr char torch_call[] = "torch_call";
inline constexpr char graph_api[] = "graph_api";
inline constexpr char workspace_mib[] = "workspace_mib";
inline constexpr char gqa_group[] = "gqa_group";
inline constexpr char dense_us[] = "dense_us";
inline constexpr char nnz[] = "nnz";
inline constexpr char input_passes[] = "input_passes";
inline constexpr char memory_passes[] = "memory_passes";
// kernel<N>_us: the N-th kernel of a launch's own duration; remeasured_rep<N>_us: the re-time's N-th repetition.
std::string kernel_n_us(std::size_t n);
std::string remeasured_rep_us(std::size_t n);
}  // namespace counter

}  // namespace opmark::core
