#pragma once
// Each family's workload factory, one declaration a family, and the bench layer's family list (list.cpp) built
// from them. A family of cuDNN or NCCL is declared null where the build lacks its library: it stays in the list,
// so the list still matches core's, but no case of it registers.
#include <memory>

#include "bench/harness/cases/registry.h"
#include "bench/harness/cases/workload.h"
#include "core/case.h"

namespace opmark::bench {

extern const WorkloadFactory make_gemm_workload;
extern const WorkloadFactory make_spmm_workload;
extern const WorkloadFactory make_pointwise_workload;
extern const WorkloadFactory make_reduce_workload;
extern const WorkloadFactory make_batchnorm_workload;
extern const WorkloadFactory make_pool_workload;
extern const WorkloadFactory make_gather_workload;
extern const WorkloadFactory make_permute_workload;
#ifdef OPMARK_HAVE_CUDNN
extern const WorkloadFactory make_conv_workload;
extern const WorkloadFactory make_rnn_workload;
extern const WorkloadFactory make_attention_workload;
#else
constexpr WorkloadFactory make_conv_workload = nullptr;
constexpr WorkloadFactory make_rnn_workload = nullptr;
constexpr WorkloadFactory make_attention_workload = nullptr;
#endif
#ifdef OPMARK_HAVE_NCCL
extern const WorkloadFactory make_allreduce_workload;
#else
constexpr WorkloadFactory make_allreduce_workload = nullptr;
#endif

// The bench layer's families (list.cpp), one line each; main checks it against core's list at start-up.
const FamilyList& family_list();

// A workload from family_list(): for tests, and a family that times another's (spmm's dense product).
// Throws UnsupportedError for a family that has no workload in this build.
std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx);

}  // namespace opmark::bench
