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

#include <cmath>
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

  EdgeList loops;
  ASSERT_TRUE(addSelfLoops(g, loops, error)) << error;
  ASSERT_EQ(loops.numEdges(), edges + nodes);
  for (int64_t e = 0; e < edges; ++e) {
    EXPECT_EQ(loops.src[e], g.src[e]);
    EXPECT_EQ(loops.dst[e], g.dst[e]);
  }
  for (int32_t i = 0; i < nodes; ++i) {
    EXPECT_EQ(loops.src[edges + i], i);
    EXPECT_EQ(loops.dst[edges + i], i);
  }

  for (const EdgeList *graph : {&g, &loops}) {
    std::vector<double> sym, mean;
    std::vector<float> symF, meanF;
    ASSERT_TRUE(edgeNormWeights(*graph, EdgeNorm::Symmetric, sym, error));
    ASSERT_TRUE(edgeNormWeights(*graph, EdgeNorm::Mean, mean, error));
    ASSERT_TRUE(edgeNormWeights(*graph, EdgeNorm::Symmetric, symF, error));
    ASSERT_TRUE(edgeNormWeights(*graph, EdgeNorm::Mean, meanF, error));
    ASSERT_EQ(sym.size(), static_cast<size_t>(graph->numEdges()));
    for (int64_t e = 0; e < graph->numEdges(); ++e) {
      // Degrees recounted here, by scanning.
      double ds = 0, dd = 0;
      for (int64_t f = 0; f < graph->numEdges(); ++f) {
        ds += graph->dst[f] == graph->src[e];
        dd += graph->dst[f] == graph->dst[e];
      }
      double wantSym =
          ds == 0 || dd == 0 ? 0.0 : std::pow(ds, -0.5) * std::pow(dd, -0.5);
      double wantMean = dd == 0 ? 0.0 : 1.0 / dd;
      EXPECT_NEAR(sym[e], wantSym, 1e-12) << "edge " << e;
      EXPECT_NEAR(mean[e], wantMean, 1e-12) << "edge " << e;
      EXPECT_NEAR(symF[e], wantSym, 1e-6) << "edge " << e;
      EXPECT_NEAR(meanF[e], wantMean, 1e-6) << "edge " << e;
    }
  }

  PreparedGraph p;
  ASSERT_TRUE(prepareGraph(g, PrepareOptions(), p, error)) << error;
  EXPECT_EQ(p.edges.src, loops.src);
  EXPECT_EQ(p.edges.dst, loops.dst);
  expectCompressedMatches(loops, p.inCsr, true);
  expectCompressedMatches(loops, p.outCsr, false);
  for (int32_t v = 0; v < nodes; ++v)
    EXPECT_EQ(p.inDegree[v], deg[v] + 1);
  std::vector<float> symF;
  ASSERT_TRUE(edgeNormWeights(loops, EdgeNorm::Symmetric, symF, error));
  EXPECT_EQ(p.symmetricWeights, symF);
  EXPECT_EQ(p.meanWeights.size(), symF.size());
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
  std::vector<double> w;
  ASSERT_TRUE(edgeNormWeights(g, EdgeNorm::Symmetric, w, error));
  // Node 2 has no incoming edge: its edge gets 0.
  EXPECT_DOUBLE_EQ(w[0], 1.0 / std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(w[1], 0.0);
  EXPECT_DOUBLE_EQ(w[2], 1.0 / std::sqrt(2.0));
  ASSERT_TRUE(edgeNormWeights(g, EdgeNorm::Mean, w, error));
  EXPECT_EQ(w, (std::vector<double>{0.5, 0.5, 1.0}));

  // With self loops (ids 3, 4, 5): degrees 2, 3, 1, GCN's D^-1/2 (A+I) D^-1/2.
  PreparedGraph p;
  ASSERT_TRUE(prepareGraph(g, PrepareOptions(), p, error));
  EXPECT_EQ(p.inDegree, (std::vector<int32_t>{2, 3, 1}));
  EXPECT_EQ(p.inCsr.indptr, (std::vector<int32_t>{0, 2, 5, 6}));
  EXPECT_EQ(p.inCsr.edgeIds, (std::vector<int32_t>{2, 3, 0, 1, 4, 5}));
  std::vector<double> wantSym = {1 / std::sqrt(6.0),
                                 1 / std::sqrt(3.0),
                                 1 / std::sqrt(6.0),
                                 0.5,
                                 1 / 3.0,
                                 1.0};
  std::vector<double> wantMean = {1 / 3.0, 1 / 3.0, 0.5, 0.5, 1 / 3.0, 1.0};
  ASSERT_EQ(p.symmetricWeights.size(), 6u);
  ASSERT_EQ(p.meanWeights.size(), 6u);
  for (int e = 0; e < 6; ++e) {
    EXPECT_NEAR(p.symmetricWeights[e], wantSym[e], 1e-7) << "edge " << e;
    EXPECT_NEAR(p.meanWeights[e], wantMean[e], 1e-7) << "edge " << e;
  }
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
  g.src = {0, -1};
  std::vector<float> w;
  EXPECT_FALSE(edgeNormWeights(g, EdgeNorm::Mean, w, error));
  PreparedGraph p;
  EXPECT_FALSE(prepareGraph(g, PrepareOptions(), p, error));

  // E + N must stay within int32 edge ids.
  EdgeList big;
  big.numNodes = kMaxEdges;
  big.src = {0};
  big.dst = {1};
  EdgeList loops;
  EXPECT_FALSE(addSelfLoops(big, loops, error));
  EXPECT_NE(error.find("int32 edge id limit"), std::string::npos) << error;
}

TEST(GraphTest, SelfLoopsMayAliasInput) {
  EdgeList g;
  g.numNodes = 2;
  g.src = {0};
  g.dst = {1};
  std::string error;
  ASSERT_TRUE(addSelfLoops(g, g, error));
  EXPECT_EQ(g.src, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ(g.dst, (std::vector<int32_t>{1, 0, 1}));
}

} // namespace
