#pragma once
// The processes one benchmark run spans. Usually one (every family, and the all-reduce over all visible GPUs in one
// process); under an MPI launcher (`mpirun -np 16 --host a:8,b:8 opmark-bench ...`) one process per GPU, possibly
// over several hosts, which is how the all-reduce family goes past one host.
//
// In a multi-process run every process must make the same collective calls in the same order, so whatever the
// harness decides from a measured time (warm-up length, batch size, Google Benchmark's iteration count) is decided
// from a value every rank agrees on (agree_max, agree_mean), never from a rank's own clock.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opmark::bench {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This process's rank among those on its host: which GPU it takes.
  virtual int local_rank() const = 0;
  // Copies `bytes` at `data` from rank `root` to every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Every rank's value, in rank order, on every rank.
  virtual std::vector<double> all_gather(double value) = 0;
  // What an MPI build links, for the results' context ("" in one process).
  virtual std::string describe() const = 0;
  // Stops every process: a rank that failed mid-collective leaves the others waiting forever otherwise. Results
  // rank 0 already wrote stay. One process: never called (its failures are reported case by case).
  [[noreturn]] virtual void abort(const std::string& why) = 0;

  bool multi_process() const { return size() > 1; }
  double agree_max(double value);
  double agree_mean(double value);
};

// The one-process group: rank 0 of 1, every operation local.
std::unique_ptr<ProcessGroup> single_process();

// Whether the environment says an MPI launcher started this process (Open MPI, PMI/PMIx, Slurm's srun with MPI).
bool launched_by_mpi(const std::map<std::string, std::string>& env);
std::map<std::string, std::string> process_environment();

// Whether this build can run one process per GPU (MPI found at configure time).
bool mpi_available();

// The group this process belongs to: MPI's world when built with MPI and launched by an MPI launcher, else one
// process. Call once, first thing in main (MPI_Init may rewrite argc and argv).
std::unique_ptr<ProcessGroup> make_process_group(int* argc, char*** argv);

// The GPU a process takes: its rank on the host, over the GPUs it sees. Throws when there are fewer GPUs than
// ranks on the host (two processes on one GPU would time each other).
int device_for_local_rank(int local_rank, int device_count);

// Per-rank times of one sample folded into what is reported: the mean (what nccl-tests reports by default) and the
// slowest rank.
struct RankTimes {
  double mean = 0, max = 0;
};
RankTimes summarize_rank_times(const std::vector<double>& seconds);

}  // namespace opmark::bench
