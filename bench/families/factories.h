#pragma once
// Family name -> workload factory. Each family's file registers its own factory, after defining it:
//   OPMARK_REGISTER_WORKLOAD("gemm", make_gemm_workload);
// so a new family touches no list here (core/schemas.cpp holds its one registry line).
#include <memory>
#include <string>

#include "bench/harness/workload.h"

namespace opmark::bench {

// Adds a factory to the table make_workload reads; a static object of each family's file makes one at start-up.
struct WorkloadRegistration {
  WorkloadRegistration(const char* family, WorkloadFactory factory);
};

#define OPMARK_REGISTER_WORKLOAD(family, factory)                                             \
  std::unique_ptr<Workload> factory(const core::Case& c, const RunContext& ctx);              \
  static const ::opmark::bench::WorkloadRegistration factory##_registration { family, &factory }

// Whether this build can run the family's cases (its tables may exist before its benchmark does; cuDNN's and
// NCCL's families exist only where those libraries were found).
bool has_workload(const std::string& family);

// Dispatches on c.family; throws UnsupportedError for a family that has no workload in this build.
std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx);

}  // namespace opmark::bench
