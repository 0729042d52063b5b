// The allreduce family on the GPU: a one-rank all-reduce everywhere, and two ranks where the machine has two
// GPUs; every precision, sum and max, in place and not, verified on every rank.
#include <gtest/gtest.h>

#include "../gpu_test_util.h"
#include "bench/families/factories.h"
#include "core/case.h"
#include "kernels/cuda_check.h"

#ifdef OPMARK_HAVE_NCCL
using namespace opmark;

TEST(AllreduceGpu, VerifiedOnOneAndTwoRanks) {
  OPMARK_REQUIRE_GPU();
  int gpus = 0;
  OPMARK_CHECK_CUDA(cudaGetDeviceCount(&gpus));
  bench::Options options;
  test::TestStream test_stream;
  const cudaStream_t stream = test_stream.stream;
  for (std::int64_t ranks = 1; ranks <= std::min(gpus, 2); ++ranks)
    for (const std::string precision : {"fp32", "fp16", "bf16"})
      for (const std::string op : {"sum", "max"})
        for (const std::string inplace : {"no", "yes"})
          for (const std::int64_t count : {std::int64_t{1}, std::int64_t{1000003}})
            test::expect_verified(core::make_case("allreduce", "fwd", precision,
                                                  {{"count", count}, {"ranks", ranks}, {"op", op},
                                                   {"inplace", inplace}}),
                                  &bench::make_workload, options, stream);
  if (gpus < 2) std::printf("one GPU: the two-rank cases need a second GPU and were not run\n");
}
#endif
