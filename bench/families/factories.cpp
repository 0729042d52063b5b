#include "bench/families/factories.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/error.h"

namespace opmark::bench {

namespace {

// Filled during static initialisation by the families' registrations: a function-local static, so it exists
// before the first of them runs whatever the order of the files.
std::map<std::string, WorkloadFactory>& factories() {
  static std::map<std::string, WorkloadFactory> table;
  return table;
}

}  // namespace

WorkloadRegistration::WorkloadRegistration(const char* family, WorkloadFactory factory) {
  if (!factories().emplace(family, factory).second) {
    // Two files claiming one family is a build mistake; nothing can be reported more gracefully this early.
    std::fprintf(stderr, "opmark: the family '%s' registers two workload factories\n", family);
    std::abort();
  }
}

bool has_workload(const std::string& family) { return factories().count(family) > 0; }

std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx) {
  auto it = factories().find(c.family);
  if (it == factories().end()) throw UnsupportedError("family '" + c.family + "' has no benchmark in this build");
  return it->second(c, ctx);
}

}  // namespace opmark::bench
