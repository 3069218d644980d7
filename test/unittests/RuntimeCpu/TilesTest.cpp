//===- TilesTest.cpp - SpMM over a graph read a tile at a time ------------===//
//
// gnnrt_cpu_spmm_tiles against gnnrt_cpu_spmm and gnnrt_cpu_spmm_rows, bit
// for bit: every tile size from one slot (every row split into pieces) to
// the whole graph, sum and mean, weights on the device or tiled with the
// graph, one weight per edge or one per head, every row or one row set's,
// one thread or two. The graph has a hub row of more than N / 2 slots, so
// small tiles split rows over many tiles. Outputs start as NaN sentinels,
// so a row the kernel forgets shows. Also: the bytes it reports copying,
// and its argument checks.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;

namespace {

constexpr int64_t kNodes = 3000, kHops = 2;
/// Bytes of a graph tile per slot (a piece record, a source, an edge id).
constexpr int64_t kGraphSlotBytes = 28;

struct TilesCase {
  ref::Graph graph;
  CsrGraph csr;
  RowSets sets;
  std::vector<float> weights, headWeights;
  static constexpr int64_t kHeads = 4;

  TilesCase() {
    graph = ref::randomGraph(kNodes, 8, 11);
    for (int64_t j = 1; j < kNodes; j += 2) {
      graph.src.push_back(j);
      graph.dst.push_back(2);
    }
    graph = withSelfLoops(graph);
    csr = toCsr(graph);
    std::vector<uint8_t> mask = randomMask(kNodes, 1, 12);
    mask[2] = 1;
    sets = receptiveRows(csr.view(), mask, kHops);
    weights = toF32(randomF32({graph.numEdges()}, 13));
    headWeights = toF32(randomF32({graph.numEdges(), kHeads}, 14));
  }
};

const TilesCase &tilesCase() {
  static const TilesCase c;
  return c;
}

/// A tiled call's inputs beyond the graph and x.
struct TileArgs {
  int aggr = GNNRT_AGGR_SUM;
  const float *weights = nullptr;
  int64_t heads = 1;
  bool tileWeights = false;
  int64_t slots = 1; // slots per tile
  const RowSets *sets = nullptr;
  int64_t level = 0, skip = kHops + 1;
};

std::vector<float> spmmTiles(const gnnrt_graph &g, const std::vector<float> &x,
                             int64_t d, const TileArgs &a,
                             int64_t *moved = nullptr) {
  std::vector<char> graphTile(static_cast<size_t>(kGraphSlotBytes * a.slots));
  std::vector<float> weightsTile(
      static_cast<size_t>(a.tileWeights ? a.heads * a.slots : 0));
  std::vector<float> y(x.size(), NAN);
  int64_t bytes = 0;
  EXPECT_EQ(gnnrt_cpu_spmm_tiles(
                &g, a.aggr, x.data(), d, a.weights, a.heads,
                a.sets ? a.sets->data() : nullptr, a.sets ? a.sets->hops : 0,
                a.level, a.skip, 1, graphTile.data(),
                static_cast<int64_t>(graphTile.size()),
                a.tileWeights ? weightsTile.data() : nullptr,
                static_cast<int64_t>(weightsTile.size() * sizeof(float)),
                y.data(), &bytes),
            GNNRT_OK);
  if (moved)
    *moved = bytes;
  return y;
}

::testing::AssertionResult sameBits(const std::vector<float> &got,
                                    const std::vector<float> &want) {
  for (size_t i = 0; i < want.size(); ++i)
    if (bitsOf(got[i]) != bitsOf(want[i]))
      return ::testing::AssertionFailure()
             << "element " << i << ": " << got[i] << ", want " << want[i];
  return ::testing::AssertionSuccess();
}

class TilesTest : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

TEST_F(TilesTest, EveryTileSizeGivesTheSpmmBits) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  gnnrt_cpu_set_num_threads(1);
  // 9 is no width of withRowWidth's: the run-time width loop.
  for (int64_t d : {4, 9, 64}) {
    const std::vector<float> x = toF32(randomF32({kNodes, d}, 20 + d));
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
      for (int weighting : {0, 1, 2}) { // none, device, tiled
        const float *w = weighting ? t.weights.data() : nullptr;
        std::vector<float> want(x.size(), NAN);
        ASSERT_EQ(gnnrt_cpu_spmm(&g, aggr, x.data(), d, w, 1, want.data()),
                  GNNRT_OK);
        for (int64_t slots :
             {int64_t(1), int64_t(7), int64_t(500), t.graph.numEdges()}) {
          SCOPED_TRACE("width " + std::to_string(d) + ", aggr " +
                       std::to_string(aggr) + ", weights " +
                       std::to_string(weighting) + ", " +
                       std::to_string(slots) + " slots per tile");
          TileArgs a;
          a.aggr = aggr;
          a.weights = w;
          a.tileWeights = weighting == 2;
          a.slots = slots;
          EXPECT_TRUE(sameBits(spmmTiles(g, x, d, a), want));
        }
      }
  }
}

TEST_F(TilesTest, WeightsPerHeadGiveTheSpmmBits) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  gnnrt_cpu_set_num_threads(1);
  // 8 features per head (GAT's), and 3 (a run-time width).
  for (int64_t d : {TilesCase::kHeads * 8, TilesCase::kHeads * 3}) {
    const std::vector<float> x = toF32(randomF32({kNodes, d}, 30 + d));
    std::vector<float> want(x.size(), NAN);
    ASSERT_EQ(gnnrt_cpu_spmm(&g, GNNRT_AGGR_SUM, x.data(), d,
                             t.headWeights.data(), TilesCase::kHeads,
                             want.data()),
              GNNRT_OK);
    for (bool tiled : {false, true})
      for (int64_t slots : {int64_t(3), int64_t(1000)}) {
        SCOPED_TRACE("width " + std::to_string(d) + (tiled ? ", tiled" : "") +
                     ", " + std::to_string(slots) + " slots per tile");
        TileArgs a;
        a.weights = t.headWeights.data();
        a.heads = TilesCase::kHeads;
        a.tileWeights = tiled;
        a.slots = slots;
        EXPECT_TRUE(sameBits(spmmTiles(g, x, d, a), want));
      }
  }
}

TEST_F(TilesTest, RowSetsGiveTheSpmmRowsBits) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  ASSERT_LT(t.sets.counts()[kHops], kNodes) << "some rows outside R_2";
  gnnrt_cpu_set_num_threads(1);
  for (int64_t d : {16, 9}) {
    const std::vector<float> x = toF32(randomF32({kNodes, d}, 40 + d));
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
      for (int64_t level = 0; level <= kHops; ++level)
        for (int64_t skip : {int64_t(0), int64_t(1), kHops + 1}) {
          std::vector<float> want(x.size(), NAN);
          ASSERT_EQ(gnnrt_cpu_spmm_rows(&g, aggr, x.data(), d, t.weights.data(),
                                        t.sets.data(), kHops, level, skip, 1,
                                        want.data()),
                    GNNRT_OK);
          for (int64_t slots : {int64_t(2), int64_t(300)}) {
            SCOPED_TRACE("width " + std::to_string(d) + ", level " +
                         std::to_string(level) + ", skip " +
                         std::to_string(skip) + ", " + std::to_string(slots) +
                         " slots per tile");
            TileArgs a;
            a.aggr = aggr;
            a.weights = t.weights.data();
            a.tileWeights = true;
            a.slots = slots;
            a.sets = &t.sets;
            a.level = level;
            a.skip = skip;
            EXPECT_TRUE(
                rowsMatch(spmmTiles(g, x, d, a), want, t.sets, level, d));
          }
        }
  }
}

TEST_F(TilesTest, ThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(2);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t d = 64;
  const std::vector<float> x = toF32(randomF32({kNodes, d}, 50));
  TileArgs a;
  a.weights = t.weights.data();
  a.tileWeights = true;
  a.slots = 4096;
  gnnrt_cpu_set_num_threads(1);
  const std::vector<float> one = spmmTiles(g, x, d, a);
  gnnrt_cpu_set_num_threads(2);
  EXPECT_TRUE(sameBits(spmmTiles(g, x, d, a), one));
}

// What the tiles copy: a piece record per row and a source and edge id per
// slot (and the weights when tiled), once each when one tile holds the
// whole graph; more pieces when rows are split.
TEST_F(TilesTest, ReportsTheBytesCopied) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t d = 4, e = t.graph.numEdges();
  const std::vector<float> x = toF32(randomF32({kNodes, d}, 60));
  TileArgs a;
  a.weights = t.weights.data();
  a.slots = e;
  int64_t moved = 0;
  spmmTiles(g, x, d, a, &moved);
  EXPECT_EQ(moved, 20 * kNodes + 8 * e);
  a.tileWeights = true;
  spmmTiles(g, x, d, a, &moved);
  EXPECT_EQ(moved, 20 * kNodes + 12 * e);
  a.slots = 1; // one piece per slot
  spmmTiles(g, x, d, a, &moved);
  EXPECT_EQ(moved, 20 * e + 12 * e);
}

TEST_F(TilesTest, RejectsBadArguments) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t d = 4;
  std::vector<float> x(kNodes * d, 1.0f), y(kNodes * d);
  std::vector<char> tile(kGraphSlotBytes * 8);
  std::vector<float> wtile(8);
  int64_t moved = 0;
  auto call = [&](int aggr, void *graphTile, int64_t graphBytes, const float *w,
                  void *weightsTile, int64_t weightsBytes, int64_t *out) {
    return gnnrt_cpu_spmm_tiles(&g, aggr, x.data(), d, w, 1, nullptr, 0, 0, 0,
                                1, graphTile, graphBytes, weightsTile,
                                weightsBytes, y.data(), out);
  };
  EXPECT_EQ(call(GNNRT_AGGR_SUM, tile.data(), kGraphSlotBytes - 1, nullptr,
                 nullptr, 0, &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, tile.data(), 8 * kGraphSlotBytes,
                 t.weights.data(), wtile.data(), 3, &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(call(GNNRT_AGGR_MAX, tile.data(), 8 * kGraphSlotBytes, nullptr,
                 nullptr, 0, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  // Weights tiled without weights.
  EXPECT_EQ(call(GNNRT_AGGR_SUM, tile.data(), 8 * kGraphSlotBytes, nullptr,
                 wtile.data(), 32, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, 8 * kGraphSlotBytes, nullptr, nullptr,
                 0, &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, tile.data(), 8 * kGraphSlotBytes, nullptr,
                 nullptr, 0, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(moved, 0) << "no call that failed copied anything";
}

} // namespace
