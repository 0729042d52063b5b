// The process bookkeeping of multi-process runs, on the host: who counts as launched by MPI, which GPU a rank takes,
// how per-rank times are reported, and that one process agrees with itself.
#include <gtest/gtest.h>

#include "bench/process_group.h"
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
