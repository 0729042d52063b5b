#pragma once
// Reading and editing a captured CUDA graph before it is instantiated: its programmatic (early-start) edges, the
// edges other dependencies imply (implied_edges.h), and its size. The timer's graph is captured, edited here, then
// replayed.
#include <cuda_runtime.h>

#include "bench/harness/timing/timer.h"

namespace opmark::bench {

// The edges of `graph` that let the downstream kernel start before the upstream one has finished (a library
// kernel launched with programmatic stream serialization is captured so). With `make_full`, each is replaced by a
// full dependency. Returns how many there were (with make_full: how many remain, 0).
long programmatic_edges(cudaGraph_t graph, bool make_full);

// Drops the dependencies of `graph` that others imply (implied_edges.h); returns how many.
long drop_implied_edges(cudaGraph_t graph);

// The graph's nodes, kernel nodes and edges, as captured.
GraphShape shape_of(cudaGraph_t graph);

}  // namespace opmark::bench
