#pragma once
// The workloads a build can run, by family: built from the bench layer's explicit list (bench/families/list.cpp),
// which main hands in, so the harness never includes from the families above it. The list and core's
// (core/schemas.cpp) must name the same families: check_family_lists says which one lacks what.
#include <memory>
#include <string>
#include <vector>

#include "bench/harness/cases/workload.h"
#include "core/case.h"

namespace opmark::bench {

// One line of the bench list. A null factory: the family exists but this build cannot run it (cuDNN's and NCCL's
// families where those libraries were not found); its cases are checked but not registered.
struct FamilyWorkload {
  const char* family;
  WorkloadFactory factory;
};
using FamilyList = std::vector<FamilyWorkload>;

class WorkloadRegistry {
 public:
  // Throws Error naming a family listed twice.
  explicit WorkloadRegistry(FamilyList list);
  // Whether this build can run the family's cases (its tables may exist before its benchmark does).
  bool has(const std::string& family) const;
  // Dispatches on c.family; throws UnsupportedError for a family that has no workload in this build.
  std::unique_ptr<Workload> make(const core::Case& c, const RunContext& ctx) const;
  const FamilyList& list() const { return list_; }

 private:
  FamilyList list_;
};

// What differs between the bench list and core's families, each named and said which side lacks it ("family
// 'toy' is in core/schemas.cpp but not in the bench list (bench/families/list.cpp)"); empty when they match.
std::vector<std::string> family_list_mismatches(const FamilyList& bench, const std::vector<std::string>& core);

// Throws Error with every mismatch above, so a family added to one layer alone stops the program at start-up.
void check_family_lists(const FamilyList& bench, const std::vector<std::string>& core);

}  // namespace opmark::bench
