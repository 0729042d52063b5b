#include "bench/families.h"

#include <map>

#include "core/error.h"

namespace opmark::bench {

std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx) {
  static const std::map<std::string, WorkloadFactory> factories = {
      {"gemm", &make_gemm_workload},
  };
  auto it = factories.find(c.family);
  if (it == factories.end()) throw UnsupportedError("family '" + c.family + "' has no benchmark in this build");
  return it->second(c, ctx);
}

}  // namespace opmark::bench
