#pragma once
// The explicit list of benchmark families (bench/families.cpp): family name -> workload factory.
#include <memory>

#include "bench/harness/workload.h"

namespace opmark::bench {

std::unique_ptr<Workload> make_gemm_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_pointwise_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_reduce_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_batchnorm_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_pool_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_attention_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_gather_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_permute_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_spmm_workload(const core::Case& c, const RunContext& ctx);
#ifdef OPMARK_HAVE_CUDNN
std::unique_ptr<Workload> make_conv_workload(const core::Case& c, const RunContext& ctx);
std::unique_ptr<Workload> make_rnn_workload(const core::Case& c, const RunContext& ctx);
#endif
#ifdef OPMARK_HAVE_NCCL
std::unique_ptr<Workload> make_allreduce_workload(const core::Case& c, const RunContext& ctx);
#endif

// Whether this build can run the family's cases (its tables may exist before its benchmark does).
bool has_workload(const std::string& family);

// Dispatches on c.family; throws UnsupportedError for a family that has no workload in this build.
std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx);

}  // namespace opmark::bench
