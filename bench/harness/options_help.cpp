// --opmark_help's text: every flag, and one line per family of core's list.
#include <algorithm>
#include <string>

#include "bench/harness/options.h"
#include "core/schema.h"

namespace opmark::bench {

namespace {

// One line per family of the registry: its name and what runs it.
std::string family_help() {
  std::string out = "\nFamilies (--opmark_family):\n";
  for (const auto& f : core::families()) {
    std::string name = "  " + f.schema.family;
    name.resize(std::max<std::size_t>(name.size() + 1, 16), ' ');
    out += name + f.title + " (" + f.library + ")\n";
  }
  return out;
}

}  // namespace

std::string options_help() {
  return R"(opmark-bench: operator benchmarks through the vendor libraries, one Google Benchmark case per
(shape-table row, direction, precision). Case names: <family>/<direction>/<precision>/<field>=<value>/...

opmark flags (Google Benchmark's own flags, e.g. --benchmark_filter, --benchmark_repetitions, --benchmark_out,
--benchmark_list_tests, all work too; the filter and the list use the names results.jsonl uses, and a filter that
selects nothing is an error):
  --opmark_shapes=PATH[,PATH]   shape-table folders or files (default: the source tree's shapes/)
  --opmark_family=F[,F]         only these families (listed below)
  --opmark_set=S[,S]            only these sets (train, inference_server, inference_device, peak, resnet50, ...)
  --opmark_precision=P[,P]      only these precisions (fp32, tf32, fp16, bf16, int8, fp8)
  --opmark_symbols=B=32,L=512   values for expression symbols in tables
  --opmark_models=M[,M]         run the cases these models need instead of the shape tables, each once
                                (names of shapes/models/*.yaml, all, all_train, or paths; fp16 unless given)
  --opmark_suite=quick|submission|PATH  run a suite: quick (shapes/quick.yaml, 118 cases, minutes: a
                                first answer, ResNet-50 and BERT-base scorable), submission (the cases the
                                submission rules require, shapes/submission.yaml; opmark-submit uses it) or a
                                rules file: every table set and model case it names, each once, with its
                                repetitions and min time; not combined with --opmark_family/set/precision/models
  --opmark_inputs=B=16,H=512    the models' input sizes, over the defaults their tables record
  --opmark_l2=hot|cold          hot: operands stay in L2 between launches (DeepBench, default);
                                cold: L2 flushed before every timed launch
  --opmark_out=DIR              write DIR/benchmark.json (Google Benchmark JSON) and DIR/results.jsonl
                                (one line per finished run, appended as the run goes); the run locks DIR
                                (DIR/.opmark.lock): a second run on DIR is refused while it lasts; a write
                                that fails (a full disk) stops the run with an error; links there are refused
  --opmark_overwrite            replace the results a folder already holds (without it, a --opmark_out that
                                holds a run's results.jsonl or benchmark.json is refused, so nothing measured
                                is lost to a rerun)
  --opmark_resume               go on from the results.jsonl a killed run left in --opmark_out: its measured
                                cases are kept and skipped, a case it cut off is measured again; the GPU,
                                software, build and timing rules must match (the new part's Google Benchmark
                                JSON goes to benchmark.resumed.json)
  --opmark_validate             load and check every table, print the case count, run nothing (no GPU needed)
  --opmark_peak=bf16=790,bw=3000  peak TFLOPS per precision and memory GB/s, overriding the built-in table
  --opmark_candidates=N         cuBLASLt algorithms per layout timed before measuring (default 16)
  --opmark_engines=N            cuDNN graph engine configurations timed per convolution (default 0: every one
                                cuDNN's heuristics and its fallback list offer, as PyTorch's cudnn.benchmark does)
  --opmark_workspace_mib=N      library workspace limit (default 1024: cuDNN's fastest engines can need hundreds)
  --opmark_warmup_ms=X          untimed warm-up per case (default 10)
  --opmark_regime=burst|sustained  burst (default): every time at full clock, as PyTorch, nvbench or a short
                                benchmark sees it: short repetitions, a sample whose SM clock was down (measured
                                on the GPU) or that NVML saw throttled is dropped, and the GPU idles until its
                                clock is back (50 ms, doubling to 0.5 s; a case that cannot get an unthrottled
                                sample within 5 s of pauses is reported unstable, "throttled: ...");
                                sustained: as a training loop sees it: 0.5 s to settle at the power limit,
                                then windows of at least 1 s timed with their clock, power and energy
  --opmark_min_clock=X          burst: drop a sample whose SM clock is under X of the GPU's maximum (default 0.9)
  --opmark_rest=S               burst: leave the GPU idle S seconds before each case's repetitions, so the power
                                limiter starts every case from rest (default 0; 0.2 held 2% run to run on an H100's
                                50 us GEMMs, at about 0.15 s a case: docs/regimes.md)
  --opmark_energy_window=S      energy per case over at least S seconds of back-to-back launches, in whole
                                steps of NVML's energy counter (default 0.1: one step; 0: no energy)
  --opmark_sustained=auto|off   burst: a case whose energy window ran into the power cap also gets a sustained
                                measurement (sustained_us and its clock, power and energy; default auto)
  --opmark_min_time=S           GPU seconds per repetition (default 0.005)
  --opmark_batch=S              GPU seconds of launches captured into one timed graph replay, at most 1000
                                launches (default 0.001; the tuner's rounds take 0.00025, its finalists this)
  --opmark_timing=graph|eager   graph (default): a batch of launches captured once into a CUDA graph and its
                                replays timed, the GPU's own time; eager: launches back to back from the host
                                (every case also records eager_us, and launch_bound when eager is >1.1x slower)
  --opmark_repetitions=N        at least N repetitions per case (default 3; --benchmark_repetitions=N says the
                                same); more are taken until their noise is at most --opmark_noise
  --opmark_noise=X              target noise, median absolute deviation over median (default 0.01)
  --opmark_max_repetitions=N    stop at N repetitions however noisy (default 10)
  --opmark_case_time_cap=S      stop repeating once a case has measured for S seconds (default 2)
  --opmark_console=lines|table  the console: one line per case (status, time, kernels' time, rate, % of peak,
                                clock, power, energy per op; default) or Google Benchmark's table of counters
  --opmark_recheck=on|off       re-time every case briefly at the end of the run; a case that moved more than
                                1.3x is measured again and, if it still disagrees, reported unstable (default on)
  --opmark_kernel_trace=on|off  after timing, trace three replays with CUPTI for the launch's kernels, their
                                names and own durations (kernel_us: what Nsight Systems shows; default on; off
                                under --opmark_profile_launches, where the profiler holds CUPTI)
  --opmark_isolated             also time each launch alone between event nodes (isolated_us), so none overlaps
                                the next, as a profiler times a kernel, and, where launches may start early
                                (programmatic dependent launch), replays without that (serial_us)
  --opmark_tuning_log            print, for each tuned case, every candidate's times at each stage of the tuning
                                (screen, probe, rounds, confirmation; us a launch) and why any failed
                                (bench/compare/ncu_fidelity.py sets it)
  --opmark_profile_launches=K   after timing each case, a marker kernel and K launches between
                                cudaProfilerStart/Stop, each after 10 ms of unprofiled launches, for Nsight
                                Compute (bench/compare/ncu_fidelity.py)
  --opmark_profile_graph        with --opmark_profile_launches=K: profile K replays of the timed CUDA graph
                                instead (ncu --graph-profiling graph times the whole replay)
  --opmark_pin=FILE             run, verify and time the candidate FILE names for each case (one 'case<TAB>
                                candidate' per line) instead of tuning; a case not in FILE is tuned
  --opmark_seed=N               seed of the random inputs
  --version                     opmark's version and commit, and the versions of the libraries it loads (and was
                                built with); runs nothing, needs no GPU
Each flag takes --opmark_x=VALUE or --opmark_x VALUE; a switch (--opmark_validate, --opmark_isolated,
--opmark_profile_graph, --opmark_overwrite, --opmark_tuning_log) takes =true or =false only after '='. An unknown
set, model, family or precision is an error listing the known ones, and a --benchmark_filter that is no valid
regular expression is an error (exit 2).
)" + family_help();
}

}  // namespace opmark::bench
