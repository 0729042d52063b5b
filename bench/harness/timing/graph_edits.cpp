#include "bench/harness/timing/graph_edits.h"

#include <unordered_map>
#include <utility>
#include <vector>

#include "bench/harness/timing/implied_edges.h"
#include "kernels/cuda_check.h"

namespace opmark::bench {
namespace {

// Every dependency of `graph`: its two ends and its kind, read once per use.
struct GraphEdges {
  std::vector<cudaGraphNode_t> from, to;
  std::vector<cudaGraphEdgeData> data;
};

GraphEdges edges_of(cudaGraph_t graph) {
  GraphEdges g;
  std::size_t n = 0;
  OPMARK_CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &n));
  g.from.resize(n);
  g.to.resize(n);
  g.data.resize(n);
  if (n > 0) OPMARK_CHECK_CUDA(cudaGraphGetEdges(graph, g.from.data(), g.to.data(), g.data.data(), &n));
  return g;
}

// A full dependency: the downstream node starts only once the upstream one has finished.
bool is_full(const cudaGraphEdgeData& d) {
  return d.from_port == cudaGraphKernelNodePortDefault && d.type == cudaGraphDependencyTypeDefault;
}

}  // namespace

long programmatic_edges(cudaGraph_t graph, bool make_full) {
  const GraphEdges g = edges_of(graph);
  std::vector<cudaGraphNode_t> early_from, early_to;
  std::vector<cudaGraphEdgeData> early_data;
  for (std::size_t i = 0; i < g.data.size(); ++i) {
    if (is_full(g.data[i])) continue;
    early_from.push_back(g.from[i]);
    early_to.push_back(g.to[i]);
    early_data.push_back(g.data[i]);
  }
  if (!make_full || early_from.empty()) return static_cast<long>(early_from.size());
  OPMARK_CHECK_CUDA(cudaGraphRemoveDependencies(graph, early_from.data(), early_to.data(), early_data.data(),
                                                early_from.size()));
  OPMARK_CHECK_CUDA(cudaGraphAddDependencies(graph, early_from.data(), early_to.data(), nullptr, early_from.size()));
  return 0;
}

long drop_implied_edges(cudaGraph_t graph) {
  std::size_t n = 0;
  OPMARK_CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &n));
  if (n == 0 || n > kMaxNodesForImpliedEdges) return 0;
  const GraphEdges g = edges_of(graph);
  const std::size_t e = g.data.size();
  if (e == 0) return 0;
  std::vector<cudaGraphNode_t> nodes(n);
  OPMARK_CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &n));
  std::unordered_map<cudaGraphNode_t, std::size_t> index;
  for (std::size_t i = 0; i < n; ++i) index[nodes[i]] = i;
  std::vector<std::pair<std::size_t, std::size_t>> edges(e);
  std::vector<bool> full(e);
  for (std::size_t i = 0; i < e; ++i) {
    edges[i] = {index.at(g.from[i]), index.at(g.to[i])};
    full[i] = is_full(g.data[i]);
  }
  const std::vector<std::size_t> implied = implied_edges(n, edges, full);
  if (implied.empty()) return 0;
  std::vector<cudaGraphNode_t> drop_from, drop_to;
  std::vector<cudaGraphEdgeData> drop_data;
  for (std::size_t i : implied) {
    drop_from.push_back(g.from[i]);
    drop_to.push_back(g.to[i]);
    drop_data.push_back(g.data[i]);
  }
  OPMARK_CHECK_CUDA(cudaGraphRemoveDependencies(graph, drop_from.data(), drop_to.data(), drop_data.data(),
                                                drop_from.size()));
  return static_cast<long>(implied.size());
}

GraphShape shape_of(cudaGraph_t graph) {
  GraphShape s;
  std::size_t n = 0, e = 0;
  OPMARK_CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n > 0) OPMARK_CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    OPMARK_CHECK_CUDA(cudaGraphNodeGetType(node, &type));
    s.kernel_nodes += type == cudaGraphNodeTypeKernel;
  }
  OPMARK_CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &e));
  s.nodes = static_cast<double>(n);
  s.edges = static_cast<double>(e);
  return s;
}

}  // namespace opmark::bench
