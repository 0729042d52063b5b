// The process bookkeeping of multi-process runs, on the host: who counts as launched by MPI, which GPU a rank takes,
// how per-rank times are reported, and that one process agrees with itself.
#include <gtest/gtest.h>

#include <cstring>

#include "bench/harness/harness.h"
#include "bench/harness/process_group.h"
#include "core/error.h"

using namespace opmark;
using namespace opmark::bench;

TEST(ProcessGroup, LaunchedByMpiWhenALauncherSetsItsVariables) {
  EXPECT_FALSE(launched_by_mpi({{"PATH", "/usr/bin"}}));
  EXPECT_TRUE(launched_by_mpi({{"OMPI_COMM_WORLD_SIZE", "2"}}));  // Open MPI's mpirun
  EXPECT_TRUE(launched_by_mpi({{"PMI_SIZE", "16"}}));             // MPICH, Slurm's srun
  EXPECT_TRUE(launched_by_mpi({{"PMIX_RANK", "0"}}));             // PMIx launchers
}

TEST(ProcessGroup, EachRankOnAHostTakesItsOwnGpu) {
  EXPECT_EQ(device_for_local_rank(0, 8), 0);
  EXPECT_EQ(device_for_local_rank(7, 8), 7);
  // A ninth process on an 8-GPU host would share a GPU and time its neighbour: refused, with the counts.
  try {
    device_for_local_rank(8, 8);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("local rank 8 has no GPU of its own: this host shows 8 GPU(s)"),
              std::string::npos);
  }
}

TEST(ProcessGroup, RankTimesAreTheMeanAndTheSlowest) {
  const RankTimes t = summarize_rank_times({1e-3, 2e-3, 6e-3});
  EXPECT_DOUBLE_EQ(t.mean, 3e-3);
  EXPECT_DOUBLE_EQ(t.max, 6e-3);
  EXPECT_DOUBLE_EQ(summarize_rank_times({}).mean, 0.0);
}

TEST(ProcessGroup, OneProcessAgreesWithItself) {
  const auto group = single_process();
  EXPECT_FALSE(group->multi_process());
  EXPECT_EQ(group->rank(), 0);
  EXPECT_EQ(group->size(), 1);
  EXPECT_DOUBLE_EQ(group->agree_max(2.5), 2.5);
  EXPECT_DOUBLE_EQ(group->agree_mean(2.5), 2.5);
  EXPECT_EQ(group->all_gather(4.0), std::vector<double>{4.0});
}

TEST(ProcessGroup, TheBuildSaysWhetherItHasMpi) {
#ifdef OPMARK_HAVE_MPI
  EXPECT_TRUE(mpi_available());
#else
  EXPECT_FALSE(mpi_available());
#endif
}

namespace {

// Rank `me` of a simulated group whose other ranks' statuses and reasons are given: what a real group's collectives
// would hand this rank.
class SimulatedRanks final : public ProcessGroup {
 public:
  SimulatedRanks(int me, std::vector<Status> statuses, std::vector<std::string> reasons)
      : me_(me), statuses_(std::move(statuses)), reasons_(std::move(reasons)) {}
  int rank() const override { return me_; }
  int size() const override { return static_cast<int>(statuses_.size()); }
  int local_rank() const override { return me_; }
  void broadcast(void* data, std::size_t bytes, int root) override {
    // First the reason's length (a double), then its text, as agree_across_ranks sends them.
    const std::string& text = reasons_[static_cast<std::size_t>(root)];
    if (bytes == sizeof(double) && !length_sent_) {
      const double length = static_cast<double>(text.size());
      std::memcpy(data, &length, sizeof length);
      length_sent_ = true;
    } else {
      std::memcpy(data, text.data(), bytes);
    }
  }
  std::vector<double> all_gather(double) override {
    std::vector<double> all;
    for (Status s : statuses_) all.push_back(static_cast<double>(s));
    return all;
  }
  std::string describe() const override { return "simulated"; }
  [[noreturn]] void abort(const std::string& why) override { throw Error(why); }

 private:
  int me_;
  std::vector<Status> statuses_;
  std::vector<std::string> reasons_;
  bool length_sent_ = false;
};

}  // namespace

TEST(ProcessGroup, AWrongResultOnAnyRankFailsTheCaseOnEveryRankWithThatRanksReason) {
  const std::vector<Status> statuses = {Status::ok, Status::failed, Status::skipped};
  const std::vector<std::string> reasons = {"", "wrong result: 3 of 100 elements wrong", "unsupported: no peer"};
  SimulatedRanks rank0(0, statuses, reasons);
  const Outcome o = agree_across_ranks(rank0, Outcome{Status::ok, "", "all 100 elements within tolerance", "", {}, {}});
  EXPECT_EQ(o.status, Status::failed);  // failed outranks skipped
  EXPECT_EQ(o.reason, "rank 1: wrong result: 3 of 100 elements wrong");
  SimulatedRanks all_ok(0, {Status::ok, Status::ok}, {"", ""});
  const Outcome fine = agree_across_ranks(all_ok, Outcome{Status::ok, "", "ok", "", {}, {}});
  EXPECT_EQ(fine.status, Status::ok);
  EXPECT_EQ(fine.reason, "");
}
