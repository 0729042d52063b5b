#include "bench/harness/timing/implied_edges.h"

#include <gtest/gtest.h>

namespace {

using opmark::bench::implied_edges;
using Edges = std::vector<std::pair<std::size_t, std::size_t>>;

// cuDNN's RNN calls captured back to back: each call's node waits on every earlier one. Only the chain stays.
TEST(ImpliedEdges, EveryEarlierCallBehindTheChainIsDropped) {
  Edges e;
  for (std::size_t to = 1; to < 5; ++to)
    for (std::size_t from = 0; from < to; ++from) e.push_back({from, to});
  const auto dropped = implied_edges(5, e, std::vector<bool>(e.size(), true));
  ASSERT_EQ(dropped.size(), e.size() - 4);
  for (std::size_t i : dropped) EXPECT_NE(e[i].first + 1, e[i].second) << i;
}

// A fork and join implies nothing: each edge is the only path it stands for.
TEST(ImpliedEdges, AForkAndJoinIsKept) {
  const Edges e = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  EXPECT_TRUE(implied_edges(4, e, std::vector<bool>(e.size(), true)).empty());
}

// A programmatic (early-start) edge neither implies a full one nor is dropped; a repeated edge is.
TEST(ImpliedEdges, ProgrammaticEdgesImplyNothingAndRepeatsGo) {
  const Edges e = {{0, 1}, {1, 2}, {0, 2}, {1, 2}};
  EXPECT_TRUE(implied_edges(3, e, {false, true, true, false}).empty());
  EXPECT_EQ(implied_edges(3, e, {true, true, true, true}), (std::vector<std::size_t>{2, 3}));
}

// A cycle (no graph CUDA would instantiate) or a graph past the bound is left as it is.
TEST(ImpliedEdges, ACycleOrAHugeGraphIsLeftAlone) {
  const Edges cycle = {{0, 1}, {1, 2}, {2, 0}, {0, 2}};
  EXPECT_TRUE(implied_edges(3, cycle, std::vector<bool>(cycle.size(), true)).empty());
  const std::size_t n = opmark::bench::kMaxNodesForImpliedEdges + 1;
  const Edges chain = {{0, 1}, {1, 2}, {0, 2}};
  EXPECT_TRUE(implied_edges(n, chain, std::vector<bool>(chain.size(), true)).empty());
}

}  // namespace
