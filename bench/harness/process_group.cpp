#include "bench/harness/process_group.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

extern char** environ;

namespace opmark::bench {

double ProcessGroup::agree_max(double value) {
  const std::vector<double> all = all_gather(value);
  return *std::max_element(all.begin(), all.end());
}

double ProcessGroup::agree_mean(double value) { return summarize_rank_times(all_gather(value)).mean; }

namespace {

class SingleProcess final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  void broadcast(void*, std::size_t, int) override {}
  std::vector<double> all_gather(double value) override { return {value}; }
  std::string describe() const override { return ""; }
  [[noreturn]] void abort(const std::string& why) override { throw Error(why); }
};

}  // namespace

std::unique_ptr<ProcessGroup> single_process() { return std::make_unique<SingleProcess>(); }

bool launched_by_mpi(const std::map<std::string, std::string>& env) {
  for (const char* key : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (env.count(key)) return true;
  return false;
}

std::map<std::string, std::string> process_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

int device_for_local_rank(int local_rank, int device_count) {
  if (local_rank < 0 || local_rank >= device_count)
    throw Error("local rank " + std::to_string(local_rank) + " has no GPU of its own: this host shows " +
                std::to_string(device_count) + " GPU(s); start at most that many processes per host");
  return local_rank;
}

RankTimes summarize_rank_times(const std::vector<double>& seconds) {
  RankTimes t;
  if (seconds.empty()) return t;
  t.mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  t.max = *std::max_element(seconds.begin(), seconds.end());
  return t;
}

#ifndef OPMARK_HAVE_MPI
bool mpi_available() { return false; }

std::unique_ptr<ProcessGroup> make_process_group(int*, char***) {
  if (launched_by_mpi(process_environment()))
    throw Error("started by an MPI launcher, but this build has no MPI: install an MPI (Debian: libopenmpi-dev), "
                "re-run cmake, or start opmark-bench directly (one process drives every visible GPU)");
  return single_process();
}
#endif

}  // namespace opmark::bench
