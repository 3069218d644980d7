//===- TilesTest.cpp - Sparse products over operands read a tile at a time ===//
//
// gnnrt_cpu_spmm_tiles against gnnrt_cpu_spmm and gnnrt_cpu_spmm_rows, bit
// for bit: every tile size from one slot (every row split into pieces) to
// the whole graph, sum and mean, weights on the device or tiled with the
// graph, one weight per edge or one per head, every row or one row set's,
// one thread or two. The graph has a hub row of more than N / 2 slots, so
// small tiles split rows over many tiles. Then gnnrt_cpu_csr_matmul_tiles
// against gnnrt_cpu_csr_matmul and gnnrt_cpu_csr_matmul_rows, the same
// way, both directions, on a feature matrix with a long row and a dense
// column, before and after a dropout (half its values +0.0, which the
// whole kernels skip when b is finite), and with an infinity in b (which
// they then do not). Outputs start as NaN sentinels, so a row a kernel
// forgets shows. Also: the bytes they report copying, and their argument
// checks. Last, the edge kernels' tiles (SDDMM, the edge soft-max and its
// gradient) against their whole-graph kernels, in place too.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "CsrBuffer.h"
#include "CsrProducts.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <cmath>
#include <cstring>
#include <limits>
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

TEST_F(TilesTest, RowSetsWithWeightsPerHeadGiveTheSpmmHeadsRowsBits) {
  // GAT's restricted aggregation: a weight per head, read from the device
  // and from host memory through the tile, at the rows of each set, with
  // and without skipped sources.
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  gnnrt_cpu_set_num_threads(1);
  for (int64_t d : {TilesCase::kHeads * 8, TilesCase::kHeads * 3}) {
    const std::vector<float> x = toF32(randomF32({kNodes, d}, 60 + d));
    for (int64_t level = 0; level <= kHops; ++level)
      for (int64_t skip : {int64_t(0), kHops + 1}) {
        std::vector<float> want(x.size(), NAN);
        ASSERT_EQ(gnnrt_cpu_spmm_heads_rows(&g, GNNRT_AGGR_SUM, x.data(), d,
                                            t.headWeights.data(),
                                            TilesCase::kHeads, t.sets.data(),
                                            kHops, level, skip, 1, want.data()),
                  GNNRT_OK);
        for (bool tiled : {false, true}) {
          SCOPED_TRACE("width " + std::to_string(d) + ", level " +
                       std::to_string(level) + ", skip " +
                       std::to_string(skip) + (tiled ? ", tiled" : ""));
          TileArgs a;
          a.weights = t.headWeights.data();
          a.heads = TilesCase::kHeads;
          a.tileWeights = tiled;
          a.slots = 5;
          a.sets = &t.sets;
          a.level = level;
          a.skip = skip;
          EXPECT_TRUE(sameBits(spmmTiles(g, x, d, a), want));
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
  // Two threads cut the tile into two sections: 1 slot leaves one thread,
  // 3 and 7 sections of 1 and 3 slots that split most rows.
  for (int64_t slots : {1, 3, 7, 4096}) {
    SCOPED_TRACE("slots " + std::to_string(slots));
    a.slots = slots;
    gnnrt_cpu_set_num_threads(1);
    const std::vector<float> one = spmmTiles(g, x, d, a);
    gnnrt_cpu_set_num_threads(2);
    EXPECT_TRUE(sameBits(spmmTiles(g, x, d, a), one));
  }
}

// What the tiles copy: a piece record per row and a source and edge id per
// slot (and the weights when tiled), once each when one tile holds the
// whole graph; more pieces when rows are split.
TEST_F(TilesTest, ReportsTheBytesCopied) {
  // One thread's walk: see CsrMatmulTilesReportTheBytesCopied.
  gnnrt_cpu_set_num_threads(1);
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

//===----------------------------------------------------------------------===//
// gnnrt_cpu_csr_matmul_tiles
//===----------------------------------------------------------------------===//

/// Bytes of a CSR tile per slot (a piece record, an index, a value).
constexpr int64_t kCsrSlotBytes = 28;

/// A feature matrix as the tiled products see it: about 10% of its
/// elements stored, plus a long row (kLongRow: every column but the empty
/// ones) and a dense column (kDenseCol: every row but the empty ones), so
/// that small tiles split output rows both ways; every fifth row and
/// every seventh column empty (pieces with no slots). `dropped` is it
/// after a dropout at p = 0.5: half its values +0.0. The row sets are over
/// its rows, R_0 holding the long row.
struct CsrTilesCase {
  static constexpr int64_t kRows = 600, kCols = 90, kHops = 2;
  static constexpr int64_t kLongRow = 7, kDenseCol = 5;
  CsrBuffer plain = featureMatrix();
  CsrBuffer dropped = dropout(plain);
  RowSets sets = rowSets();

  /// Whether element (i, j) is in an empty row or column.
  static bool empty(int64_t i, int64_t j) { return i % 5 == 3 || j % 7 == 2; }

  static CsrBuffer featureMatrix() {
    std::vector<int32_t> indptr{0}, indices;
    std::vector<float> values;
    uint64_t state = 71;
    const uint64_t cut = static_cast<uint64_t>(0.1 * 0x1p32);
    for (int64_t i = 0; i < kRows; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        const bool random = (nextRandom(state) >> 32) < cut;
        if (!empty(i, j) && (i == kLongRow || j == kDenseCol || random)) {
          indices.push_back(static_cast<int32_t>(j));
          values.push_back(uniform(state));
        }
      }
      indptr.push_back(static_cast<int32_t>(indices.size()));
    }
    CsrBuffer m(kRows, kCols, static_cast<int64_t>(indices.size()));
    EXPECT_EQ(gnnrt_cpu_csr_matrix_build(indptr.data(), indices.data(),
                                         values.data(), m.rows, m.cols, m.nnz,
                                         m.data()),
              GNNRT_OK);
    return m;
  }

  static CsrBuffer dropout(const CsrBuffer &x) {
    CsrBuffer y(x.rows, x.cols, x.nnz);
    EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), x.rows, x.cols, x.nnz, 72, 2, 3,
                                    0.5, y.data()),
              GNNRT_OK);
    return y;
  }

  static RowSets rowSets() {
    const CsrGraph csr = toCsr(ref::randomGraph(kRows, 4, 73));
    std::vector<uint8_t> mask = randomMask(kRows, 2, 74);
    mask[kLongRow] = 1;
    return receptiveRows(csr.view(), mask, kHops);
  }

  /// The slots of the rows of level <= \p level.
  int64_t slotsUpTo(int64_t level) const {
    const gnnrt_csr_matrix v = plain.view();
    int64_t slots = 0;
    for (int64_t i = 0; i < kRows; ++i)
      if (sets.level(i) <= level)
        slots += v.indptr[i + 1] - v.indptr[i];
    return slots;
  }
};

const CsrTilesCase &csrTilesCase() {
  static const CsrTilesCase c;
  return c;
}

/// A tiled product's inputs beyond a and b.
struct CsrTileArgs {
  bool transpose = false;
  int64_t slots = 1; // slots per tile
  const RowSets *sets = nullptr;
  int64_t level = 0;
  int zeroRest = 1;
};

/// gnnrt_cpu_csr_matmul_tiles over NaN sentinels (and a tile of garbage);
/// the call must succeed. \p moved, when given, gets the bytes reported.
std::vector<float> csrMatmulTiles(const CsrBuffer &a,
                                  const std::vector<float> &b, int64_t n,
                                  const CsrTileArgs &t,
                                  int64_t *moved = nullptr,
                                  int64_t extraBytes = 0) {
  std::vector<char> tile(
      static_cast<size_t>(kCsrSlotBytes * t.slots + extraBytes),
      static_cast<char>(0xA5));
  std::vector<float> c(static_cast<size_t>(outputRows(a, t.transpose) * n),
                       NAN);
  int64_t bytes = 0;
  EXPECT_EQ(gnnrt_cpu_csr_matmul_tiles(
                a.data(), a.rows, a.cols, a.nnz, t.transpose, b.data(), n,
                t.sets ? t.sets->data() : nullptr, t.sets ? t.sets->hops : 0,
                t.level, t.zeroRest, tile.data(),
                static_cast<int64_t>(tile.size()), c.data(), &bytes),
            GNNRT_OK);
  if (moved)
    *moved = bytes;
  return c;
}

/// The matrices' stored values that are +0.0 or -0.0.
int64_t zeroValues(const CsrBuffer &a) {
  const gnnrt_csr_matrix v = a.view();
  int64_t zeros = 0;
  for (int64_t s = 0; s < a.nnz; ++s)
    zeros += v.values[s] == 0.0f;
  return zeros;
}

/// The tile sizes: one slot, a few (the long row and the dense column split
/// over many tiles), more than either (split where a tile ends), and the
/// whole matrix.
std::vector<int64_t> csrTileSlots(const CsrBuffer &a) {
  return {1, 7, 64, 500, a.nnz};
}

/// `fn(a, transpose, n)` for both matrices, both directions and widths 64
/// and 32 (skipping zero values), 16 and 7 (compile-time widths), and 9 (a
/// run-time one), with 1 and 2 threads (set before the call).
template <typename Fn> void forEachCsrProduct(const CsrTilesCase &t, Fn fn) {
  for (int threads : {1, 2})
    for (const CsrBuffer *a : {&t.plain, &t.dropped})
      for (bool transpose : {false, true})
        for (int64_t n : {64, 32, 16, 7, 9}) {
          SCOPED_TRACE("threads " + std::to_string(threads) +
                       (a == &t.plain ? ", plain" : ", dropped") +
                       (transpose ? ", a^T b" : ", a b") + ", n " +
                       std::to_string(n));
          gnnrt_cpu_set_num_threads(threads);
          fn(*a, transpose, n);
        }
}

TEST_F(TilesTest, CsrMatmulTilesGiveTheCsrMatmulBits) {
  const CsrTilesCase &t = csrTilesCase();
  ASSERT_GE(zeroValues(t.dropped), t.dropped.nnz / 4)
      << "the whole kernel skips the zeros of the dropped matrix";
  ASSERT_EQ(zeroValues(t.plain), 0);
  forEachCsrProduct(t, [&](const CsrBuffer &a, bool transpose, int64_t n) {
    const std::vector<float> b =
        randomDense((transpose ? a.rows : a.cols) * n, 80 + n);
    const std::vector<float> want = csrMatmul(a, transpose, b, n);
    for (int64_t slots : csrTileSlots(a)) {
      SCOPED_TRACE(std::to_string(slots) + " slots per tile");
      CsrTileArgs args;
      args.transpose = transpose;
      args.slots = slots;
      EXPECT_TRUE(sameBits(csrMatmulTiles(a, b, n, args), want));
    }
  });
}

// Forward: the rows of R_level, the others +0.0 or left as they were
// (zero_rest). a^T b: every row of c, summing over the rows of a in R_level
// only; b's other rows are not zero here, so a kernel that reads them
// fails.
TEST_F(TilesTest, CsrMatmulTilesWithRowSetsGiveTheCsrMatmulRowsBits) {
  const CsrTilesCase &t = csrTilesCase();
  ASSERT_EQ(t.sets.level(CsrTilesCase::kLongRow), 0);
  ASSERT_LT(t.sets.counts()[0], t.sets.counts()[1]);
  ASSERT_LT(t.sets.counts()[CsrTilesCase::kHops], CsrTilesCase::kRows)
      << "some rows outside R_2";
  forEachCsrProduct(t, [&](const CsrBuffer &a, bool transpose, int64_t n) {
    const std::vector<float> b =
        randomDense((transpose ? a.rows : a.cols) * n, 90 + n);
    for (int64_t level = 0; level <= CsrTilesCase::kHops; ++level)
      for (int zeroRest : {0, 1}) {
        const std::vector<float> want =
            csrMatmulRows(a, transpose, b, n, t.sets, level, zeroRest);
        for (int64_t slots : csrTileSlots(a)) {
          SCOPED_TRACE("level " + std::to_string(level) + ", zero_rest " +
                       std::to_string(zeroRest) + ", " + std::to_string(slots) +
                       " slots per tile");
          CsrTileArgs args;
          args.transpose = transpose;
          args.slots = slots;
          args.sets = &t.sets;
          args.level = level;
          args.zeroRest = zeroRest;
          EXPECT_TRUE(sameBits(csrMatmulTiles(a, b, n, args), want));
        }
      }
  });
}

// The whole kernels skip the +0.0 values of the dropped matrix only where
// b is finite; with an infinity in a row of b that a +0.0 slot reads they
// add 0 * inf = NaN, and so must the tiles.
TEST_F(TilesTest, CsrMatmulTilesKeepTheNaNOfZeroTimesInfinity) {
  const CsrTilesCase &t = csrTilesCase();
  const CsrBuffer &a = t.dropped;
  const gnnrt_csr_matrix v = a.view();
  // A +0.0 slot in a row of R_0.
  int64_t row = -1, slot = -1;
  for (int64_t i = 0; i < a.rows && slot < 0; ++i)
    for (int32_t s = v.indptr[i]; s < v.indptr[i + 1] && slot < 0; ++s)
      if (t.sets.level(i) == 0 && v.values[s] == 0.0f) {
        row = i;
        slot = s;
      }
  ASSERT_GE(slot, 0) << "no zero value in R_0";
  const int64_t n = 64;
  for (int threads : {1, 2})
    for (bool transpose : {false, true}) {
      SCOPED_TRACE("threads " + std::to_string(threads) +
                   (transpose ? ", a^T b" : ", a b"));
      gnnrt_cpu_set_num_threads(threads);
      std::vector<float> b = randomDense((transpose ? a.rows : a.cols) * n, 99);
      b[(transpose ? row : v.indices[slot]) * n + 5] =
          std::numeric_limits<float>::infinity();
      const int64_t out = transpose ? v.indices[slot] : row;
      const std::vector<float> want = csrMatmul(a, transpose, b, n);
      ASSERT_TRUE(std::isnan(want[out * n + 5]));
      const std::vector<float> wantRows =
          csrMatmulRows(a, transpose, b, n, t.sets, 0, 1);
      ASSERT_TRUE(std::isnan(wantRows[out * n + 5]));
      for (int64_t slots : {int64_t(3), a.nnz}) {
        SCOPED_TRACE(std::to_string(slots) + " slots per tile");
        CsrTileArgs args;
        args.transpose = transpose;
        args.slots = slots;
        EXPECT_TRUE(sameBits(csrMatmulTiles(a, b, n, args), want));
        args.sets = &t.sets;
        EXPECT_TRUE(sameBits(csrMatmulTiles(a, b, n, args), wantRows));
      }
    }
}

// What the tiles copy: a piece record per output row and an index and a
// value per slot, once each when one tile holds the whole matrix; a piece
// per slot (and per row with none) in tiles of one slot. a^T b with row
// sets copies only the slots of the rows of a in R_level.
TEST_F(TilesTest, CsrMatmulTilesReportTheBytesCopied) {
  const CsrTilesCase &t = csrTilesCase();
  const CsrBuffer &a = t.plain;
  const gnnrt_csr_matrix v = a.view();
  const int64_t n = 4, rows = a.rows, cols = a.cols, nnz = a.nnz;
  const std::vector<float> b = randomDense(std::max(rows, cols) * n, 100);
  int64_t emptyRows = 0, emptyCols = 0;
  for (int64_t i = 0; i < rows; ++i)
    emptyRows += v.indptr[i + 1] == v.indptr[i];
  for (int64_t j = 0; j < cols; ++j)
    emptyCols += v.colptr[j + 1] == v.colptr[j];
  ASSERT_GT(emptyRows, 0);
  ASSERT_GT(emptyCols, 0);

  // The formulas count the pieces of one thread's walk: more threads cut
  // the tile into sections, and a row may then split where a section ends.
  gnnrt_cpu_set_num_threads(1);
  CsrTileArgs args;
  // The bytes one product reports, `a^T b` when \p transpose, in tiles of
  // \p slots slots (and \p extra bytes).
  auto movedBy = [&](bool transpose, int64_t slots, int64_t extra = 0) {
    args.transpose = transpose;
    args.slots = slots;
    int64_t moved = 0;
    csrMatmulTiles(a, b, n, args, &moved, extra);
    return moved;
  };
  EXPECT_EQ(movedBy(false, nnz), 20 * rows + 8 * nnz);
  EXPECT_EQ(movedBy(false, nnz, kCsrSlotBytes - 1), 20 * rows + 8 * nnz)
      << "a partial slot holds nothing";
  EXPECT_EQ(movedBy(false, 1), 20 * (nnz + emptyRows) + 8 * nnz);
  EXPECT_EQ(movedBy(true, nnz), 20 * cols + 8 * nnz);
  EXPECT_EQ(movedBy(true, 1), 20 * (nnz + emptyCols) + 8 * nnz);

  args.sets = &t.sets;
  for (int64_t level = 0; level <= CsrTilesCase::kHops; ++level) {
    SCOPED_TRACE("level " + std::to_string(level));
    args.level = level;
    const int64_t kept = t.slotsUpTo(level);
    // The columns with no slot in a row of R_level.
    int64_t none = 0;
    for (int64_t j = 0; j < cols; ++j) {
      bool any = false;
      for (int32_t s = v.colptr[j]; s < v.colptr[j + 1]; ++s)
        any |= t.sets.level(v.rowidx[s]) <= level;
      none += !any;
    }
    EXPECT_EQ(movedBy(true, nnz), 20 * cols + 8 * kept);
    EXPECT_EQ(movedBy(true, 1), 20 * (kept + none) + 8 * kept);
    EXPECT_EQ(movedBy(false, nnz), 20 * t.sets.counts()[level] + 8 * kept);
  }

  // The count is added to.
  std::vector<char> tile(kCsrSlotBytes * 16);
  std::vector<float> c(static_cast<size_t>(rows * n));
  int64_t moved = 1000;
  ASSERT_EQ(gnnrt_cpu_csr_matmul_tiles(a.data(), rows, cols, nnz, 0, b.data(),
                                       n, nullptr, 0, 0, 0, tile.data(),
                                       kCsrSlotBytes * 16, c.data(), &moved),
            GNNRT_OK);
  EXPECT_GT(moved, 1000 + 8 * nnz);
  const int64_t once = moved - 1000;
  ASSERT_EQ(gnnrt_cpu_csr_matmul_tiles(a.data(), rows, cols, nnz, 0, b.data(),
                                       n, nullptr, 0, 0, 0, tile.data(),
                                       kCsrSlotBytes * 16, c.data(), &moved),
            GNNRT_OK);
  EXPECT_EQ(moved, 1000 + 2 * once);
}

TEST_F(TilesTest, CsrMatmulTilesRejectBadArguments) {
  const CsrTilesCase &t = csrTilesCase();
  const CsrBuffer &a = t.plain;
  const int64_t n = 4, rows = a.rows, cols = a.cols, nnz = a.nnz;
  const std::vector<float> b(static_cast<size_t>(cols * n), 1.0f);
  std::vector<float> c(static_cast<size_t>(rows * n), NAN);
  std::vector<char> tile(kCsrSlotBytes * 8);
  RowSets sets = t.sets;
  int64_t moved = 0;
  auto call = [&](const void *m, int64_t z, const float *bp, int64_t width,
                  const int32_t *rowSets, int64_t hops, int64_t level, void *tp,
                  int64_t tileBytes, int64_t *out) {
    return gnnrt_cpu_csr_matmul_tiles(m, rows, cols, z, 0, bp, width, rowSets,
                                      hops, level, 1, tp, tileBytes, c.data(),
                                      out);
  };
  const int64_t bytes = kCsrSlotBytes * 8, hops = CsrTilesCase::kHops;
  // The tile.
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, nullptr, 0, 0, tile.data(),
                 kCsrSlotBytes - 1, &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(
      call(a.data(), nnz, b.data(), n, nullptr, 0, 0, tile.data(), -28, &moved),
      GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(
      call(a.data(), nnz, b.data(), n, nullptr, 0, 0, nullptr, bytes, &moved),
      GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, nullptr, 0, 0, tile.data(), bytes,
                 nullptr),
            GNNRT_ERR_NULL_POINTER);
  // The product's own.
  EXPECT_EQ(call(nullptr, nnz, b.data(), n, nullptr, 0, 0, tile.data(), bytes,
                 &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), nnz, nullptr, n, nullptr, 0, 0, tile.data(), bytes,
                 &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(a.data(), nnz, b.data(), -1, nullptr, 0, 0, tile.data(), bytes,
                 &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(call(a.data(), nnz - 1, b.data(), n, nullptr, 0, 0, tile.data(),
                 bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT); // offsets that do not span nnz
  EXPECT_EQ(gnnrt_cpu_csr_matmul_tiles(a.data(), rows, cols, nnz, 0, b.data(),
                                       n, nullptr, 0, 0, 1, tile.data(), bytes,
                                       nullptr, &moved),
            GNNRT_ERR_NULL_POINTER);
  // The row sets'.
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, sets.data(), -1, 0, tile.data(),
                 bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, sets.data(), hops, hops + 1,
                 tile.data(), bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, sets.data(), hops, -1, tile.data(),
                 bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(a.data(), nnz - 1, b.data(), n, sets.data(), hops, 0,
                 tile.data(), bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  sets.buffer[1] = static_cast<int32_t>(rows + 1); // |R_1| beyond the rows
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, sets.data(), hops, 1, tile.data(),
                 bytes, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(moved, 0) << "no call that failed copied anything";
  for (float e : c)
    ASSERT_TRUE(std::isnan(e)) << "no call that failed wrote c";
  // The same calls with valid arguments succeed.
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, sets.data(), hops, 0, tile.data(),
                 bytes, &moved),
            GNNRT_OK);
  EXPECT_EQ(call(a.data(), nnz, b.data(), n, nullptr, 0, 0, tile.data(), bytes,
                 &moved),
            GNNRT_OK);
}

//===----------------------------------------------------------------------===//
// The edge kernels: gnnrt_cpu_sddmm_tiles, gnnrt_cpu_edge_softmax_tiles and
// gnnrt_cpu_edge_softmax_grad_tiles against their whole-graph kernels.
//===----------------------------------------------------------------------===//

/// An edge kernel's tiled call on a tile of \p slots slots: the tile, and
/// what it reports copying.
struct EdgeTile {
  std::vector<char> buffer;
  int64_t moved = 0;
  explicit EdgeTile(int64_t slots)
      : buffer(static_cast<size_t>(kGraphSlotBytes * slots)) {}
  void *data() { return buffer.data(); }
  int64_t bytes() const { return static_cast<int64_t>(buffer.size()); }
};

/// The tile sizes the edge kernels are tried at: one slot (every row of the
/// soft-max longer than the tile, streamed), a few (the hub and many rows
/// streamed; SDDMM's rows split), a few hundred, the whole graph.
std::vector<int64_t> edgeTileSizes(int64_t edges) {
  return {1, 3, 7, 500, edges};
}

TEST_F(TilesTest, SddmmTilesGiveTheSddmmBits) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t e = t.graph.numEdges();
  for (int threads : {1, 2})
    for (int64_t heads : {int64_t(1), int64_t(4)})
      for (int64_t d : {heads * 3, heads * 16}) {
        gnnrt_cpu_set_num_threads(threads);
        const std::vector<float> lhs = toF32(randomF32({kNodes, d}, 70 + d));
        const std::vector<float> rhs = toF32(randomF32({kNodes, d}, 80 + d));
        std::vector<float> want(static_cast<size_t>(e * heads), NAN);
        ASSERT_EQ(
            gnnrt_cpu_sddmm(&g, lhs.data(), rhs.data(), d, heads, want.data()),
            GNNRT_OK);
        for (int64_t slots : edgeTileSizes(e)) {
          SCOPED_TRACE(std::to_string(threads) + " threads, " +
                       std::to_string(heads) + " heads, width " +
                       std::to_string(d) + ", " + std::to_string(slots) +
                       " slots per tile");
          EdgeTile tile(slots);
          std::vector<float> got(want.size(), NAN);
          ASSERT_EQ(gnnrt_cpu_sddmm_tiles(&g, lhs.data(), rhs.data(), d, heads,
                                          tile.data(), tile.bytes(), got.data(),
                                          &tile.moved),
                    GNNRT_OK);
          EXPECT_TRUE(sameBits(got, want));
          // Every slot's source and edge id, and a piece record per row
          // or part of a row.
          EXPECT_GE(tile.moved, 20 * kNodes + 8 * e);
        }
      }
}

TEST_F(TilesTest, EdgeSoftmaxTilesGiveTheEdgeSoftmaxBits) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t e = t.graph.numEdges();
  for (int threads : {1, 2})
    for (int64_t heads : {int64_t(1), int64_t(4)}) {
      gnnrt_cpu_set_num_threads(threads);
      // Scores wide enough that the maximum matters for exp().
      const std::vector<float> x =
          toF32(randomF32({e, heads}, 90 + heads, -40, 40));
      const std::vector<float> dy = toF32(randomF32({e, heads}, 95 + heads));
      std::vector<float> y(x.size(), NAN), dx(x.size(), NAN);
      ASSERT_EQ(gnnrt_cpu_edge_softmax(&g, x.data(), heads, y.data()),
                GNNRT_OK);
      ASSERT_EQ(gnnrt_cpu_edge_softmax_grad(&g, y.data(), dy.data(), heads,
                                            dx.data()),
                GNNRT_OK);
      for (int64_t slots : edgeTileSizes(e)) {
        SCOPED_TRACE(std::to_string(threads) + " threads, " +
                     std::to_string(heads) + " heads, " +
                     std::to_string(slots) + " slots per tile");
        EdgeTile tile(slots);
        std::vector<float> got(x.size(), NAN);
        ASSERT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, x.data(), heads, tile.data(),
                                               tile.bytes(), got.data(),
                                               &tile.moved),
                  GNNRT_OK);
        EXPECT_TRUE(sameBits(got, y));
        // In place, as the plans run it.
        std::vector<float> inPlace = x;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, inPlace.data(), heads,
                                               tile.data(), tile.bytes(),
                                               inPlace.data(), &tile.moved),
                  GNNRT_OK);
        EXPECT_TRUE(sameBits(inPlace, y));

        // The gradient into a fresh buffer, over dy, and over y.
        for (int over = 0; over < 3; ++over) {
          SCOPED_TRACE("gradient written over " +
                       std::string(over == 0   ? "nothing"
                                   : over == 1 ? "dy"
                                               : "y"));
          std::vector<float> yIn = y, dyIn = dy, fresh(x.size(), NAN);
          float *out = over == 0   ? fresh.data()
                       : over == 1 ? dyIn.data()
                                   : yIn.data();
          ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_tiles(
                        &g, yIn.data(), dyIn.data(), heads, tile.data(),
                        tile.bytes(), out, &tile.moved),
                    GNNRT_OK);
          EXPECT_TRUE(sameBits(
              std::vector<float>(out, out + static_cast<int64_t>(dx.size())),
              dx));
        }
      }
    }
}

// The soft-max's tiles hold whole rows' edge ids and a piece record per
// row; a row longer than the tile is read through it once per pass.
TEST_F(TilesTest, EdgeSoftmaxTilesReportTheBytesCopied) {
  gnnrt_cpu_set_num_threads(1);
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t e = t.graph.numEdges(), heads = 2;
  const std::vector<float> x = toF32(randomF32({e, heads}, 99));
  std::vector<float> y(x.size());
  // Every row has a self loop, so every row gets a piece.
  EdgeTile whole(e);
  ASSERT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, x.data(), heads, whole.data(),
                                         whole.bytes(), y.data(), &whole.moved),
            GNNRT_OK);
  EXPECT_EQ(whole.moved, 20 * kNodes + 4 * e);
  // With a one-slot tile every row is streamed: three passes of its ids
  // for the soft-max, two for its gradient, and no piece records.
  EdgeTile one(1);
  ASSERT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, x.data(), heads, one.data(),
                                         one.bytes(), y.data(), &one.moved),
            GNNRT_OK);
  std::vector<int64_t> degree(kNodes, 0);
  for (int64_t v : t.graph.dst)
    ++degree[v];
  int64_t longer = 0; // slots of the rows of more than one slot
  for (int64_t k : degree)
    longer += k > 1 ? k : 0;
  const int64_t single = e - longer; // rows of one slot, each a piece
  EXPECT_EQ(one.moved, 24 * single + 3 * 4 * longer);
  EdgeTile grad(1);
  std::vector<float> dx(x.size());
  ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_tiles(&g, y.data(), x.data(), heads,
                                              grad.data(), grad.bytes(),
                                              dx.data(), &grad.moved),
            GNNRT_OK);
  EXPECT_EQ(grad.moved, 24 * single + 2 * 4 * longer);
}

TEST_F(TilesTest, EdgeTilesRejectBadArguments) {
  const TilesCase &t = tilesCase();
  const gnnrt_graph g = t.csr.view();
  const int64_t e = t.graph.numEdges();
  std::vector<float> x(static_cast<size_t>(kNodes * 4), 1.0f),
      y(static_cast<size_t>(e), 0.0f);
  std::vector<char> tile(kGraphSlotBytes * 8);
  int64_t moved = 0;
  // A tile that holds no slot.
  EXPECT_EQ(gnnrt_cpu_sddmm_tiles(&g, x.data(), x.data(), 4, 1, tile.data(),
                                  kGraphSlotBytes - 1, y.data(), &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, y.data(), 1, tile.data(),
                                         kGraphSlotBytes - 1, y.data(), &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_grad_tiles(&g, y.data(), y.data(), 1,
                                              tile.data(), kGraphSlotBytes - 1,
                                              y.data(), &moved),
            GNNRT_ERR_BAD_SIZE);
  // No tile, no count of the bytes copied.
  EXPECT_EQ(gnnrt_cpu_sddmm_tiles(&g, x.data(), x.data(), 4, 1, nullptr,
                                  kGraphSlotBytes * 8, y.data(), &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_tiles(&g, y.data(), 1, tile.data(),
                                         kGraphSlotBytes * 8, y.data(),
                                         nullptr),
            GNNRT_ERR_NULL_POINTER);
  // The whole kernels' own checks: heads must divide the width.
  EXPECT_EQ(gnnrt_cpu_sddmm_tiles(&g, x.data(), x.data(), 4, 3, tile.data(),
                                  kGraphSlotBytes * 8, y.data(), &moved),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(moved, 0);
}

} // namespace
