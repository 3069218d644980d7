//===- RowsTest.cpp - Kernels restricted to the receptive rows ------------===//
//
// gnnrt_cpu_receptive_rows on a graph small enough to work out by hand and
// against a plain breadth-first search on random ones; then the kernels that
// compute one set's rows against the whole kernels, bit for bit: SpMM at
// every fixed width and a run-time one, weighted or not, sum and mean; CSR
// dropout; the CSR product both ways. The rows outside the set must be +0.0
// to the bit, sources (or rows of b) the caller promises are zero must be
// left out (they are given nonzero values here, so a kernel that reads them
// fails), and the thread count must change no bit. Outputs start as NaN
// sentinels, so a row a kernel forgets shows.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "CsrBuffer.h"
#include "CsrProducts.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;

namespace {

//===----------------------------------------------------------------------===//
// Row sets
//===----------------------------------------------------------------------===//

/// The sets by their definition: level k + 1 for every source of an edge
/// into a row of level k not yet reached, one level at a time over the edge
/// list; the order by a stable sort of the ids by level.
RowSets referenceRows(const ref::Graph &g, const std::vector<uint8_t> &mask,
                      int64_t hops) {
  const int64_t n = g.nodes;
  std::vector<int32_t> level(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    level[i] = mask[i] ? 0 : static_cast<int32_t>(hops + 1);
  for (int64_t k = 0; k < hops; ++k)
    for (int64_t e = 0; e < g.numEdges(); ++e)
      if (level[g.dst[e]] == k && level[g.src[e]] == hops + 1)
        level[g.src[e]] = static_cast<int32_t>(k + 1);
  std::vector<int32_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return level[a] < level[b]; });
  RowSets sets;
  sets.nodes = n;
  sets.hops = hops;
  for (int64_t k = 0; k <= hops; ++k)
    sets.buffer.push_back(static_cast<int32_t>(std::count_if(
        level.begin(), level.end(), [&](int32_t l) { return l <= k; })));
  sets.buffer.insert(sets.buffer.end(), order.begin(), order.end());
  // The levels a byte each, four to an int32, the first in the lowest
  // byte; the bytes after the last level zero.
  for (int64_t i = 0; i < n; i += 4) {
    uint32_t word = 0;
    for (int64_t b = 0; b < 4 && i + b < n; ++b)
      word |= static_cast<uint32_t>(level[i + b]) << (8 * b);
    sets.buffer.push_back(static_cast<int32_t>(word));
  }
  return sets;
}

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

// 8 nodes, mask {0, 5}. Into 0: from 1, 2 and 6 (6's edge has the largest
// id, so toCsr lists it first and the search finds level 1 out of id
// order); into 5: from 6; into 1: from 3 (twice); into 2: from 4 and from
// 0 (already level 0); into 3: from 7 and itself. 0 -> 7 points away from
// the mask: 7 is reached only through 3, at level 3. Node 4 has no
// in-edges.
const ref::Graph kHandGraph = edgeList(8, {{1, 0},
                                           {2, 0},
                                           {6, 5},
                                           {3, 1},
                                           {3, 1},
                                           {4, 2},
                                           {0, 2},
                                           {0, 7},
                                           {7, 3},
                                           {3, 3},
                                           {6, 0}});
const std::vector<uint8_t> kHandMask = {1, 0, 0, 0, 0, 1, 0, 0};

TEST(ReceptiveRows, HandMadeGraph) {
  const CsrGraph csr = toCsr(kHandGraph);
  const gnnrt_graph g = csr.view();
  struct Expected {
    int64_t hops;
    std::vector<int32_t> counts, levels, order;
  };
  const Expected cases[] = {
      {0, {2}, {0, 1, 1, 1, 1, 0, 1, 1}, {0, 5, 1, 2, 3, 4, 6, 7}},
      {1, {2, 5}, {0, 1, 1, 2, 2, 0, 1, 2}, {0, 5, 1, 2, 6, 3, 4, 7}},
      {2, {2, 5, 7}, {0, 1, 1, 2, 2, 0, 1, 3}, {0, 5, 1, 2, 6, 3, 4, 7}},
      {3, {2, 5, 7, 8}, {0, 1, 1, 2, 2, 0, 1, 3}, {0, 5, 1, 2, 6, 3, 4, 7}},
      {5,
       {2, 5, 7, 8, 8, 8},
       {0, 1, 1, 2, 2, 0, 1, 3},
       {0, 5, 1, 2, 6, 3, 4, 7}},
  };
  for (const Expected &want : cases) {
    SCOPED_TRACE("hops " + std::to_string(want.hops));
    const RowSets sets = receptiveRows(g, kHandMask, want.hops);
    EXPECT_EQ(sets.counts(), want.counts);
    EXPECT_EQ(sets.levels(), want.levels);
    EXPECT_EQ(sets.order(), want.order);
  }
}

TEST(ReceptiveRows, MatchesABreadthFirstSearch) {
  for (int64_t n : {1, 17, 300, 2000})
    for (int percent : {1, 5, 30})
      for (bool loops : {false, true})
        for (int64_t hops : {0, 1, 2, 3, 6}) {
          SCOPED_TRACE(std::to_string(n) + " nodes, mask " +
                       std::to_string(percent) + "%, hops " +
                       std::to_string(hops) + (loops ? ", self loops" : ""));
          ref::Graph graph = ref::randomGraph(n, 5, 40 + n);
          if (loops)
            graph = withSelfLoops(graph);
          const CsrGraph csr = toCsr(graph);
          const std::vector<uint8_t> mask = randomMask(n, percent, 7 + n);
          const RowSets got = receptiveRows(csr.view(), mask, hops);
          EXPECT_EQ(got.buffer, referenceRows(graph, mask, hops).buffer);
        }
}

TEST(ReceptiveRows, EmptyMaskAndEmptyGraph) {
  const CsrGraph csr = toCsr(kHandGraph);
  const RowSets none = receptiveRows(csr.view(), std::vector<uint8_t>(8), 2);
  EXPECT_EQ(none.counts(), std::vector<int32_t>(3, 0));
  EXPECT_EQ(none.levels(), std::vector<int32_t>(8, 3));
  EXPECT_EQ(none.order(), std::vector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}));

  // No nodes: the mask may be null; the counts are all written.
  const CsrGraph empty = toCsr(ref::Graph{});
  const gnnrt_graph g = empty.view();
  std::vector<int32_t> out(3, -7);
  ASSERT_EQ(gnnrt_cpu_receptive_rows(&g, nullptr, 2, out.data()), GNNRT_OK);
  EXPECT_EQ(out, std::vector<int32_t>(3, 0));
}

TEST(ReceptiveRows, RejectsBadArguments) {
  const CsrGraph csr = toCsr(kHandGraph);
  const gnnrt_graph g = csr.view();
  std::vector<int32_t> out(gnnrt_row_sets_length(8, 2), -7);
  const std::vector<int32_t> untouched = out;
  const uint8_t *mask = kHandMask.data();
  EXPECT_EQ(gnnrt_cpu_receptive_rows(nullptr, mask, 2, out.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&g, nullptr, 2, out.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&g, mask, 2, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&g, mask, -1, out.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  // Levels up to hops + 1 must fit their byte.
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&g, mask, GNNRT_ROW_SETS_MAX_HOPS + 1,
                                     out.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  gnnrt_graph bad = g;
  bad.num_edges -= 1; // the offsets no longer end at E
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&bad, mask, 2, out.data()),
            GNNRT_ERR_BAD_GRAPH);
  bad = g;
  bad.in.src = nullptr;
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&bad, mask, 2, out.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(out, untouched);
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// \p x with the rows of level > \p level set to zero, every third one
/// -0.0.
std::vector<float> zeroRowsAbove(std::vector<float> x, const RowSets &sets,
                                 int64_t level, int64_t d) {
  for (int64_t i = 0; i < sets.nodes; ++i)
    if (sets.level(i) > level)
      std::fill(x.begin() + i * d, x.begin() + (i + 1) * d,
                i % 3 == 0 ? -0.0f : 0.0f);
  return x;
}

class RowsTest : public ::testing::Test {
protected:
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

//===----------------------------------------------------------------------===//
// gnnrt_cpu_spmm_rows
//===----------------------------------------------------------------------===//

/// A random graph with self loops and a hub: node 2 feeds mask node 4 and
/// takes an edge from every odd node, so R_1 holds a row of more than N / 2
/// slots (several of gatherSumKept's chunks), most of them from level 2.
/// More nodes than the kernels' blocks of rows to zero (4096).
struct SpmmCase {
  static constexpr int64_t kNodes = 5000, kHops = 2;
  ref::Graph graph;
  CsrGraph csr;
  std::vector<uint8_t> mask;
  RowSets sets;
  std::vector<float> weights;

  SpmmCase() {
    graph = ref::randomGraph(kNodes, 10, 3);
    for (int64_t j = 1; j < kNodes; j += 2) {
      graph.src.push_back(j);
      graph.dst.push_back(2);
    }
    graph.src.push_back(2);
    graph.dst.push_back(4);
    graph = withSelfLoops(graph);
    csr = toCsr(graph);
    mask = randomMask(kNodes, 1, 5);
    mask[4] = 1;
    mask[2] = 0;
    sets = receptiveRows(csr.view(), mask, kHops);
    weights = toF32(randomF32({graph.numEdges()}, 9));
  }
};

const SpmmCase &spmmCase() {
  static const SpmmCase c;
  return c;
}

/// gnnrt_cpu_spmm over NaN sentinels; the call must succeed.
std::vector<float> spmm(const gnnrt_graph &g, int aggr,
                        const std::vector<float> &x, int64_t d,
                        const float *w) {
  std::vector<float> y(x.size(), NAN);
  EXPECT_EQ(gnnrt_cpu_spmm(&g, aggr, x.data(), d, w, 1, y.data()), GNNRT_OK);
  return y;
}

std::vector<float> spmmRows(const gnnrt_graph &g, int aggr,
                            const std::vector<float> &x, int64_t d,
                            const float *w, const RowSets &sets, int64_t level,
                            int64_t skip) {
  std::vector<float> y(x.size(), NAN);
  EXPECT_EQ(gnnrt_cpu_spmm_rows(&g, aggr, x.data(), d, w, sets.data(),
                                sets.hops, level, skip, 1, y.data()),
            GNNRT_OK);
  return y;
}

std::string describeSpmm(int64_t d, int aggr, bool weighted, int64_t level) {
  return "width " + std::to_string(d) +
         (aggr == GNNRT_AGGR_SUM ? ", sum" : ", mean") +
         (weighted ? ", weighted" : "") + ", level " + std::to_string(level);
}

TEST_F(RowsTest, SpmmRowsHaveTheSpmmBits) {
  const SpmmCase &t = spmmCase();
  const gnnrt_graph g = t.csr.view();
  ASSERT_LT(t.sets.counts()[0], t.sets.counts()[1]);
  ASSERT_LT(t.sets.counts()[2], SpmmCase::kNodes) << "some rows outside R_2";
  gnnrt_cpu_set_num_threads(1);
  // 9 is no width of withRowWidth's: the run-time width loop.
  for (int64_t d : {4, 7, 9, 16, 64}) {
    const std::vector<float> x = toF32(randomF32({SpmmCase::kNodes, d}, d));
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
      for (bool weighted : {false, true}) {
        const float *w = weighted ? t.weights.data() : nullptr;
        const std::vector<float> want = spmm(g, aggr, x, d, w);
        for (int64_t level = 0; level <= SpmmCase::kHops; ++level) {
          SCOPED_TRACE(describeSpmm(d, aggr, weighted, level));
          // skip > hops leaves nothing out.
          for (int64_t skip : {SpmmCase::kHops + 1, int64_t(1000)})
            EXPECT_TRUE(
                rowsMatch(spmmRows(g, aggr, x, d, w, t.sets, level, skip), want,
                          t.sets, level, d));
        }
      }
  }
}

// With skip, the sources above level skip are left out: the kernel is given
// nonzero values there and must give the bits of gnnrt_cpu_spmm on x with
// those rows zeroed (some to -0.0).
TEST_F(RowsTest, SpmmRowsLeaveOutSourcesAboveSkip) {
  const SpmmCase &t = spmmCase();
  const gnnrt_graph g = t.csr.view();
  gnnrt_cpu_set_num_threads(1);
  for (int64_t d : {4, 9, 16, 64}) {
    const std::vector<float> x =
        toF32(randomF32({SpmmCase::kNodes, d}, 100 + d));
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
      for (bool weighted : {false, true})
        for (int64_t skip = 0; skip <= SpmmCase::kHops; ++skip) {
          const float *w = weighted ? t.weights.data() : nullptr;
          const std::vector<float> zeroed = zeroRowsAbove(x, t.sets, skip, d);
          const std::vector<float> want = spmm(g, aggr, zeroed, d, w);
          for (int64_t level = 0; level <= SpmmCase::kHops; ++level) {
            SCOPED_TRACE(describeSpmm(d, aggr, weighted, level) + ", skip " +
                         std::to_string(skip));
            EXPECT_TRUE(
                rowsMatch(spmmRows(g, aggr, x, d, w, t.sets, level, skip), want,
                          t.sets, level, d));
            EXPECT_TRUE(
                rowsMatch(spmmRows(g, aggr, zeroed, d, w, t.sets, level, skip),
                          want, t.sets, level, d));
          }
        }
  }
}

TEST_F(RowsTest, SpmmRowsThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(2);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  const SpmmCase &t = spmmCase();
  const gnnrt_graph g = t.csr.view();
  for (int64_t d : {16, 64, 9}) {
    const std::vector<float> x =
        toF32(randomF32({SpmmCase::kNodes, d}, 200 + d));
    for (int64_t level = 0; level <= SpmmCase::kHops; ++level)
      for (int64_t skip : {int64_t(1), SpmmCase::kHops + 1}) {
        SCOPED_TRACE(describeSpmm(d, GNNRT_AGGR_SUM, true, level) + ", skip " +
                     std::to_string(skip));
        gnnrt_cpu_set_num_threads(1);
        const std::vector<float> one = spmmRows(
            g, GNNRT_AGGR_SUM, x, d, t.weights.data(), t.sets, level, skip);
        gnnrt_cpu_set_num_threads(2);
        const std::vector<float> two = spmmRows(
            g, GNNRT_AGGR_SUM, x, d, t.weights.data(), t.sets, level, skip);
        EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * 4), 0);
        if (skip > SpmmCase::kHops) {
          EXPECT_TRUE(rowsMatch(two,
                                spmm(g, GNNRT_AGGR_SUM, x, d, t.weights.data()),
                                t.sets, level, d));
        }
      }
  }
}

TEST_F(RowsTest, SpmmRowsRejectBadArguments) {
  const CsrGraph csr = toCsr(withSelfLoops(kHandGraph));
  const gnnrt_graph g = csr.view();
  RowSets sets = receptiveRows(g, kHandMask, 2);
  const int64_t d = 4;
  const std::vector<float> x(8 * d, 1.0f), w(g.num_edges, 0.5f);
  std::vector<float> y(8 * d, NAN);
  const std::vector<uint32_t> untouched(y.size(), bitsOf(NAN));
  auto call = [&](int aggr, const float *weights, const int32_t *rowSets,
                  int64_t hops, int64_t level) {
    return gnnrt_cpu_spmm_rows(&g, aggr, x.data(), d, weights, rowSets, hops,
                               level, 3, 1, y.data());
  };
  ASSERT_EQ(call(GNNRT_AGGR_SUM, w.data(), sets.data(), 2, 2), GNNRT_OK);
  std::fill(y.begin(), y.end(), NAN);
  EXPECT_EQ(call(GNNRT_AGGR_MAX, nullptr, sets.data(), 2, 1),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(GNNRT_AGGR_MAX, w.data(), sets.data(), 2, 1),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(7, nullptr, sets.data(), 2, 1), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, nullptr, 2, 1),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, sets.data(), -1, 0),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, sets.data(), 2, -1),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, sets.data(), 2, 3),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_spmm_rows(&g, GNNRT_AGGR_SUM, nullptr, d, nullptr,
                                sets.data(), 2, 1, 3, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_spmm_rows(&g, GNNRT_AGGR_SUM, x.data(), -1, nullptr,
                                sets.data(), 2, 1, 3, 1, y.data()),
            GNNRT_ERR_BAD_SIZE);
  // A count beyond the nodes: a buffer made for another graph.
  sets.buffer[1] = 9;
  EXPECT_EQ(call(GNNRT_AGGR_SUM, nullptr, sets.data(), 2, 1),
            GNNRT_ERR_BAD_ARGUMENT);
  std::vector<uint32_t> bits(y.size());
  for (size_t e = 0; e < y.size(); ++e)
    bits[e] = bitsOf(y[e]);
  EXPECT_EQ(bits, untouched);
}

//===----------------------------------------------------------------------===//
// CSR matrices
//===----------------------------------------------------------------------===//

/// A CSR matrix buffer (CsrBuffer.h), built from a random \p rows x \p cols
/// matrix with about \p density of its elements stored, or left unbuilt
/// for an output.
struct Matrix : CsrBuffer {
  using CsrBuffer::CsrBuffer;

  static Matrix random(int64_t rows, int64_t cols, double density,
                       uint64_t seed) {
    std::vector<int32_t> indptr{0}, indices;
    std::vector<float> values;
    uint64_t state = seed;
    const uint64_t cut = static_cast<uint64_t>(density * 0x1p32);
    for (int64_t i = 0; i < rows; ++i) {
      if (i % 5 != 3) // some empty rows
        for (int64_t j = 0; j < cols; ++j)
          if ((nextRandom(state) >> 32) < cut) {
            indices.push_back(static_cast<int32_t>(j));
            values.push_back(uniform(state));
          }
      indptr.push_back(static_cast<int32_t>(indices.size()));
    }
    Matrix m(rows, cols, static_cast<int64_t>(indices.size()));
    EXPECT_EQ(gnnrt_cpu_csr_matrix_build(indptr.data(), indices.data(),
                                         values.data(), rows, cols, m.nnz,
                                         m.data()),
              GNNRT_OK);
    return m;
  }
};

Matrix csrDropout(const Matrix &x, double p, uint64_t seed) {
  Matrix y(x.rows, x.cols, x.nnz);
  EXPECT_EQ(gnnrt_cpu_csr_dropout(x.data(), x.rows, x.cols, x.nnz, seed, 2, 3,
                                  p, y.data()),
            GNNRT_OK);
  return y;
}

Matrix csrDropoutRows(const Matrix &x, double p, uint64_t seed,
                      const RowSets &sets, int64_t level) {
  Matrix y(x.rows, x.cols, x.nnz);
  EXPECT_EQ(gnnrt_cpu_csr_dropout_rows(x.data(), x.rows, x.cols, x.nnz, seed, 2,
                                       3, p, sets.data(), sets.hops, level,
                                       y.data()),
            GNNRT_OK);
  return y;
}

template <typename T> std::vector<T> section(const T *p, int64_t count) {
  return std::vector<T>(p, p + count);
}

/// \p got has the pattern of \p x, and at each slot of a row of level <=
/// \p level the value bits of \p want, elsewhere +0.0.
::testing::AssertionResult dropoutRowsMatch(const Matrix &got,
                                            const Matrix &want, const Matrix &x,
                                            const RowSets &sets,
                                            int64_t level) {
  const gnnrt_csr_matrix g = got.view(), w = want.view(), v = x.view();
  if (section(g.indptr, v.rows + 1) != section(v.indptr, v.rows + 1) ||
      section(g.indices, v.nnz) != section(v.indices, v.nnz) ||
      section(g.colptr, v.cols + 1) != section(v.colptr, v.cols + 1) ||
      section(g.rowidx, v.nnz) != section(v.rowidx, v.nnz) ||
      section(g.perm, v.nnz) != section(v.perm, v.nnz))
    return ::testing::AssertionFailure() << "the pattern is not x's";
  for (int64_t i = 0; i < v.rows; ++i)
    for (int32_t s = v.indptr[i]; s < v.indptr[i + 1]; ++s) {
      const uint32_t have = bitsOf(g.values[s]);
      const uint32_t expect = sets.level(i) <= level ? bitsOf(w.values[s]) : 0;
      if (have != expect)
        return ::testing::AssertionFailure()
               << "row " << i << " (level " << sets.level(i) << "), slot " << s
               << ": bits " << std::hex << have << ", want " << expect;
    }
  return ::testing::AssertionSuccess();
}

TEST_F(RowsTest, CsrDropoutRowsHaveTheCsrDropoutBits) {
  const int64_t rows = 600;
  const Matrix x = Matrix::random(rows, 97, 0.1, 11);
  const RowSets sets = matrixRowSets(rows, 2, 12);
  ASSERT_LT(sets.counts()[0], sets.counts()[1]);
  ASSERT_LT(sets.counts()[2], rows);
  for (int threads : {1, 2})
    for (double p : {0.0, 0.3, 0.5, std::nextafter(1.0, 0.0)})
      for (int64_t level = 0; level <= 2; ++level) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", p " +
                     std::to_string(p) + ", level " + std::to_string(level));
        gnnrt_cpu_set_num_threads(threads);
        const Matrix want = csrDropout(x, p, 77);
        EXPECT_TRUE(dropoutRowsMatch(csrDropoutRows(x, p, 77, sets, level),
                                     want, x, sets, level));
        // A dropout of a dropout: explicit zeros in the input.
        const Matrix twice = csrDropout(want, 0.5, 78);
        EXPECT_TRUE(dropoutRowsMatch(csrDropoutRows(want, 0.5, 78, sets, level),
                                     twice, want, sets, level));
      }
}

// Enough slots for the parallel loops, and more rows than the kernels'
// blocks of rows to zero (4096).
TEST_F(RowsTest, CsrDropoutRowsThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(2);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  const int64_t rows = 5000;
  const Matrix x = Matrix::random(rows, 300, 0.1, 21);
  const RowSets sets = matrixRowSets(rows, 2, 22);
  for (int64_t level = 0; level <= 2; ++level) {
    gnnrt_cpu_set_num_threads(1);
    const Matrix one = csrDropoutRows(x, 0.5, 5, sets, level);
    gnnrt_cpu_set_num_threads(2);
    const Matrix two = csrDropoutRows(x, 0.5, 5, sets, level);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.bytes()), 0)
        << "level " << level;
    EXPECT_TRUE(dropoutRowsMatch(two, csrDropout(x, 0.5, 5), x, sets, level));
  }
}

TEST_F(RowsTest, CsrDropoutRowsRejectBadArguments) {
  const Matrix x = Matrix::random(8, 10, 0.5, 31);
  Matrix y(8, 10, x.nnz);
  RowSets sets = receptiveRows(toCsr(kHandGraph).view(), kHandMask, 2);
  auto call = [&](const int32_t *rowSets, int64_t hops, int64_t level,
                  double p) {
    return gnnrt_cpu_csr_dropout_rows(x.data(), 8, 10, x.nnz, 1, 2, 3, p,
                                      rowSets, hops, level, y.data());
  };
  EXPECT_EQ(call(sets.data(), 2, 1, 1.0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(nullptr, 2, 1, 0.5), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(sets.data(), -1, 0, 0.5), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 2, 3, 0.5), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 2, -1, 0.5), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_csr_dropout_rows(x.data(), 8, 10, x.nnz - 1, 1, 2, 3, 0.5,
                                       sets.data(), 2, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT); // offsets that do not span nnz
  EXPECT_EQ(gnnrt_cpu_csr_dropout_rows(nullptr, 8, 10, x.nnz, 1, 2, 3, 0.5,
                                       sets.data(), 2, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  sets.buffer[2] = 9; // |R_2| beyond the 8 rows
  EXPECT_EQ(call(sets.data(), 2, 2, 0.5), GNNRT_ERR_BAD_ARGUMENT);
  const Matrix fresh(8, 10, x.nnz);
  EXPECT_EQ(std::memcmp(y.data(), fresh.data(), y.bytes()), 0);
}

/// A feature matrix as the products see it: plain, and after a dropout at
/// p = 0.5 (half its stored values +0.0, which widths from 32 skip).
struct MatmulCase {
  static constexpr int64_t kRows = 700, kCols = 120, kHops = 2;
  Matrix plain = Matrix::random(kRows, kCols, 0.15, 41);
  Matrix dropped = csrDropout(plain, 0.5, 42);
  RowSets sets = matrixRowSets(kRows, kHops, 43);
};

const MatmulCase &matmulCase() {
  static const MatmulCase c;
  return c;
}

/// `fn(a, n, level)` for both matrices of \p t, widths 64, 16 and 9 and
/// every level, with 1 and 2 threads (set before the call).
template <typename Fn> void forEachProduct(const MatmulCase &t, Fn fn) {
  for (int threads : {1, 2})
    for (const Matrix *a : {&t.plain, &t.dropped})
      for (int64_t n : {64, 16, 9})
        for (int64_t level = 0; level <= MatmulCase::kHops; ++level) {
          SCOPED_TRACE("threads " + std::to_string(threads) +
                       (a == &t.plain ? ", plain" : ", dropped") + ", n " +
                       std::to_string(n) + ", level " + std::to_string(level));
          gnnrt_cpu_set_num_threads(threads);
          fn(*a, n, level);
        }
}

TEST_F(RowsTest, CsrMatmulRowsHaveTheCsrMatmulBits) {
  const MatmulCase &t = matmulCase();
  ASSERT_LT(t.sets.counts()[2], MatmulCase::kRows);
  forEachProduct(t, [&](const Matrix &a, int64_t n, int64_t level) {
    const std::vector<float> b = randomDense(a.cols * n, 50 + n);
    EXPECT_TRUE(rowsMatch(csrMatmulRows(a, false, b, n, t.sets, level),
                          csrMatmul(a, false, b, n), t.sets, level, n));
  });
}

// With zero_rest = 0 the rows outside the set keep what they held.
TEST_F(RowsTest, CsrMatmulRowsWithoutZeroRestLeaveTheOtherRows) {
  const MatmulCase &t = matmulCase();
  const int64_t n = 16, level = 1;
  const std::vector<float> b = randomDense(t.plain.cols * n, 51);
  const std::vector<float> full = csrMatmul(t.plain, false, b, n);
  std::vector<float> c(static_cast<size_t>(MatmulCase::kRows * n), -7.0f);
  ASSERT_EQ(gnnrt_cpu_csr_matmul_rows(t.plain.data(), t.plain.rows,
                                      t.plain.cols, t.plain.nnz, 0, b.data(), n,
                                      t.sets.data(), MatmulCase::kHops, level,
                                      0, c.data()),
            GNNRT_OK);
  for (int64_t i = 0; i < MatmulCase::kRows; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const float want = t.sets.level(i) <= level ? full[i * n + k] : -7.0f;
      ASSERT_EQ(bitsOf(c[i * n + k]), bitsOf(want)) << "row " << i;
    }
}

// A^T b sums over the rows of R_level only: the kernel gets b with nonzero
// rows outside the set and must give the bits of the whole product with
// those rows zeroed.
TEST_F(RowsTest, TransposedCsrMatmulRowsLeaveOutRowsOutsideTheSet) {
  const MatmulCase &t = matmulCase();
  forEachProduct(t, [&](const Matrix &a, int64_t n, int64_t level) {
    const std::vector<float> b = randomDense(a.rows * n, 60 + n);
    const std::vector<float> zeroed = zeroRowsAbove(b, t.sets, level, n);
    const std::vector<float> want = csrMatmul(a, true, zeroed, n);
    const std::vector<float> got = csrMatmulRows(a, true, b, n, t.sets, level);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
    const std::vector<float> gotZeroed =
        csrMatmulRows(a, true, zeroed, n, t.sets, level);
    EXPECT_EQ(std::memcmp(gotZeroed.data(), want.data(), got.size() * 4), 0);
  });
}

// Zero values may be skipped only where b is finite: an infinity in a row
// of b that a +0.0 slot reads must give gnnrt_cpu_csr_matmul's NaN.
TEST_F(RowsTest, CsrMatmulRowsSkipZerosOnlyWhenThatIsExact) {
  const MatmulCase &t = matmulCase();
  gnnrt_cpu_set_num_threads(1);
  const gnnrt_csr_matrix v = t.dropped.view();
  // A slot holding +0.0 in a row of R_0.
  int64_t row = -1, slot = -1;
  for (int64_t k = 0; k < t.sets.counts()[0] && slot < 0; ++k) {
    const int64_t i = t.sets.order()[k];
    for (int32_t s = v.indptr[i]; s < v.indptr[i + 1] && slot < 0; ++s)
      if (v.values[s] == 0.0f) {
        row = i;
        slot = s;
      }
  }
  ASSERT_GE(slot, 0) << "no zero value in R_0";
  const int64_t n = 64;
  for (bool transpose : {false, true}) {
    SCOPED_TRACE(transpose ? "A^T b" : "A b");
    std::vector<float> b =
        randomDense((transpose ? t.dropped.rows : t.dropped.cols) * n, 70);
    if (transpose)
      b = zeroRowsAbove(b, t.sets, 0, n);
    b[(transpose ? row : v.indices[slot]) * n + 5] =
        std::numeric_limits<float>::infinity();
    const std::vector<float> want = csrMatmul(t.dropped, transpose, b, n);
    const int64_t out = transpose ? v.indices[slot] : row;
    ASSERT_TRUE(std::isnan(want[out * n + 5]));
    const std::vector<float> got =
        csrMatmulRows(t.dropped, transpose, b, n, t.sets, 0);
    if (transpose)
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * 4), 0);
    else
      EXPECT_TRUE(rowsMatch(got, want, t.sets, 0, n));
  }
}

TEST_F(RowsTest, CsrMatmulRowsRejectBadArguments) {
  const Matrix a = Matrix::random(8, 10, 0.5, 51);
  RowSets sets = receptiveRows(toCsr(kHandGraph).view(), kHandMask, 2);
  const int64_t n = 4;
  const std::vector<float> b(10 * n, 1.0f);
  std::vector<float> c(8 * n, NAN);
  auto call = [&](const int32_t *rowSets, int64_t hops, int64_t level) {
    return gnnrt_cpu_csr_matmul_rows(a.data(), 8, 10, a.nnz, 0, b.data(), n,
                                     rowSets, hops, level, 1, c.data());
  };
  EXPECT_EQ(call(nullptr, 2, 1), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(call(sets.data(), -1, 0), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 2, 3), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(call(sets.data(), 2, -1), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_csr_matmul_rows(a.data(), 8, 10, a.nnz, 0, nullptr, n,
                                      sets.data(), 2, 1, 1, c.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_csr_matmul_rows(a.data(), 8, 10, a.nnz, 0, b.data(), -1,
                                      sets.data(), 2, 1, 1, c.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_csr_matmul_rows(a.data(), 8, 10, a.nnz - 1, 0, b.data(),
                                      n, sets.data(), 2, 1, 1, c.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  sets.buffer[0] = -1;
  EXPECT_EQ(call(sets.data(), 2, 0), GNNRT_ERR_BAD_ARGUMENT);
  for (float e : c)
    EXPECT_TRUE(std::isnan(e));
}

} // namespace
