#include "bench/harness/cases/registry.h"

#include <algorithm>

#include "core/error.h"

namespace opmark::bench {

WorkloadRegistry::WorkloadRegistry(FamilyList list) : list_(std::move(list)) {
  for (std::size_t i = 0; i < list_.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (std::string(list_[i].family) == list_[j].family)
        throw Error(std::string("the family '") + list_[i].family + "' is listed twice in the bench list");
}

bool WorkloadRegistry::has(const std::string& family) const {
  for (const FamilyWorkload& f : list_)
    if (family == f.family) return f.factory != nullptr;
  return false;
}

std::unique_ptr<Workload> WorkloadRegistry::make(const core::Case& c, const RunContext& ctx) const {
  for (const FamilyWorkload& f : list_)
    if (c.family == f.family && f.factory) return f.factory(c, ctx);
  throw UnsupportedError("family '" + c.family + "' has no benchmark in this build");
}

std::vector<std::string> family_list_mismatches(const FamilyList& bench, const std::vector<std::string>& core) {
  std::vector<std::string> out;
  for (const std::string& f : core) {
    const bool listed = std::any_of(bench.begin(), bench.end(), [&](const FamilyWorkload& b) { return f == b.family; });
    if (!listed)
      out.push_back("family '" + f + "' is in core/schemas.cpp but not in the bench list (bench/families/list.cpp)");
  }
  for (const FamilyWorkload& b : bench)
    if (std::find(core.begin(), core.end(), b.family) == core.end())
      out.push_back(std::string("family '") + b.family +
                    "' is in the bench list (bench/families/list.cpp) but not in core/schemas.cpp");
  return out;
}

void check_family_lists(const FamilyList& bench, const std::vector<std::string>& core) {
  const std::vector<std::string> mismatches = family_list_mismatches(bench, core);
  if (mismatches.empty()) return;
  std::string what;
  for (const std::string& m : mismatches) what += (what.empty() ? "" : "; ") + m;
  throw Error(what + " (docs/adding_a_family.md: one line per layer)");
}

}  // namespace opmark::bench
