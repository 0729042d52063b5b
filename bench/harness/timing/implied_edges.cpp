#include "bench/harness/timing/implied_edges.h"

#include <cstdint>

namespace opmark::bench {

std::vector<std::size_t> implied_edges(std::size_t nodes, const std::vector<std::pair<std::size_t, std::size_t>>& edges,
                                       const std::vector<bool>& full) {
  if (nodes == 0 || nodes > kMaxNodesForImpliedEdges) return {};
  std::vector<std::vector<std::size_t>> into(nodes);  // per node, the full edges into it
  std::vector<std::size_t> waiting(nodes, 0);
  std::vector<std::vector<std::size_t>> out(nodes);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto [from, to] = edges[i];
    out[from].push_back(to);
    ++waiting[to];
    if (full[i]) into[to].push_back(i);
  }
  // Topological order (Kahn); a cycle leaves nodes out and the graph as it is.
  std::vector<std::size_t> order;
  order.reserve(nodes);
  for (std::size_t v = 0; v < nodes; ++v)
    if (waiting[v] == 0) order.push_back(v);
  for (std::size_t at = 0; at < order.size(); ++at)
    for (std::size_t to : out[order[at]])
      if (--waiting[to] == 0) order.push_back(to);
  if (order.size() != nodes) return {};
  // Per node, the nodes that reach it through full edges, as bits; taken in topological order so every
  // predecessor's set is complete first.
  const std::size_t words = (nodes + 63) / 64;
  std::vector<std::uint64_t> ancestors(nodes * words, 0);
  const auto set = [&](std::size_t v) { return ancestors.data() + v * words; };
  const auto has = [&](std::size_t v, std::size_t u) { return (set(v)[u / 64] >> (u % 64)) & 1u; };
  std::vector<std::size_t> implied;
  std::vector<bool> seen_from(nodes, false);
  for (std::size_t v : order) {
    // First, what v's predecessors reach: an edge u -> v is implied when u is among it (a longer path through
    // another predecessor), or when the same edge came before.
    std::uint64_t* mine = set(v);
    for (std::size_t i : into[v]) {
      const std::uint64_t* theirs = set(edges[i].first);
      for (std::size_t k = 0; k < words; ++k) mine[k] |= theirs[k];
    }
    for (std::size_t i : into[v]) {
      const std::size_t u = edges[i].first;
      if (seen_from[u] || has(v, u)) implied.push_back(i);
      seen_from[u] = true;
    }
    for (std::size_t i : into[v]) {
      const std::size_t u = edges[i].first;
      seen_from[u] = false;
      mine[u / 64] |= std::uint64_t{1} << (u % 64);
    }
  }
  return implied;
}

}  // namespace opmark::bench
