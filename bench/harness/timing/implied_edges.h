#pragma once
// Dependencies of a captured graph that other dependencies already imply (host-only, tested on the CPU).
// cuDNN's RNN calls, captured back to back, leave every earlier call's node in the stream's capture dependencies, so
// in a timed replay of n calls each call waits on all calls before it: about n/2 edges a call, which the GPU pays
// for at every replay though the chain already orders them (docs/measurement.md). Dropping the implied edges leaves
// what a call waits on in a graph of its own.
#include <cstddef>
#include <utility>
#include <vector>

namespace opmark::bench {

// Above this many nodes a graph is left as captured: the search keeps a bit per pair of nodes.
constexpr std::size_t kMaxNodesForImpliedEdges = 16384;

// Of `edges` (from, to: node indices below `nodes`) the positions of those another path of full edges implies.
// `full[i]`: edge i is a full dependency (a programmatic, early-start edge neither implies nor is implied by
// others). Of two identical full edges, the second is implied. Empty when the graph has a cycle or more than
// kMaxNodesForImpliedEdges nodes.
std::vector<std::size_t> implied_edges(std::size_t nodes, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                                       const std::vector<bool>& full);

}  // namespace opmark::bench
