#pragma once
// The explicit list of benchmark families (bench/families.cpp): family name -> workload factory.
#include <memory>

#include "bench/workload.h"

namespace opmark::bench {

std::unique_ptr<Workload> make_gemm_workload(const core::Case& c, const RunContext& ctx);

// Dispatches on c.family; throws UnsupportedError for a family that has no workload in this build.
std::unique_ptr<Workload> make_workload(const core::Case& c, const RunContext& ctx);

}  // namespace opmark::bench
