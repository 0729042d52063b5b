#include "bench/families/factories.h"

#include <map>

#include "core/error.h"

namespace opmark::bench {

namespace {

const std::map<std::string, WorkloadFactory>& factories() {
  static const std::map<std::string, WorkloadFactory> table = {
      {"gemm", &make_gemm_workload},
      {"pointwise", &make_pointwise_workload},
      {"reduce", &make_reduce_workload},
      {"batchnorm", &make_batchnorm_workload},
      {"pool", &make_pool_workload},
      {"gather", &make_gather_workload},
      {"permute", &make_permute_workload},
      {"spmm", &make_spmm_workload},
#ifdef OPMARK_HAVE_CUDNN
      {"conv", &make_conv_workload},
      {"attention", &make_attention_workload},
      {"rnn", &make_rnn_workload},
#endif
#ifdef OPMARK_HAVE_NCCL
      {"allreduce", &make_allreduce_workload},
#endif
  };
  return table;
}

}  // namespace

bool has_workload(const std::string& family) { return factories().count(family) > 0; }

std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx) {
  auto it = factories().find(c.family);
  if (it == factories().end()) throw UnsupportedError("family '" + c.family + "' has no benchmark in this build");
  return it->second(c, ctx);
}

}  // namespace opmark::bench
