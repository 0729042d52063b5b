// The MPI process group (built when CMake finds MPI). Every process is one rank of MPI_COMM_WORLD; ranks on the
// same host are numbered by a split of the world over shared memory.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "bench/harness/process_group.h"
#include "core/error.h"

namespace opmark::bench {
namespace {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}
#define OPMARK_CHECK_MPI(call) check_mpi((call), #call)

class MpiGroup final : public ProcessGroup {
 public:
  MpiGroup(int* argc, char*** argv) {
    OPMARK_CHECK_MPI(MPI_Init(argc, argv));
    OPMARK_CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    OPMARK_CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    MPI_Comm host = MPI_COMM_NULL;
    OPMARK_CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host));
    OPMARK_CHECK_MPI(MPI_Comm_rank(host, &local_rank_));
    MPI_Comm_free(&host);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    library_ = std::string(version, static_cast<std::size_t>(length));
    library_ = library_.substr(0, library_.find_first_of(",\n"));
  }
  ~MpiGroup() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  void broadcast(void* data, std::size_t bytes, int root) override {
    OPMARK_CHECK_MPI(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD));
  }
  std::vector<double> all_gather(double value) override {
    std::vector<double> all(static_cast<std::size_t>(size_));
    OPMARK_CHECK_MPI(MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD));
    return all;
  }
  std::string describe() const override { return library_; }
  [[noreturn]] void abort(const std::string& why) override {
    std::fprintf(stderr, "opmark-bench rank %d: %s\nopmark-bench: stopping every rank (a collective cannot go on "
                 "without this one); results already written stay\n", rank_, why.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    std::abort();  // MPI_Abort does not return; this tells the compiler so
  }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string library_;
};

}  // namespace

bool mpi_available() { return true; }

std::unique_ptr<ProcessGroup> make_process_group(int* argc, char*** argv) {
  if (!launched_by_mpi(process_environment())) return single_process();
  return std::make_unique<MpiGroup>(argc, argv);
}

}  // namespace opmark::bench
