//===- EdgeSetsTest.cpp - Row sets over a graph's edges -------------------===//
//
// gnnrt_cpu_receptive_edges on a graph small enough to work out by hand
// and against a reference from the edge list and the nodes' levels on a
// random one. Edge ids differ from slots (the lists are not grouped by
// destination, and the slots of each row are shuffled), so a kernel that
// lists slots, or edges in slot order, fails; the order entries past
// |E_hops| start as sentinels and must still hold them. Then
// gnnrt_cpu_dropout_columns_rows, at the rows of such sets (the real use:
// GAT's per-edge attention) and of node sets, against
// gnnrt_cpu_dropout_columns bit for bit, with the rest +0.0 or untouched,
// in place, on 1 and 2 threads, and with bad arguments rejected.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;
using gnnrt::cpu::fromBits;

namespace {

class EdgeSetsTest : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

/// What every int32 of an edge-set buffer starts as.
constexpr int32_t kUnwritten = -7;

/// Edges (src, dst) in id order.
ref::Graph edgeList(int64_t nodes,
                    const std::vector<std::pair<int64_t, int64_t>> &edges) {
  ref::Graph g;
  g.nodes = nodes;
  for (auto [s, d] : edges) {
    g.src.push_back(s);
    g.dst.push_back(d);
  }
  return g;
}

/// Fisher-Yates within each row of one CSR view, moving each slot's other
/// end and edge id together: slot order then says nothing of the ids.
void shuffleSlots(const std::vector<int32_t> &ptr, std::vector<int32_t> &other,
                  std::vector<int32_t> &id, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = 0; i + 1 < ptr.size(); ++i)
    for (int64_t s = ptr[i + 1] - 1; s > ptr[i]; --s) {
      const int64_t pick =
          ptr[i] + static_cast<int64_t>(nextRandom(state) %
                                        static_cast<uint64_t>(s - ptr[i] + 1));
      std::swap(other[s], other[pick]);
      std::swap(id[s], id[pick]);
    }
}

/// The sets by their definition, from the edge list and the nodes' levels:
/// edge e has its destination's level, or hops + 1 above hops; the order
/// lists, level by level, the ids of that level in increasing order, and
/// its entries past |E_hops| are kUnwritten.
std::vector<int32_t> referenceEdges(const ref::Graph &g, const RowSets &nodes,
                                    int64_t hops) {
  const int64_t e = g.numEdges();
  std::vector<int32_t> level(static_cast<size_t>(e));
  for (int64_t id = 0; id < e; ++id)
    level[id] = std::min<int32_t>(nodes.level(g.dst[id]),
                                  static_cast<int32_t>(hops + 1));
  std::vector<int32_t> out;
  for (int64_t k = 0; k <= hops; ++k)
    out.push_back(static_cast<int32_t>(std::count_if(
        level.begin(), level.end(), [&](int32_t l) { return l <= k; })));
  for (int64_t k = 0; k <= hops; ++k)
    for (int64_t id = 0; id < e; ++id)
      if (level[id] == k)
        out.push_back(static_cast<int32_t>(id));
  out.resize(static_cast<size_t>(hops + 1 + e), kUnwritten);
  // The levels a byte each, four to an int32, the first in the lowest
  // byte; the bytes after the last level zero.
  for (int64_t id = 0; id < e; id += 4) {
    uint32_t word = 0;
    for (int64_t b = 0; b < 4 && id + b < e; ++b)
      word |= static_cast<uint32_t>(level[id + b]) << (8 * b);
    out.push_back(static_cast<int32_t>(word));
  }
  return out;
}

/// The kernel's sets over g's edges, from \p nodes, in a buffer of
/// kUnwritten; the call must succeed.
RowSets receptiveEdges(const gnnrt_graph &g, const RowSets &nodes,
                       int64_t hops) {
  RowSets sets;
  sets.nodes = g.num_edges; // the rows of these sets are edges
  sets.hops = hops;
  sets.buffer.assign(
      static_cast<size_t>(gnnrt_row_sets_length(g.num_edges, hops)),
      kUnwritten);
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, nodes.data(), nodes.hops, hops,
                                      sets.buffer.data()),
            GNNRT_OK);
  return sets;
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_receptive_edges
//===----------------------------------------------------------------------===//

// 6 nodes, mask {0}, self loops on 0, 1, 2 and 5; ids in no order of the
// destinations. Into 0: ids 0 (from 1), 2 (loop), 7 (from 3), so R_1 =
// {0, 1, 3}; into 1: 3 (from 2), 6 (loop); into 3: 4 (from 4), so R_2 =
// {0, ..., 4}; into 2: 1, 9, 10 (loop); into 4: 8; into 5, reached from no
// one: 5 (loop). Node levels with 2 hops: 0 1 2 1 2 3.
const ref::Graph kHandGraph = edgeList(6, {{1, 0},
                                           {3, 2},
                                           {0, 0},
                                           {2, 1},
                                           {4, 3},
                                           {5, 5},
                                           {1, 1},
                                           {3, 0},
                                           {0, 4},
                                           {5, 2},
                                           {2, 2}});
const std::vector<uint8_t> kHandMask = {1, 0, 0, 0, 0, 0};

/// kHandGraph with each row's slots shuffled.
CsrGraph handCsr() {
  CsrGraph csr = toCsr(kHandGraph);
  shuffleSlots(csr.inPtr, csr.inSrc, csr.inId, 5);
  shuffleSlots(csr.outPtr, csr.outSrc, csr.outId, 6);
  return csr;
}

TEST_F(EdgeSetsTest, HandMadeGraph) {
  const CsrGraph csr = handCsr();
  const gnnrt_graph g = csr.view();
  ASSERT_EQ(gnnrt_graph_check(&g), GNNRT_OK);
  const RowSets nodes = receptiveRows(g, kHandMask, 2);
  ASSERT_EQ(nodes.levels(), std::vector<int32_t>({0, 1, 2, 1, 2, 3}));
  struct Expected {
    int64_t hops;
    std::vector<int32_t> counts, order, levels;
  };
  const Expected cases[] = {
      {0, {3}, {0, 2, 7}, {0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1}},
      {1, {3, 6}, {0, 2, 7, 3, 4, 6}, {0, 2, 0, 1, 1, 2, 1, 0, 2, 2, 2}},
      {2,
       {3, 6, 10},
       {0, 2, 7, 3, 4, 6, 1, 8, 9, 10},
       {0, 2, 0, 1, 1, 3, 1, 0, 2, 2, 2}},
  };
  for (const Expected &want : cases) {
    SCOPED_TRACE("hops " + std::to_string(want.hops));
    const RowSets sets = receptiveEdges(g, nodes, want.hops);
    EXPECT_EQ(sets.counts(), want.counts);
    EXPECT_EQ(sets.levels(), want.levels);
    std::vector<int32_t> order = want.order;
    order.resize(11, kUnwritten); // the tail is not written
    EXPECT_EQ(sets.order(), order);
    // 11 level bytes, then one zero byte to a whole int32.
    ASSERT_EQ(sets.buffer.size(), static_cast<size_t>(want.hops + 1 + 11 + 3));
    EXPECT_EQ(reinterpret_cast<const int8_t *>(sets.buffer.data() + want.hops +
                                               1 + 11)[11],
              0);
    EXPECT_EQ(sets.buffer, referenceEdges(kHandGraph, nodes, want.hops));
  }
}

TEST_F(EdgeSetsTest, EmptyMaskAndNoEdges) {
  const CsrGraph csr = handCsr();
  const gnnrt_graph g = csr.view();
  const RowSets none = receptiveRows(g, std::vector<uint8_t>(6), 3);
  const RowSets sets = receptiveEdges(g, none, 2);
  EXPECT_EQ(sets.counts(), std::vector<int32_t>(3, 0));
  EXPECT_EQ(sets.levels(), std::vector<int32_t>(11, 3));
  EXPECT_EQ(sets.order(), std::vector<int32_t>(11, kUnwritten));
  EXPECT_EQ(sets.buffer, referenceEdges(kHandGraph, none, 2));

  // Nodes but no edges: the counts and nothing else.
  const CsrGraph bare = toCsr(edgeList(3, {}));
  const gnnrt_graph b = bare.view();
  const RowSets all = receptiveRows(b, {1, 1, 1}, 1);
  const RowSets empty = receptiveEdges(b, all, 1);
  EXPECT_EQ(empty.buffer, std::vector<int32_t>({0, 0}));
}

TEST_F(EdgeSetsTest, MatchesTheEdgeListOnARandomGraph) {
  // About 10000 edges with self loops, listed in a random order so that
  // ids follow no destination, and each row's slots shuffled.
  ref::Graph graph = withSelfLoops(ref::randomGraph(2000, 8, 21));
  uint64_t state = 22;
  for (int64_t e = graph.numEdges() - 1; e > 0; --e) {
    const int64_t pick =
        static_cast<int64_t>(nextRandom(state) % static_cast<uint64_t>(e + 1));
    std::swap(graph.src[e], graph.src[pick]);
    std::swap(graph.dst[e], graph.dst[pick]);
  }
  CsrGraph csr = toCsr(graph);
  shuffleSlots(csr.inPtr, csr.inSrc, csr.inId, 23);
  shuffleSlots(csr.outPtr, csr.outSrc, csr.outId, 24);
  const gnnrt_graph g = csr.view();
  ASSERT_EQ(gnnrt_graph_check(&g), GNNRT_OK);
  ASSERT_GT(graph.numEdges(), 9000);

  // One node (a few edges, far fewer than the graph's) up to half of them
  // (most of its edges): both ways of ordering a level's ids.
  std::vector<uint8_t> one(2000);
  one[1234] = 1;
  const std::pair<const char *, std::vector<uint8_t>> masks[] = {
      {"one node", one},
      {"1%", randomMask(2000, 1, 25)},
      {"10%", randomMask(2000, 10, 26)},
      {"50%", randomMask(2000, 50, 27)}};
  for (const auto &[name, mask] : masks)
    for (int64_t nodeHops : {2, 3}) {
      const RowSets nodes = receptiveRows(g, mask, nodeHops);
      // The node sets with the graph read through tiles: the same buffer.
      for (int64_t slots : {7, 1000}) {
        std::vector<char> tile(static_cast<size_t>(28 * slots));
        std::vector<int32_t> tiled(nodes.buffer.size(), kUnwritten);
        int64_t moved = 0;
        ASSERT_EQ(gnnrt_cpu_receptive_rows_tiles(
                      &g, mask.data(), nodeHops, tile.data(),
                      static_cast<int64_t>(tile.size()), tiled.data(), &moved),
                  GNNRT_OK);
        EXPECT_EQ(tiled, nodes.buffer)
            << name << ", node hops " << nodeHops << ", tiles of " << slots;
      }
      for (int64_t hops = 0; hops <= nodeHops; ++hops)
        for (int threads : {1, 2}) {
          SCOPED_TRACE(std::string(name) + ", node hops " +
                       std::to_string(nodeHops) + ", hops " +
                       std::to_string(hops) + ", threads " +
                       std::to_string(threads));
          gnnrt_cpu_set_num_threads(threads);
          const std::vector<int32_t> want = referenceEdges(graph, nodes, hops);
          EXPECT_EQ(receptiveEdges(g, nodes, hops).buffer, want);
          // The same sets with the graph read through tiles of 7 and of
          // 1000 slots (a row longer than the tile goes on in the next).
          for (int64_t slots : {7, 1000}) {
            std::vector<char> tile(static_cast<size_t>(28 * slots));
            std::vector<int32_t> tiled(want.size(), kUnwritten);
            int64_t moved = 0;
            ASSERT_EQ(gnnrt_cpu_receptive_edges_tiles(
                          &g, nodes.buffer.data(), nodeHops, hops, tile.data(),
                          static_cast<int64_t>(tile.size()), tiled.data(),
                          &moved),
                      GNNRT_OK);
            EXPECT_EQ(tiled, want) << "tiles of " << slots << " slots";
            EXPECT_GT(moved, 0);
          }
        }
    }
}

TEST_F(EdgeSetsTest, ReceptiveRowsTilesRejectBadArguments) {
  const CsrGraph csr = handCsr();
  const gnnrt_graph g = csr.view();
  std::vector<uint8_t> mask(6);
  mask[0] = 1;
  std::vector<char> tile(28 * 4);
  std::vector<int32_t> out(static_cast<size_t>(gnnrt_row_sets_length(6, 2)),
                           kUnwritten);
  int64_t moved = 0;
  const int64_t bytes = static_cast<int64_t>(tile.size());
  EXPECT_EQ(gnnrt_cpu_receptive_rows_tiles(&g, mask.data(), 2, nullptr, bytes,
                                           out.data(), &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_rows_tiles(&g, nullptr, 2, tile.data(), bytes,
                                           out.data(), &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_rows_tiles(&g, mask.data(), -1, tile.data(),
                                           bytes, out.data(), &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_receptive_rows_tiles(&g, mask.data(), 2, tile.data(), 27,
                                           out.data(), &moved),
            GNNRT_ERR_BAD_SIZE);
}

TEST_F(EdgeSetsTest, ReceptiveEdgesTilesRejectBadArguments) {
  const CsrGraph csr = handCsr();
  const gnnrt_graph g = csr.view();
  std::vector<uint8_t> mask(6);
  mask[0] = 1;
  const RowSets nodes = receptiveRows(g, mask, 2);
  std::vector<char> tile(28 * 4), small(27);
  std::vector<int32_t> out(static_cast<size_t>(gnnrt_row_sets_length(11, 1)),
                           kUnwritten);
  const std::vector<int32_t> untouched = out;
  int64_t moved = 0;
  const int64_t bytes = static_cast<int64_t>(tile.size());
  EXPECT_EQ(gnnrt_cpu_receptive_edges_tiles(&g, nodes.buffer.data(), 2, 1,
                                            nullptr, bytes, out.data(), &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_edges_tiles(&g, nodes.buffer.data(), 2, 1,
                                            tile.data(), bytes, out.data(),
                                            nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_edges_tiles(&g, nodes.buffer.data(), 2, 3,
                                            tile.data(), bytes, out.data(),
                                            &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(out, untouched);
  EXPECT_EQ(gnnrt_cpu_receptive_edges_tiles(&g, nodes.buffer.data(), 2, 1,
                                            small.data(), 27, out.data(),
                                            &moved),
            GNNRT_ERR_BAD_SIZE);
}

TEST_F(EdgeSetsTest, ReceptiveEdgesRejectBadArguments) {
  const CsrGraph csr = handCsr();
  const gnnrt_graph g = csr.view();
  const RowSets nodes = receptiveRows(g, kHandMask, 2);
  const int32_t *ns = nodes.data();
  std::vector<int32_t> out(gnnrt_row_sets_length(11, 2), kUnwritten);
  const std::vector<int32_t> untouched = out;
  int32_t *o = out.data();
  ASSERT_EQ(gnnrt_cpu_receptive_edges(&g, ns, 2, 2, o), GNNRT_OK);
  out = untouched;
  EXPECT_EQ(gnnrt_cpu_receptive_edges(nullptr, ns, 2, 2, o),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, nullptr, 2, 2, o),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, ns, 2, 2, nullptr),
            GNNRT_ERR_NULL_POINTER);
  // More hops than the node sets have.
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, ns, 2, 3, o), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, ns, 2, -1, o),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, ns, -1, -1, o),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(
      gnnrt_cpu_receptive_edges(&g, ns, GNNRT_ROW_SETS_MAX_HOPS + 1, 2, o),
      GNNRT_ERR_BAD_ARGUMENT);
  // A count beyond the nodes: node sets made for another graph.
  std::vector<int32_t> wrong = nodes.buffer;
  wrong[1] = 7;
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, wrong.data(), 2, 1, o),
            GNNRT_ERR_BAD_ARGUMENT);
  wrong[1] = -1;
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&g, wrong.data(), 2, 1, o),
            GNNRT_ERR_BAD_ARGUMENT);
  gnnrt_graph bad = g;
  bad.num_edges -= 1; // the offsets no longer end at E
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&bad, ns, 2, 2, o), GNNRT_ERR_BAD_GRAPH);
  bad = g;
  bad.in.edge_id = nullptr;
  EXPECT_EQ(gnnrt_cpu_receptive_edges(&bad, ns, 2, 2, o),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(out, untouched);
}

//===----------------------------------------------------------------------===//
// gnnrt_cpu_dropout_columns_rows
//===----------------------------------------------------------------------===//

/// A column slice and the whole matrix it is part of: GAT's one head of
/// four (one element, off the start of its Philox block), its 8 features
/// of a head of 16 (whole blocks), and widths that cut blocks both ways.
struct Slice {
  int64_t width, cols, offset;
};
const Slice kSlices[] = {{1, 4, 2}, {8, 16, 8}, {3, 7, 4}, {5, 11, 3}};

/// Keep rates: a power of two (a product), one that divides, keep all,
/// drop all (p above 1 - 2^-32).
const double kRates[] = {0.5, 0.3, 0.0, 1 - 0x1p-34};

std::string describe(const Slice &s, double p, int64_t level, int zeroRest) {
  return "width " + std::to_string(s.width) + " of " + std::to_string(s.cols) +
         " from " + std::to_string(s.offset) + ", p " + std::to_string(p) +
         ", level " + std::to_string(level) +
         (zeroRest ? ", zero_rest" : ", rest kept");
}

/// \p count floats for dropout: special values (NaN, infinities, -0.0,
/// subnormals) and one element in three +0.0, so that some Philox blocks
/// are all +0.0 and take the kernels' shortcut.
std::vector<float> dropoutInput(int64_t count, uint64_t seed) {
  std::vector<float> x = specialValues(count, seed);
  for (int64_t i = 0; i < count; i += 3)
    x[i] = 0.0f;
  return x;
}

/// Whether \p a and \p b hold the same bits (NaN sentinels included).
bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

/// Rows of \p width floats: those of level <= \p level with the bits of
/// \p want, the others +0.0 with \p zeroRest, else those of \p before.
::testing::AssertionResult rowsAre(const std::vector<float> &got,
                                   const std::vector<float> &want,
                                   const std::vector<float> &before,
                                   const RowSets &sets, int64_t level,
                                   int64_t width, int zeroRest) {
  for (int64_t r = 0; r < sets.nodes; ++r) {
    const bool computed = sets.level(r) <= level;
    for (int64_t c = 0; c < width; ++c) {
      const int64_t at = r * width + c;
      const uint32_t g = bitsOf(got[at]);
      const uint32_t w = computed   ? bitsOf(want[at])
                         : zeroRest ? 0u
                                    : bitsOf(before[at]);
      if (g != w)
        return ::testing::AssertionFailure()
               << "row " << r << (computed ? " (computed)" : " (rest)")
               << ", column " << c << ": bits " << std::hex << g << ", want "
               << w;
    }
  }
  return ::testing::AssertionSuccess();
}

/// gnnrt_cpu_dropout_columns_rows at every level of \p sets, both ways of
/// treating the rest, out of place and in place, against the whole kernel.
void checkDropoutRows(const RowSets &sets, uint64_t seed) {
  const int64_t rows = sets.nodes;
  for (const Slice &s : kSlices)
    for (double p : kRates) {
      const std::vector<float> x = dropoutInput(rows * s.width, seed);
      std::vector<float> want(x.size());
      ASSERT_EQ(gnnrt_cpu_dropout_columns(x.data(), rows, s.width, s.cols,
                                          s.offset, 41, 5, 2, p, want.data()),
                GNNRT_OK);
      for (int64_t level = 0; level <= sets.hops; ++level)
        for (int zeroRest : {1, 0}) {
          SCOPED_TRACE(describe(s, p, level, zeroRest));
          const std::vector<float> before(x.size(), kSentinel);
          std::vector<float> y = before;
          ASSERT_EQ(gnnrt_cpu_dropout_columns_rows(
                        x.data(), rows, s.width, s.cols, s.offset, 41, 5, 2, p,
                        sets.data(), sets.hops, level, zeroRest, y.data()),
                    GNNRT_OK);
          EXPECT_TRUE(rowsAre(y, want, before, sets, level, s.width, zeroRest));
          // In place: the rest keeps x's own values without zero_rest.
          std::vector<float> z = x;
          ASSERT_EQ(gnnrt_cpu_dropout_columns_rows(
                        z.data(), rows, s.width, s.cols, s.offset, 41, 5, 2, p,
                        sets.data(), sets.hops, level, zeroRest, z.data()),
                    GNNRT_OK);
          EXPECT_TRUE(rowsAre(z, want, x, sets, level, s.width, zeroRest))
              << "in place";
        }
    }
}

TEST_F(EdgeSetsTest, DropoutColumnsRowsAtTheEdgesIntoTheSets) {
  // GAT's use: per-edge attention, rows restricted to the edges into R_k.
  ref::Graph graph = ref::randomGraph(1500, 9, 31);
  CsrGraph csr = toCsr(graph);
  shuffleSlots(csr.inPtr, csr.inSrc, csr.inId, 32);
  const gnnrt_graph g = csr.view();
  const RowSets nodes = receptiveRows(g, randomMask(1500, 3, 33), 2);
  const RowSets edges = receptiveEdges(g, nodes, 2);
  ASSERT_EQ(edges.buffer, referenceEdges(graph, nodes, 2));
  ASSERT_GT(edges.counts()[0], 0);
  ASSERT_LT(edges.counts()[2], graph.numEdges());
  checkDropoutRows(edges, 34);
}

TEST_F(EdgeSetsTest, DropoutColumnsRowsThreadTeamsGiveTheSameBits) {
  // Enough listed rows for a thread team even one element wide, from a
  // graph of three random in-edges a row (ref::randomGraph takes time
  // quadratic in the nodes).
  ref::Graph graph;
  graph.nodes = 60000;
  uint64_t state = 35;
  for (int64_t i = 0; i < 60000; ++i)
    for (int k = 0; k < 3; ++k) {
      graph.src.push_back(static_cast<int64_t>(nextRandom(state) % 60000));
      graph.dst.push_back(i);
    }
  const CsrGraph csr = toCsr(graph);
  const RowSets sets =
      receptiveRows(csr.view(), randomMask(60000, 25, 36), /*hops=*/2);
  ASSERT_GT(sets.counts()[1], 33000); // Common.h's grain: 2^15
  ASSERT_LT(sets.counts()[1], 60000);
  for (int threads : {1, 2}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    gnnrt_cpu_set_num_threads(threads);
    for (const Slice &s : {kSlices[0], kSlices[1]}) {
      const std::vector<float> x = dropoutInput(60000 * s.width, 37);
      const std::vector<float> before(x.size(), kSentinel);
      std::vector<float> want(x.size()), y = before;
      ASSERT_EQ(gnnrt_cpu_dropout_columns(x.data(), 60000, s.width, s.cols,
                                          s.offset, 7, 9, 3, 0.3, want.data()),
                GNNRT_OK);
      ASSERT_EQ(gnnrt_cpu_dropout_columns_rows(x.data(), 60000, s.width, s.cols,
                                               s.offset, 7, 9, 3, 0.3,
                                               sets.data(), 2, 1, 0, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(rowsAre(y, want, before, sets, 1, s.width, 0))
          << "width " << s.width;
    }
  }
}

TEST_F(EdgeSetsTest, DropoutColumnsRowsRejectBadArguments) {
  const RowSets sets = matrixRowSets(40, 2, 37, /*percent=*/20);
  const std::vector<float> x = dropoutInput(40, 38);
  std::vector<float> y(40, kSentinel);
  const std::vector<float> untouched = y;
  const int32_t *rs = sets.data();
  ASSERT_GT(sets.counts()[2], 0);
  auto call = [&](const float *xs, int64_t rows, int64_t width, int64_t cols,
                  int64_t offset, double p, const int32_t *r, int64_t hops,
                  int64_t level, float *ys) {
    return gnnrt_cpu_dropout_columns_rows(xs, rows, width, cols, offset, 1, 2,
                                          3, p, r, hops, level, 1, ys);
  };
  ASSERT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, rs, 2, 1, y.data()), GNNRT_OK);
  y = untouched;
  EXPECT_EQ(call(nullptr, 40, 1, 4, 2, 0.5, rs, 2, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, rs, 2, 1, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, nullptr, 2, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  // The slice must lie within the matrix.
  EXPECT_EQ(call(x.data(), 40, 1, 4, 4, 0.5, rs, 2, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, -1, 0.5, rs, 2, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 1.0, rs, 2, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, -0.1, rs, 2, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, rs, 2, 3, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, rs, 2, -1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(x.data(), 40, 1, 4, 2, 0.5, rs, -1, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  // Sets over more rows than the matrix has.
  EXPECT_EQ(
      call(x.data(), sets.counts()[2] - 1, 1, 4, 2, 0.5, rs, 2, 2, y.data()),
      GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(sameBits(y, untouched));
}

} // namespace
