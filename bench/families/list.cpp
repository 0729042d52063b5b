// The bench layer's family list: one line per family, beside core's (core/schemas.cpp). A family missing from either
// stops opmark-bench at start-up, naming it (bench/harness/cases/registry.h); docs/adding_a_family.md says what else a new
// family brings.
#include "bench/families/factories.h"

namespace opmark::bench {

const FamilyList& family_list() {
  static const FamilyList families = {
      {"gemm", make_gemm_workload},
      {"conv", make_conv_workload},
      {"rnn", make_rnn_workload},
      {"spmm", make_spmm_workload},
      {"allreduce", make_allreduce_workload},
      {"pointwise", make_pointwise_workload},
      {"reduce", make_reduce_workload},
      {"batchnorm", make_batchnorm_workload},
      {"pool", make_pool_workload},
      {"attention", make_attention_workload},
      {"gather", make_gather_workload},
      {"permute", make_permute_workload},
  };
  return families;
}

std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx) {
  static const WorkloadRegistry registry(family_list());
  return registry.make(c, ctx);
}

}  // namespace opmark::bench
