//===- EdgeRowsTest.cpp - The edge kernels at the receptive rows ----------===//
//
// gnnrt_cpu_sddmm_rows, _edge_add_rows, _edge_softmax_rows,
// _edge_softmax_grad_rows, _scatter_rows and _spmm_heads_rows against their
// whole kernels, bit for bit, at every level of a graph's row sets: the
// graph has rows with no slots, edge ids in random order and slots in
// random order within each row, so a kernel that confuses slots with edge
// ids, or edges into the set with edges out of it, fails. Outputs start as
// NaN sentinels: with zero_rest the rest must be +0.0 to the bit, without it
// the sentinels must still be there. The soft-max and its gradient also run
// in place; scatter and the multi-head SpMM leave out the slots whose other
// end is above `skip` (given nonzero values here, so a kernel that reads
// them fails); the thread count must change no bit; bad arguments are
// rejected with the output untouched.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"
#include "FloatBits.h"
#include "RowSetsUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace gnnrt::cpu::test;
using gnnrt::cpu::bitsOf;
using gnnrt::cpu::fromBits;

namespace {

/// A random graph (in-degrees 0 to 12, so some rows have no slots), both
/// views with the slots of each row shuffled, and its row sets for a mask
/// of about 2% of the nodes plus one row with no slots.
struct EdgeCase : EdgeSetsCase {
  EdgeCase(int64_t nodes, int64_t maxDegree, uint64_t seed) {
    graph = ref::randomGraph(nodes, maxDegree, seed, /*allowIsolated=*/true);
    csr = toCsr(graph);
    uint64_t state = seed * 7 + 1;
    shuffleSlots(csr.inPtr, csr.inSrc, csr.inId, state);
    shuffleSlots(csr.outPtr, csr.outSrc, csr.outId, state);
    const gnnrt_graph g = csr.view();
    EXPECT_EQ(gnnrt_graph_check(&g), GNNRT_OK);
    std::vector<uint8_t> mask = randomMask(nodes, 2, seed + 3);
    for (int64_t i = 0; i < nodes; ++i)
      if (csr.inPtr[i] == csr.inPtr[i + 1]) {
        mask[i] = 1; // a computed row with no slots
        break;
      }
    sets = receptiveRows(g, mask, kHops);
  }

private:
  /// Fisher-Yates within each row, moving each slot's other end and edge id
  /// together.
  static void shuffleSlots(const std::vector<int32_t> &ptr,
                           std::vector<int32_t> &other,
                           std::vector<int32_t> &id, uint64_t &state) {
    for (size_t i = 0; i + 1 < ptr.size(); ++i)
      for (int64_t s = ptr[i + 1] - 1; s > ptr[i]; --s) {
        const int64_t pick =
            ptr[i] +
            static_cast<int64_t>(nextRandom(state) %
                                 static_cast<uint64_t>(s - ptr[i] + 1));
        std::swap(other[s], other[pick]);
        std::swap(id[s], id[pick]);
      }
  }
};

/// Some hundreds of nodes, for the bit comparisons.
const EdgeCase &smallCase() {
  static const EdgeCase c(600, 12, 11);
  return c;
}

/// Enough slots for the kernels to start a thread team (Common.h's grain).
const EdgeCase &largeCase() {
  static const EdgeCase c(4000, 24, 12);
  return c;
}

/// Head counts and features per head: one head, GAT's 8 features per head
/// (headsRow's fixed width), and a width no fast path takes.
const std::pair<int64_t, int64_t> kShapes[] = {{1, 5}, {4, 3}, {2, 8}};

std::string describe(int64_t heads, int64_t f, int64_t level, int zeroRest) {
  return std::to_string(heads) + " heads x " + std::to_string(f) + ", level " +
         std::to_string(level) + (zeroRest ? ", zero_rest" : ", rest kept");
}

/// Rows of \p width elements, \p rows of them, \p computed(r) telling which
/// the kernel writes: those have the bits of \p want; the others those of
/// +0.0 with \p zeroRest, else of \p before (what the output held).
::testing::AssertionResult
rowsAre(const std::vector<float> &got, const std::vector<float> &want,
        const std::vector<float> &before, int64_t rows, int64_t width,
        int zeroRest, const std::function<bool(int64_t)> &computed) {
  if (got.size() != static_cast<size_t>(rows * width) ||
      want.size() != got.size() || before.size() != got.size())
    return ::testing::AssertionFailure() << "sizes differ";
  for (int64_t r = 0; r < rows; ++r) {
    const bool written = computed(r);
    for (int64_t c = 0; c < width; ++c) {
      const int64_t at = r * width + c;
      const uint32_t g = bitsOf(got[at]);
      const uint32_t w = written    ? bitsOf(want[at])
                         : zeroRest ? 0u
                                    : bitsOf(before[at]);
      if (g != w)
        return ::testing::AssertionFailure()
               << "row " << r << (written ? " (computed)" : " (rest)")
               << ", column " << c << ": bits " << std::hex << g << ", want "
               << w;
    }
  }
  return ::testing::AssertionSuccess();
}

/// Edge rows: those of edges into R_level computed.
::testing::AssertionResult edgesAre(const std::vector<float> &got,
                                    const std::vector<float> &want,
                                    const std::vector<float> &before,
                                    const EdgeCase &t, int64_t level,
                                    int64_t width, int zeroRest) {
  return rowsAre(got, want, before, t.edges(), width, zeroRest,
                 [&](int64_t e) { return t.edgeComputed(e, level); });
}

/// Node rows: those of R_level computed.
::testing::AssertionResult nodesAre(const std::vector<float> &got,
                                    const std::vector<float> &want,
                                    const std::vector<float> &before,
                                    const EdgeCase &t, int64_t level,
                                    int64_t width, int zeroRest) {
  return rowsAre(got, want, before, t.nodes(), width, zeroRest,
                 [&](int64_t i) { return t.sets.level(i) <= level; });
}

/// A `_rows` kernel writing into \p out at \p level.
using RowsCall = std::function<int(float *out, int64_t level, int zeroRest)>;

/// Runs \p call at every level, with and without zero_rest, into sentinels,
/// and checks the result against the whole kernel's \p want.
void checkEveryLevel(const EdgeCase &t, bool edgeRows, int64_t heads, int64_t f,
                     int64_t width, const std::vector<float> &want,
                     const RowsCall &call) {
  const std::vector<float> sentinels(want.size(), kSentinel);
  for (int64_t level = 0; level <= EdgeCase::kHops; ++level)
    for (int zeroRest : {1, 0}) {
      SCOPED_TRACE(describe(heads, f, level, zeroRest));
      std::vector<float> out = sentinels;
      ASSERT_EQ(call(out.data(), level, zeroRest), GNNRT_OK);
      EXPECT_TRUE(
          edgeRows ? edgesAre(out, want, sentinels, t, level, width, zeroRest)
                   : nodesAre(out, want, sentinels, t, level, width, zeroRest));
    }
}

class EdgeRowsTest : public ::testing::Test {
protected:
  void SetUp() override {
    gnnrt_cpu_set_num_threads(1);
    const RowSets &sets = smallCase().sets;
    const std::vector<int32_t> counts = sets.counts();
    // Every level computes some rows and leaves out some.
    ASSERT_GT(counts[0], 0);
    ASSERT_LT(counts[0], counts[1]);
    ASSERT_LT(counts[1], counts[2]);
    ASSERT_LT(counts[2], smallCase().nodes());
  }
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

//===----------------------------------------------------------------------===//
// The whole kernels, into sentinels (the calls must succeed)
//===----------------------------------------------------------------------===//

std::vector<float> sddmm(const gnnrt_graph &g, const std::vector<float> &lhs,
                         const std::vector<float> &rhs, int64_t d,
                         int64_t heads) {
  std::vector<float> y(static_cast<size_t>(g.num_edges * heads), kSentinel);
  EXPECT_EQ(gnnrt_cpu_sddmm(&g, lhs.data(), rhs.data(), d, heads, y.data()),
            GNNRT_OK);
  return y;
}

std::vector<float> edgeAdd(const gnnrt_graph &g, const std::vector<float> &a,
                           const std::vector<float> &b, int64_t d) {
  std::vector<float> y(static_cast<size_t>(g.num_edges * d), kSentinel);
  EXPECT_EQ(gnnrt_cpu_edge_add(&g, a.data(), b.data(), d, y.data()), GNNRT_OK);
  return y;
}

std::vector<float> softmax(const gnnrt_graph &g, const std::vector<float> &x,
                           int64_t heads) {
  std::vector<float> y(x.size(), kSentinel);
  EXPECT_EQ(gnnrt_cpu_edge_softmax(&g, x.data(), heads, y.data()), GNNRT_OK);
  return y;
}

std::vector<float> softmaxGrad(const gnnrt_graph &g,
                               const std::vector<float> &y,
                               const std::vector<float> &dy, int64_t heads) {
  std::vector<float> dx(y.size(), kSentinel);
  EXPECT_EQ(
      gnnrt_cpu_edge_softmax_grad(&g, y.data(), dy.data(), heads, dx.data()),
      GNNRT_OK);
  return dx;
}

std::vector<float> scatter(const gnnrt_graph &g, int end,
                           const std::vector<float> &x, int64_t d) {
  std::vector<float> y(static_cast<size_t>(g.num_nodes * d), kSentinel);
  EXPECT_EQ(gnnrt_cpu_scatter(&g, end, x.data(), d, y.data()), GNNRT_OK);
  return y;
}

std::vector<float> spmmHeads(const gnnrt_graph &g, int aggr,
                             const std::vector<float> &x, int64_t d,
                             const std::vector<float> &w, int64_t heads) {
  std::vector<float> y(x.size(), kSentinel);
  EXPECT_EQ(gnnrt_cpu_spmm(&g, aggr, x.data(), d, w.data(), heads, y.data()),
            GNNRT_OK);
  return y;
}

/// The inputs of one shape: node features, edge scores and weights.
struct Inputs {
  std::vector<float> a, b, scores, dy, weights;

  Inputs(const EdgeCase &t, int64_t heads, int64_t d, uint64_t seed)
      : a(randomDense(t.nodes() * d, seed)),
        b(randomDense(t.nodes() * d, seed + 1)),
        scores(randomDense(t.edges() * heads, seed + 2)),
        dy(randomDense(t.edges() * heads, seed + 3)),
        weights(randomDense(t.edges() * heads, seed + 4)) {
    // Scores of a few units, so that exp() differs widely within a row.
    for (float &s : scores)
      s *= 4;
  }
};

//===----------------------------------------------------------------------===//
// The edge-output kernels
//===----------------------------------------------------------------------===//

TEST_F(EdgeRowsTest, SddmmRowsHaveTheSddmmBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const Inputs in(t, heads, d, 10 * d);
    const std::vector<float> want = sddmm(g, in.a, in.b, d, heads);
    checkEveryLevel(t, true, heads, f, heads, want,
                    [&](float *out, int64_t level, int zeroRest) {
                      return gnnrt_cpu_sddmm_rows(
                          &g, in.a.data(), in.b.data(), d, heads, t.sets.data(),
                          EdgeCase::kHops, level, zeroRest, out);
                    });
  }
}

TEST_F(EdgeRowsTest, EdgeAddRowsHaveTheEdgeAddBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const Inputs in(t, heads, d, 20 * d);
    const std::vector<float> want = edgeAdd(g, in.a, in.b, d);
    checkEveryLevel(t, true, heads, f, d, want,
                    [&](float *out, int64_t level, int zeroRest) {
                      return gnnrt_cpu_edge_add_rows(
                          &g, in.a.data(), in.b.data(), d, t.sets.data(),
                          EdgeCase::kHops, level, zeroRest, out);
                    });
  }
}

TEST_F(EdgeRowsTest, EdgeSoftmaxRowsHaveTheSoftmaxBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const Inputs in(t, heads, heads * f, 30 * heads);
    const std::vector<float> want = softmax(g, in.scores, heads);
    checkEveryLevel(t, true, heads, f, heads, want,
                    [&](float *out, int64_t level, int zeroRest) {
                      return gnnrt_cpu_edge_softmax_rows(
                          &g, in.scores.data(), heads, t.sets.data(),
                          EdgeCase::kHops, level, zeroRest, out);
                    });
    // In place: the rest is the input itself when it is kept.
    for (int64_t level = 0; level <= EdgeCase::kHops; ++level)
      for (int zeroRest : {1, 0}) {
        SCOPED_TRACE(describe(heads, f, level, zeroRest) + ", in place");
        std::vector<float> y = in.scores;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_rows(&g, y.data(), heads,
                                              t.sets.data(), EdgeCase::kHops,
                                              level, zeroRest, y.data()),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(y, want, in.scores, t, level, heads, zeroRest));
      }
  }
}

TEST_F(EdgeRowsTest, EdgeSoftmaxGradRowsHaveTheGradBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const Inputs in(t, heads, heads * f, 40 * heads);
    const std::vector<float> y = softmax(g, in.scores, heads);
    const std::vector<float> want = softmaxGrad(g, y, in.dy, heads);
    checkEveryLevel(t, true, heads, f, heads, want,
                    [&](float *out, int64_t level, int zeroRest) {
                      return gnnrt_cpu_edge_softmax_grad_rows(
                          &g, y.data(), in.dy.data(), heads, t.sets.data(),
                          EdgeCase::kHops, level, zeroRest, out);
                    });
    for (int64_t level = 0; level <= EdgeCase::kHops; ++level)
      for (int zeroRest : {1, 0}) {
        SCOPED_TRACE(describe(heads, f, level, zeroRest));
        // dx == dy.
        std::vector<float> dx = in.dy;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_rows(
                      &g, y.data(), dx.data(), heads, t.sets.data(),
                      EdgeCase::kHops, level, zeroRest, dx.data()),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(dx, want, in.dy, t, level, heads, zeroRest))
            << "dx == dy";
        // dx == y.
        dx = y;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_rows(
                      &g, dx.data(), in.dy.data(), heads, t.sets.data(),
                      EdgeCase::kHops, level, zeroRest, dx.data()),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(dx, want, y, t, level, heads, zeroRest))
            << "dx == y";
      }
  }
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

/// \p x (`[E, d]`) with the rows of the edges whose other end (the source
/// summing at destinations, the destination summing at sources) has a level
/// above \p skip set to zero, every third one -0.0.
std::vector<float> zeroEdgesAbove(std::vector<float> x, const EdgeCase &t,
                                  int end, int64_t skip, int64_t d) {
  for (int64_t e = 0; e < t.edges(); ++e) {
    const int64_t other =
        end == GNNRT_END_DST ? t.graph.src[e] : t.graph.dst[e];
    if (t.sets.level(other) > skip)
      std::fill(x.begin() + e * d, x.begin() + (e + 1) * d,
                e % 3 == 0 ? -0.0f : 0.0f);
  }
  return x;
}

/// \p x (`[N, d]`) with the rows above \p skip set to zero, every third one
/// -0.0.
std::vector<float> zeroNodesAbove(std::vector<float> x, const EdgeCase &t,
                                  int64_t skip, int64_t d) {
  for (int64_t i = 0; i < t.nodes(); ++i)
    if (t.sets.level(i) > skip)
      std::fill(x.begin() + i * d, x.begin() + (i + 1) * d,
                i % 3 == 0 ? -0.0f : 0.0f);
  return x;
}

const char *endName(int end) { return end == GNNRT_END_DST ? "dst" : "src"; }

TEST_F(EdgeRowsTest, ScatterRowsHaveTheScatterBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const std::vector<float> x = randomDense(t.edges() * d, 50 * d);
    for (int end : {GNNRT_END_DST, GNNRT_END_SRC}) {
      SCOPED_TRACE(endName(end));
      const std::vector<float> want = scatter(g, end, x, d);
      // skip > hops leaves nothing out.
      for (int64_t skip : {EdgeCase::kHops + 1, int64_t(1000)})
        checkEveryLevel(t, false, heads, f, d, want,
                        [&](float *out, int64_t level, int zeroRest) {
                          return gnnrt_cpu_scatter_rows(
                              &g, end, x.data(), d, t.sets.data(),
                              EdgeCase::kHops, level, skip, zeroRest, out);
                        });
    }
  }
}

// With skip, the slots whose other end is above level skip are left out:
// the kernel is given nonzero values there and must give the bits of
// gnnrt_cpu_scatter on x with those edge rows zeroed (some to -0.0). A
// negative skip leaves out every slot.
TEST_F(EdgeRowsTest, ScatterRowsLeaveOutSlotsAboveSkip) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const std::vector<float> x = randomDense(t.edges() * d, 60 * d);
    for (int end : {GNNRT_END_DST, GNNRT_END_SRC})
      for (int64_t skip = -1; skip <= EdgeCase::kHops; ++skip) {
        SCOPED_TRACE(std::string(endName(end)) + ", skip " +
                     std::to_string(skip));
        const std::vector<float> zeroed = zeroEdgesAbove(x, t, end, skip, d);
        const std::vector<float> want = scatter(g, end, zeroed, d);
        for (const std::vector<float> *input : {&x, &zeroed})
          checkEveryLevel(t, false, heads, f, d, want,
                          [&](float *out, int64_t level, int zeroRest) {
                            return gnnrt_cpu_scatter_rows(
                                &g, end, input->data(), d, t.sets.data(),
                                EdgeCase::kHops, level, skip, zeroRest, out);
                          });
      }
  }
}

//===----------------------------------------------------------------------===//
// Multi-head SpMM
//===----------------------------------------------------------------------===//

TEST_F(EdgeRowsTest, SpmmHeadsRowsHaveTheSpmmBits) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const Inputs in(t, heads, d, 70 * d);
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN}) {
      SCOPED_TRACE(aggr == GNNRT_AGGR_SUM ? "sum" : "mean");
      const std::vector<float> want =
          spmmHeads(g, aggr, in.a, d, in.weights, heads);
      for (int64_t skip : {EdgeCase::kHops + 1, int64_t(1000)})
        checkEveryLevel(t, false, heads, f, d, want,
                        [&](float *out, int64_t level, int zeroRest) {
                          return gnnrt_cpu_spmm_heads_rows(
                              &g, aggr, in.a.data(), d, in.weights.data(),
                              heads, t.sets.data(), EdgeCase::kHops, level,
                              skip, zeroRest, out);
                        });
    }
  }
}

TEST_F(EdgeRowsTest, SpmmHeadsRowsLeaveOutSourcesAboveSkip) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const int64_t d = heads * f;
    const Inputs in(t, heads, d, 80 * d);
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN})
      for (int64_t skip = -1; skip <= EdgeCase::kHops; ++skip) {
        SCOPED_TRACE(std::string(aggr == GNNRT_AGGR_SUM ? "sum" : "mean") +
                     ", skip " + std::to_string(skip));
        const std::vector<float> zeroed = zeroNodesAbove(in.a, t, skip, d);
        const std::vector<float> want =
            spmmHeads(g, aggr, zeroed, d, in.weights, heads);
        for (const std::vector<float> *input : {&in.a, &zeroed})
          checkEveryLevel(t, false, heads, f, d, want,
                          [&](float *out, int64_t level, int zeroRest) {
                            return gnnrt_cpu_spmm_heads_rows(
                                &g, aggr, input->data(), d, in.weights.data(),
                                heads, t.sets.data(), EdgeCase::kHops, level,
                                skip, zeroRest, out);
                          });
      }
  }
}

//===----------------------------------------------------------------------===//
// Threads and arguments
//===----------------------------------------------------------------------===//

// On a graph with enough slots for thread teams, every kernel gives the same
// bits on 1, 2 and 3 threads, and the whole kernel's.
TEST_F(EdgeRowsTest, ThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(2);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  const EdgeCase &t = largeCase();
  const gnnrt_graph g = t.view();
  ASSERT_LT(t.sets.counts()[2], t.nodes());
  const int64_t heads = 4, f = 3, d = heads * f;
  const Inputs in(t, heads, d, 90);
  gnnrt_cpu_set_num_threads(1);
  const std::vector<float> y = softmax(g, in.scores, heads);
  const std::vector<float> x = randomDense(t.edges() * d, 91);
  struct Kernel {
    const char *name;
    bool edgeRows;
    int64_t width;
    std::vector<float> want;
    RowsCall call;
  };
  const int64_t hops = EdgeCase::kHops, skip = hops + 1;
  const int32_t *sets = t.sets.data();
  const Kernel kernels[] = {
      {"sddmm", true, heads, sddmm(g, in.a, in.b, d, heads),
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_sddmm_rows(&g, in.a.data(), in.b.data(), d, heads,
                                     sets, hops, level, zeroRest, out);
       }},
      {"edge_add", true, d, edgeAdd(g, in.a, in.b, d),
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_edge_add_rows(&g, in.a.data(), in.b.data(), d, sets,
                                        hops, level, zeroRest, out);
       }},
      {"edge_softmax", true, heads, y,
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_edge_softmax_rows(&g, in.scores.data(), heads, sets,
                                            hops, level, zeroRest, out);
       }},
      {"edge_softmax_grad", true, heads, softmaxGrad(g, y, in.dy, heads),
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_edge_softmax_grad_rows(&g, y.data(), in.dy.data(),
                                                 heads, sets, hops, level,
                                                 zeroRest, out);
       }},
      {"scatter", false, d, scatter(g, GNNRT_END_SRC, x, d),
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_scatter_rows(&g, GNNRT_END_SRC, x.data(), d, sets,
                                       hops, level, skip, zeroRest, out);
       }},
      {"spmm_heads", false, d,
       spmmHeads(g, GNNRT_AGGR_MEAN, in.a, d, in.weights, heads),
       [&](float *out, int64_t level, int zeroRest) {
         return gnnrt_cpu_spmm_heads_rows(&g, GNNRT_AGGR_MEAN, in.a.data(), d,
                                          in.weights.data(), heads, sets, hops,
                                          level, skip, zeroRest, out);
       }},
  };
  for (const Kernel &k : kernels)
    for (int64_t level = 0; level <= hops; ++level)
      for (int zeroRest : {1, 0}) {
        SCOPED_TRACE(std::string(k.name) + ", " +
                     describe(heads, f, level, zeroRest));
        const std::vector<float> sentinels(k.want.size(), kSentinel);
        std::vector<std::vector<float>> outs;
        for (int threads : {1, 2, 3}) {
          gnnrt_cpu_set_num_threads(threads);
          outs.push_back(sentinels);
          ASSERT_EQ(k.call(outs.back().data(), level, zeroRest), GNNRT_OK);
        }
        for (size_t r = 1; r < outs.size(); ++r)
          EXPECT_EQ(std::memcmp(outs[0].data(), outs[r].data(),
                                outs[0].size() * sizeof(float)),
                    0)
              << r + 1 << " threads";
        EXPECT_TRUE(k.edgeRows ? edgesAre(outs.back(), k.want, sentinels, t,
                                          level, k.width, zeroRest)
                               : nodesAre(outs.back(), k.want, sentinels, t,
                                          level, k.width, zeroRest));
      }
}

TEST_F(EdgeRowsTest, RejectBadArguments) {
  const EdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  const int64_t heads = 4, d = 12, hops = EdgeCase::kHops;
  const Inputs in(t, heads, d, 100);
  const std::vector<float> x = randomDense(t.edges() * d, 101);
  std::vector<int32_t> sets = t.sets.buffer;
  std::vector<float> edgeOut(static_cast<size_t>(t.edges() * d), kSentinel);
  std::vector<float> nodeOut(static_cast<size_t>(t.nodes() * d), kSentinel);
  // Every kernel with the row-set arguments given.
  using Call = std::function<int(const gnnrt_graph *, const int32_t *rowSets,
                                 int64_t hops, int64_t level)>;
  const std::pair<const char *, Call> calls[] = {
      {"sddmm",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_sddmm_rows(gr, in.a.data(), in.b.data(), d, heads, rs,
                                     h, l, 1, edgeOut.data());
       }},
      {"edge_add",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_edge_add_rows(gr, in.a.data(), in.b.data(), d, rs, h,
                                        l, 1, edgeOut.data());
       }},
      {"edge_softmax",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_edge_softmax_rows(gr, in.scores.data(), heads, rs, h,
                                            l, 1, edgeOut.data());
       }},
      {"edge_softmax_grad",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_edge_softmax_grad_rows(gr, in.scores.data(),
                                                 in.dy.data(), heads, rs, h, l,
                                                 1, edgeOut.data());
       }},
      {"scatter",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_scatter_rows(gr, GNNRT_END_SRC, x.data(), d, rs, h, l,
                                       1, 1, nodeOut.data());
       }},
      {"spmm_heads",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l) {
         return gnnrt_cpu_spmm_heads_rows(gr, GNNRT_AGGR_SUM, in.a.data(), d,
                                          in.weights.data(), heads, rs, h, l, 1,
                                          1, nodeOut.data());
       }},
  };
  for (const auto &[name, call] : calls) {
    SCOPED_TRACE(name);
    ASSERT_EQ(call(&g, sets.data(), hops, hops), GNNRT_OK);
    std::fill(edgeOut.begin(), edgeOut.end(), kSentinel);
    std::fill(nodeOut.begin(), nodeOut.end(), kSentinel);
    EXPECT_EQ(call(&g, nullptr, hops, 1), GNNRT_ERR_NULL_POINTER);
    EXPECT_EQ(call(&g, sets.data(), hops, hops + 1), GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(&g, sets.data(), hops, -1), GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(&g, sets.data(), -1, 0), GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(&g, sets.data(), GNNRT_ROW_SETS_MAX_HOPS + 1, 1),
              GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(nullptr, sets.data(), hops, 1), GNNRT_ERR_NULL_POINTER);
    gnnrt_graph bad = g;
    bad.num_edges -= 1; // the offsets no longer end at E
    EXPECT_EQ(call(&bad, sets.data(), hops, 1), GNNRT_ERR_BAD_GRAPH);
    // A count beyond the nodes: a buffer made for another graph.
    std::vector<int32_t> wrong = sets;
    wrong[1] = static_cast<int32_t>(t.nodes() + 1);
    EXPECT_EQ(call(&g, wrong.data(), hops, 1), GNNRT_ERR_BAD_ARGUMENT);
  }

  // The kernels' own checks.
  const int32_t *rs = sets.data();
  float *ye = edgeOut.data(), *yn = nodeOut.data();
  EXPECT_EQ(gnnrt_cpu_sddmm_rows(&g, in.a.data(), in.b.data(), d, 5, rs, hops,
                                 1, 1, ye),
            GNNRT_ERR_BAD_SIZE); // 5 heads do not divide 12
  EXPECT_EQ(gnnrt_cpu_sddmm_rows(&g, nullptr, in.b.data(), d, heads, rs, hops,
                                 1, 1, ye),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_add_rows(&g, in.a.data(), in.b.data(), -1, rs, hops,
                                    1, 1, ye),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_rows(&g, in.scores.data(), heads, rs, hops,
                                        1, 1, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_grad_rows(&g, in.scores.data(), nullptr,
                                             heads, rs, hops, 1, 1, ye),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_scatter_rows(&g, 7, x.data(), d, rs, hops, 1, 3, 1, yn),
            GNNRT_ERR_BAD_ARGUMENT);
  gnnrt_graph noOut = g;
  noOut.out = {nullptr, nullptr, nullptr};
  EXPECT_EQ(gnnrt_cpu_scatter_rows(&noOut, GNNRT_END_SRC, x.data(), d, rs, hops,
                                   1, 3, 1, yn),
            GNNRT_ERR_NULL_POINTER);
  auto spmmHeadsRows = [&](int aggr, const float *w, int64_t weightHeads) {
    return gnnrt_cpu_spmm_heads_rows(&g, aggr, in.a.data(), d, w, weightHeads,
                                     rs, hops, 1, 3, 1, yn);
  };
  const float *w = in.weights.data();
  EXPECT_EQ(spmmHeadsRows(GNNRT_AGGR_MAX, w, heads), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(spmmHeadsRows(GNNRT_AGGR_MAX, nullptr, heads),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(spmmHeadsRows(7, w, heads), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(spmmHeadsRows(GNNRT_AGGR_SUM, nullptr, heads),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(spmmHeadsRows(GNNRT_AGGR_SUM, w, 5), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(spmmHeadsRows(GNNRT_AGGR_MEAN, w, 0), GNNRT_ERR_BAD_SIZE);

  // No failing call wrote anything.
  for (const std::vector<float> *out : {&edgeOut, &nodeOut})
    for (float v : *out)
      ASSERT_EQ(bitsOf(v), bitsOf(kSentinel));
}

} // namespace
