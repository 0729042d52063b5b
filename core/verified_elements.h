#pragma once
// How many elements a case's verification compares, where that is the whole output and follows from the case alone
// (check holds a verification's "all N elements" to it). Host-only.
#include <cstdint>
#include <optional>

#include "core/case.h"

namespace opmark::core {

// The output elements the family's workload compares against its reference (bench/families/*.cpp): GEMM's C over
// the batch (as run, padded), conv's result of its direction (y, dx or dw, as run), pointwise's tensor, gather's
// rows, the permuted tensor, spmm's C, the all-reduce's buffer, batch norm's y, pooling's y. nullopt for the families
// that compare a sample or several outputs (attention, RNN, reduce), and for a case that is no valid one.
std::optional<std::int64_t> verified_elements(const Case& c);

}  // namespace opmark::core
