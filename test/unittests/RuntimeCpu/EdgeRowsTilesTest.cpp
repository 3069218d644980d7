//===- EdgeRowsTilesTest.cpp - The edge kernels at the rows, tiled --------===//
//
// gnnrt_cpu_sddmm_rows_tiles, _edge_add_rows_tiles, _edge_softmax_rows_tiles,
// _edge_softmax_grad_rows_tiles and _scatter_rows_tiles against their
// `_rows` kernels (EdgeRowsTest checks those against the whole kernels), bit
// for bit, at every level of a graph's row sets and tiles of 1, 2 and 7
// slots and of the whole graph. The graph's edge ids are a random
// permutation; it has a row of many slots into a node of R_0 and one out of
// another (so small tiles split rows, and stream the soft-max's), and
// computed rows with no slots either way. Outputs start as NaN sentinels:
// the edge kernels must leave every edge outside R_level's rows as it was,
// the scatter its other rows too or, with zero_rest, +0.0. Then the soft-max
// and its gradient in place, the scatter's skipped slots (given nonzero
// values), one thread against two, the bytes the tiles copy, and the
// argument checks.
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

/// Bytes of a graph tile per slot (a piece record, the other end, the edge
/// id).
constexpr int64_t kSlotBytes = 28;

/// A random graph (in-degrees 0 to \p maxDegree) plus a node with an edge
/// from every 16th node (kInHub) and one with an edge to every 16th node
/// (kOutHub), its edge list shuffled so that the edge ids are a random
/// permutation; its row sets for a mask of about 1% of the nodes plus both
/// hubs and a node with no edges in and one with no edges out.
struct TiledEdgeCase : EdgeSetsCase {
  static constexpr int64_t kInHub = 1, kOutHub = 3;

  TiledEdgeCase(int64_t nodes, int64_t maxDegree, uint64_t seed) {
    graph = ref::randomGraph(nodes, maxDegree, seed, /*allowIsolated=*/true);
    for (int64_t j = 0; j < nodes; j += 16) {
      if (j != kInHub) {
        graph.src.push_back(j);
        graph.dst.push_back(kInHub);
      }
      if (j + 2 != kOutHub && j + 2 < nodes) {
        graph.src.push_back(kOutHub);
        graph.dst.push_back(j + 2);
      }
    }
    uint64_t state = seed * 5 + 2;
    for (int64_t e = graph.numEdges() - 1; e > 0; --e) {
      const int64_t pick = static_cast<int64_t>(nextRandom(state) %
                                                static_cast<uint64_t>(e + 1));
      std::swap(graph.src[e], graph.src[pick]);
      std::swap(graph.dst[e], graph.dst[pick]);
    }
    csr = toCsr(graph);
    const gnnrt_graph g = csr.view();
    EXPECT_EQ(gnnrt_graph_check(&g), GNNRT_OK);
    std::vector<uint8_t> mask = randomMask(nodes, 1, seed + 3);
    mask[kInHub] = mask[kOutHub] = 1;
    markFirstEmpty(csr.inPtr, mask);
    markFirstEmpty(csr.outPtr, mask);
    sets = receptiveRows(g, mask, kHops);
  }

  /// The slots of the rows of R_level in the CSR with offsets \p ptr, and
  /// those rows with no slot, one slot and more than one.
  struct SlotCounts {
    int64_t slots = 0, empty = 0, single = 0, longer = 0;
  };
  SlotCounts slotsAt(const std::vector<int32_t> &ptr, int64_t level) const {
    SlotCounts c;
    for (int64_t i = 0; i < nodes(); ++i) {
      if (!nodeComputed(i, level))
        continue;
      const int64_t k = ptr[i + 1] - ptr[i];
      c.slots += k;
      c.empty += k == 0;
      c.single += k == 1 ? 1 : 0;
      c.longer += k > 1 ? k : 0;
    }
    return c;
  }

private:
  static void markFirstEmpty(const std::vector<int32_t> &ptr,
                             std::vector<uint8_t> &mask) {
    for (size_t i = 0; i + 1 < ptr.size(); ++i)
      if (ptr[i] == ptr[i + 1]) {
        mask[i] = 1;
        return;
      }
    ADD_FAILURE() << "no row without slots";
  }
};

/// About a thousand nodes, for the bit comparisons.
const TiledEdgeCase &smallCase() {
  static const TiledEdgeCase c(1000, 6, 21);
  return c;
}

/// Enough slots at R_1 and R_2 for the kernels to start a thread team.
const TiledEdgeCase &largeCase() {
  static const TiledEdgeCase c(6000, 12, 22);
  return c;
}

constexpr int64_t kHops = TiledEdgeCase::kHops;

/// A tile of \p slots slots, of garbage.
struct TileBuffer {
  std::vector<char> buffer;
  explicit TileBuffer(int64_t slots)
      : buffer(static_cast<size_t>(kSlotBytes * slots),
               static_cast<char>(0xA5)) {}
  void *data() { return buffer.data(); }
  int64_t bytes() const { return static_cast<int64_t>(buffer.size()); }
};

/// The tile sizes: one slot (every row of more than one slot split, every
/// soft-max row of more streamed), two, seven, and the whole graph.
std::vector<int64_t> tileSizes(int64_t edges) { return {1, 2, 7, edges}; }

/// Head counts and features per head: one head, a width no fast path
/// takes, GAT's 8 features per head.
const std::pair<int64_t, int64_t> kShapes[] = {{1, 5}, {4, 3}, {2, 8}};

std::string describe(int64_t heads, int64_t f, int64_t level, int64_t slots) {
  return std::to_string(heads) + " heads x " + std::to_string(f) + ", level " +
         std::to_string(level) + ", " + std::to_string(slots) +
         " slots per tile";
}

/// Rows of \p width elements, \p rows of them, \p computed(r) telling which
/// the kernel computes: those have the bits of \p want (which must have
/// been written there: not the sentinel); the others those of +0.0 with
/// \p zeroRest, else of \p before (what the output held).
::testing::AssertionResult
rowsAre(const std::vector<float> &got, const std::vector<float> &want,
        const std::vector<float> &before, int64_t rows, int64_t width,
        int zeroRest, const std::function<bool(int64_t)> &computed) {
  if (got.size() != static_cast<size_t>(rows * width) ||
      want.size() != got.size() || before.size() != got.size())
    return ::testing::AssertionFailure() << "sizes differ";
  int64_t written = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const bool isComputed = computed(r);
    written += isComputed;
    for (int64_t c = 0; c < width; ++c) {
      const int64_t at = r * width + c;
      if (isComputed && bitsOf(want[at]) == bitsOf(kSentinel))
        return ::testing::AssertionFailure()
               << "row " << r << ": the `_rows` kernel did not write it";
      const uint32_t g = bitsOf(got[at]);
      const uint32_t w = isComputed ? bitsOf(want[at])
                         : zeroRest ? 0u
                                    : bitsOf(before[at]);
      if (g != w)
        return ::testing::AssertionFailure()
               << "row " << r << (isComputed ? " (computed)" : " (rest)")
               << ", column " << c << ": bits " << std::hex << g << ", want "
               << w;
    }
  }
  if (written == 0)
    return ::testing::AssertionFailure() << "no row computed";
  return ::testing::AssertionSuccess();
}

/// Edge rows: those of the edges into R_level computed, the rest kept.
::testing::AssertionResult edgesAre(const std::vector<float> &got,
                                    const std::vector<float> &want,
                                    const std::vector<float> &before,
                                    const TiledEdgeCase &t, int64_t level,
                                    int64_t width) {
  return rowsAre(got, want, before, t.edges(), width, 0,
                 [&](int64_t e) { return t.edgeComputed(e, level); });
}

/// Node rows: those of R_level computed.
::testing::AssertionResult nodesAre(const std::vector<float> &got,
                                    const std::vector<float> &want,
                                    const TiledEdgeCase &t, int64_t level,
                                    int64_t width, int zeroRest) {
  const std::vector<float> sentinels(got.size(), kSentinel);
  return rowsAre(got, want, sentinels, t.nodes(), width, zeroRest,
                 [&](int64_t i) { return t.nodeComputed(i, level); });
}

/// A kernel writing into \p out at \p level through a tile of \p slots
/// slots (adding the bytes copied to \p moved), or its `_rows` kernel when
/// \p slots is 0.
using Call = std::function<int(float *out, int64_t level, int64_t slots,
                               int64_t *moved)>;

/// The call into sentinels; it must succeed.
std::vector<float> run(const Call &call, size_t size, int64_t level,
                       int64_t slots, int64_t *moved = nullptr) {
  std::vector<float> out(size, kSentinel);
  int64_t bytes = 0;
  EXPECT_EQ(call(out.data(), level, slots, &bytes), GNNRT_OK);
  if (moved)
    *moved = bytes;
  return out;
}

/// The inputs of one shape: node features, edge scores and cotangents.
struct Inputs {
  std::vector<float> a, b, scores, dy;

  Inputs(const TiledEdgeCase &t, int64_t heads, int64_t d, uint64_t seed)
      : a(randomDense(t.nodes() * d, seed)),
        b(randomDense(t.nodes() * d, seed + 1)),
        scores(randomDense(t.edges() * heads, seed + 2)),
        dy(randomDense(t.edges() * heads, seed + 3)) {
    // Scores of a few units, so that exp() differs widely within a row.
    for (float &s : scores)
      s *= 4;
  }
};

/// The five kernels on \p t's graph, tiled (slots > 0) or their `_rows`
/// kernels (slots 0, zero_rest 0); the scatter's `end` and `skip` given.
struct Kernels {
  const TiledEdgeCase &t;
  gnnrt_graph g;
  int64_t heads, d;
  Inputs in;
  std::vector<float> y, x; // the soft-max of the scores; [E, d] for scatter

  Kernels(const TiledEdgeCase &c, int64_t h, int64_t f, uint64_t seed)
      : t(c), g(c.view()), heads(h), d(h * f), in(c, h, h * f, seed),
        y(static_cast<size_t>(c.edges() * h)),
        x(randomDense(c.edges() * h * f, seed + 9)) {
    EXPECT_EQ(gnnrt_cpu_edge_softmax(&g, in.scores.data(), heads, y.data()),
              GNNRT_OK);
  }

  Call sddmm() const {
    return [this](float *out, int64_t level, int64_t slots, int64_t *moved) {
      const int32_t *rs = t.sets.data();
      if (slots == 0)
        return gnnrt_cpu_sddmm_rows(&g, in.a.data(), in.b.data(), d, heads, rs,
                                    kHops, level, 0, out);
      TileBuffer tile(slots);
      return gnnrt_cpu_sddmm_rows_tiles(&g, in.a.data(), in.b.data(), d, heads,
                                        rs, kHops, level, tile.data(),
                                        tile.bytes(), out, moved);
    };
  }
  Call edgeAdd() const {
    return [this](float *out, int64_t level, int64_t slots, int64_t *moved) {
      const int32_t *rs = t.sets.data();
      if (slots == 0)
        return gnnrt_cpu_edge_add_rows(&g, in.a.data(), in.b.data(), d, rs,
                                       kHops, level, 0, out);
      TileBuffer tile(slots);
      return gnnrt_cpu_edge_add_rows_tiles(&g, in.a.data(), in.b.data(), d, rs,
                                           kHops, level, tile.data(),
                                           tile.bytes(), out, moved);
    };
  }
  Call softmax() const {
    return [this](float *out, int64_t level, int64_t slots, int64_t *moved) {
      const int32_t *rs = t.sets.data();
      if (slots == 0)
        return gnnrt_cpu_edge_softmax_rows(&g, in.scores.data(), heads, rs,
                                           kHops, level, 0, out);
      TileBuffer tile(slots);
      return gnnrt_cpu_edge_softmax_rows_tiles(&g, in.scores.data(), heads, rs,
                                               kHops, level, tile.data(),
                                               tile.bytes(), out, moved);
    };
  }
  Call softmaxGrad() const {
    return [this](float *out, int64_t level, int64_t slots, int64_t *moved) {
      const int32_t *rs = t.sets.data();
      if (slots == 0)
        return gnnrt_cpu_edge_softmax_grad_rows(
            &g, y.data(), in.dy.data(), heads, rs, kHops, level, 0, out);
      TileBuffer tile(slots);
      return gnnrt_cpu_edge_softmax_grad_rows_tiles(
          &g, y.data(), in.dy.data(), heads, rs, kHops, level, tile.data(),
          tile.bytes(), out, moved);
    };
  }
  Call scatter(int end, int64_t skip, int zeroRest) const {
    return [this, end, skip, zeroRest](float *out, int64_t level, int64_t slots,
                                       int64_t *moved) {
      const int32_t *rs = t.sets.data();
      if (slots == 0)
        return gnnrt_cpu_scatter_rows(&g, end, x.data(), d, rs, kHops, level,
                                      skip, 0, out);
      TileBuffer tile(slots);
      return gnnrt_cpu_scatter_rows_tiles(&g, end, x.data(), d, rs, kHops,
                                          level, skip, zeroRest, tile.data(),
                                          tile.bytes(), out, moved);
    };
  }
};

class EdgeRowsTilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    gnnrt_cpu_set_num_threads(1);
    for (const TiledEdgeCase *t : {&smallCase(), &largeCase()}) {
      const std::vector<int32_t> counts = t->sets.counts();
      // Every level computes some rows and leaves out some.
      ASSERT_GT(counts[0], 0);
      ASSERT_LT(counts[0], counts[1]);
      ASSERT_LT(counts[1], counts[2]);
      ASSERT_LT(counts[2], t->nodes());
    }
  }
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }
};

//===----------------------------------------------------------------------===//
// The bits, against the `_rows` kernels
//===----------------------------------------------------------------------===//

/// \p call tiled at every level and tile size against its `_rows` kernel:
/// edge rows of \p width floats.
void checkEdgeKernel(const TiledEdgeCase &t, int64_t heads, int64_t f,
                     int64_t width, const Call &call) {
  const size_t size = static_cast<size_t>(t.edges() * width);
  const std::vector<float> sentinels(size, kSentinel);
  for (int64_t level = 0; level <= kHops; ++level) {
    const std::vector<float> want = run(call, size, level, 0);
    for (int64_t slots : tileSizes(t.edges())) {
      SCOPED_TRACE(describe(heads, f, level, slots));
      EXPECT_TRUE(edgesAre(run(call, size, level, slots), want, sentinels, t,
                           level, width));
    }
  }
}

TEST_F(EdgeRowsTilesTest, SddmmHasTheSddmmRowsBits) {
  const TiledEdgeCase &t = smallCase();
  for (auto [heads, f] : kShapes) {
    const Kernels k(t, heads, f, 10 * heads * f);
    checkEdgeKernel(t, heads, f, heads, k.sddmm());
  }
}

TEST_F(EdgeRowsTilesTest, EdgeAddHasTheEdgeAddRowsBits) {
  const TiledEdgeCase &t = smallCase();
  for (auto [heads, f] : kShapes) {
    const Kernels k(t, heads, f, 20 * heads * f);
    checkEdgeKernel(t, heads, f, heads * f, k.edgeAdd());
  }
}

TEST_F(EdgeRowsTilesTest, EdgeSoftmaxHasTheSoftmaxRowsBits) {
  const TiledEdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const Kernels k(t, heads, f, 30 * heads);
    checkEdgeKernel(t, heads, f, heads, k.softmax());
    // In place: the rest is the input itself.
    const std::vector<float> &scores = k.in.scores;
    for (int64_t level = 0; level <= kHops; ++level) {
      const std::vector<float> want = run(k.softmax(), scores.size(), level, 0);
      for (int64_t slots : tileSizes(t.edges())) {
        SCOPED_TRACE(describe(heads, f, level, slots) + ", in place");
        std::vector<float> y = scores;
        TileBuffer tile(slots);
        int64_t moved = 0;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_rows_tiles(
                      &g, y.data(), heads, t.sets.data(), kHops, level,
                      tile.data(), tile.bytes(), y.data(), &moved),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(y, want, scores, t, level, heads));
      }
    }
  }
}

TEST_F(EdgeRowsTilesTest, EdgeSoftmaxGradHasTheGradRowsBits) {
  const TiledEdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  for (auto [heads, f] : kShapes) {
    const Kernels k(t, heads, f, 40 * heads);
    checkEdgeKernel(t, heads, f, heads, k.softmaxGrad());
    for (int64_t level = 0; level <= kHops; ++level) {
      const std::vector<float> want =
          run(k.softmaxGrad(), k.y.size(), level, 0);
      for (int64_t slots : tileSizes(t.edges())) {
        SCOPED_TRACE(describe(heads, f, level, slots));
        TileBuffer tile(slots);
        int64_t moved = 0;
        // dx == dy.
        std::vector<float> dx = k.in.dy;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_rows_tiles(
                      &g, k.y.data(), dx.data(), heads, t.sets.data(), kHops,
                      level, tile.data(), tile.bytes(), dx.data(), &moved),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(dx, want, k.in.dy, t, level, heads)) << "dx == dy";
        // dx == y.
        dx = k.y;
        ASSERT_EQ(gnnrt_cpu_edge_softmax_grad_rows_tiles(
                      &g, dx.data(), k.in.dy.data(), heads, t.sets.data(),
                      kHops, level, tile.data(), tile.bytes(), dx.data(),
                      &moved),
                  GNNRT_OK);
        EXPECT_TRUE(edgesAre(dx, want, k.y, t, level, heads)) << "dx == y";
      }
    }
  }
}

const char *endName(int end) { return end == GNNRT_END_DST ? "dst" : "src"; }

// Both ends, skip from every slot left out (-1) through none (> hops), and
// zero_rest both ways. x is nonzero everywhere, so a kernel that sums a slot
// it should skip differs from the `_rows` kernel.
TEST_F(EdgeRowsTilesTest, ScatterHasTheScatterRowsBits) {
  const TiledEdgeCase &t = smallCase();
  for (auto [heads, f] : kShapes) {
    const Kernels k(t, heads, f, 50 * heads * f);
    const int64_t d = k.d;
    const size_t size = static_cast<size_t>(t.nodes() * d);
    for (int end : {GNNRT_END_DST, GNNRT_END_SRC})
      for (int64_t skip = -1; skip <= kHops + 1; ++skip) {
        // The skip must matter: R_2's sums without it differ.
        if (skip <= 0) {
          const std::vector<float> with =
              run(k.scatter(end, skip, 0), size, kHops, 0);
          const std::vector<float> without =
              run(k.scatter(end, kHops + 1, 0), size, kHops, 0);
          EXPECT_NE(
              std::memcmp(with.data(), without.data(), size * sizeof(float)),
              0);
        }
        for (int64_t level = 0; level <= kHops; ++level) {
          const std::vector<float> want =
              run(k.scatter(end, skip, 0), size, level, 0);
          for (int64_t slots : tileSizes(t.edges()))
            for (int zeroRest : {0, 1}) {
              SCOPED_TRACE(describe(heads, f, level, slots) + ", " +
                           endName(end) + ", skip " + std::to_string(skip) +
                           (zeroRest ? ", zero_rest" : ", rest kept"));
              EXPECT_TRUE(nodesAre(
                  run(k.scatter(end, skip, zeroRest), size, level, slots), want,
                  t, level, d, zeroRest));
            }
        }
      }
  }
}

//===----------------------------------------------------------------------===//
// Threads, bytes, arguments
//===----------------------------------------------------------------------===//

// On a graph with enough slots for thread teams, one thread and two give the
// same bits, the `_rows` kernels'.
TEST_F(EdgeRowsTilesTest, ThreadTeamsGiveTheSameBits) {
  gnnrt_cpu_set_num_threads(2);
  if (gnnrt_cpu_get_num_threads() < 2)
    GTEST_SKIP() << "the runtime was built without OpenMP";
  gnnrt_cpu_set_num_threads(1);
  const TiledEdgeCase &t = largeCase();
  const int64_t heads = 4, f = 3, d = heads * f;
  const Kernels k(t, heads, f, 90);
  struct Kernel {
    const char *name;
    bool edgeRows;
    int64_t width;
    Call call;
  };
  const Kernel kernels[] = {
      {"sddmm", true, heads, k.sddmm()},
      {"edge_add", true, d, k.edgeAdd()},
      {"edge_softmax", true, heads, k.softmax()},
      {"edge_softmax_grad", true, heads, k.softmaxGrad()},
      {"scatter to dst", false, d, k.scatter(GNNRT_END_DST, kHops + 1, 1)},
      {"scatter to src, skip 1", false, d, k.scatter(GNNRT_END_SRC, 1, 1)},
  };
  for (const Kernel &kernel : kernels)
    for (int64_t level : {int64_t(1), kHops}) {
      const size_t size = static_cast<size_t>(
          (kernel.edgeRows ? t.edges() : t.nodes()) * kernel.width);
      gnnrt_cpu_set_num_threads(1);
      const std::vector<float> want = run(kernel.call, size, level, 0);
      for (int64_t slots : {int64_t(1), int64_t(7), int64_t(4096)}) {
        SCOPED_TRACE(std::string(kernel.name) + ", level " +
                     std::to_string(level) + ", " + std::to_string(slots) +
                     " slots per tile");
        gnnrt_cpu_set_num_threads(1);
        const std::vector<float> one = run(kernel.call, size, level, slots);
        gnnrt_cpu_set_num_threads(2);
        const std::vector<float> two = run(kernel.call, size, level, slots);
        EXPECT_EQ(std::memcmp(one.data(), two.data(), size * sizeof(float)), 0);
        const std::vector<float> sentinels(size, kSentinel);
        EXPECT_TRUE(kernel.edgeRows
                        ? edgesAre(two, want, sentinels, t, level, kernel.width)
                        : nodesAre(two, want, t, level, kernel.width, 1));
      }
    }
}

// Only R_level's rows are copied: a piece record per row (or part of a row)
// and, per slot, the other end and edge id (SDDMM, the edge add, the scatter
// with skip) or the edge id (the soft-max and its gradient, the scatter
// without skip); the soft-max reads a row longer than the tile once per
// pass, without a piece record.
TEST_F(EdgeRowsTilesTest, ReportTheBytesCopied) {
  // One thread's walk: more threads cut the tile into sections, and a row
  // may then split where one ends.
  gnnrt_cpu_set_num_threads(1);
  const TiledEdgeCase &t = smallCase();
  const Kernels k(t, 2, 4, 60);
  const int64_t e = t.edges();
  auto moved = [&](const Call &call, int64_t level, int64_t slots) {
    int64_t bytes = 0;
    run(call, static_cast<size_t>(std::max(e, t.nodes()) * k.d), level, slots,
        &bytes);
    return bytes;
  };
  std::vector<int64_t> atLevel;
  for (int64_t level = 0; level <= kHops; ++level) {
    SCOPED_TRACE("level " + std::to_string(level));
    const int64_t rows = t.sets.counts()[level];
    const auto in = t.slotsAt(t.csr.inPtr, level);
    const auto out = t.slotsAt(t.csr.outPtr, level);
    ASSERT_GT(in.longer, 0);
    // A tile holding everything: a piece per row.
    EXPECT_EQ(moved(k.sddmm(), level, e), 20 * rows + 8 * in.slots);
    EXPECT_EQ(moved(k.edgeAdd(), level, e), 20 * rows + 8 * in.slots);
    // The soft-max packs no row without slots.
    EXPECT_EQ(moved(k.softmax(), level, e),
              20 * (rows - in.empty) + 4 * in.slots);
    EXPECT_EQ(moved(k.softmaxGrad(), level, e),
              20 * (rows - in.empty) + 4 * in.slots);
    EXPECT_EQ(moved(k.scatter(GNNRT_END_DST, kHops + 1, 0), level, e),
              20 * rows + 4 * in.slots);
    EXPECT_EQ(moved(k.scatter(GNNRT_END_DST, 1, 0), level, e),
              20 * rows + 8 * in.slots);
    EXPECT_EQ(moved(k.scatter(GNNRT_END_SRC, kHops + 1, 0), level, e),
              20 * rows + 4 * out.slots);
    EXPECT_EQ(moved(k.scatter(GNNRT_END_SRC, 0, 0), level, e),
              20 * rows + 8 * out.slots);
    // A tile of one slot: a piece per slot (and per row without slots); the
    // soft-max streams every row of more than one slot, three passes (two
    // for its gradient).
    EXPECT_EQ(moved(k.sddmm(), level, 1),
              20 * (in.slots + in.empty) + 8 * in.slots);
    EXPECT_EQ(moved(k.scatter(GNNRT_END_SRC, kHops + 1, 0), level, 1),
              20 * (out.slots + out.empty) + 4 * out.slots);
    EXPECT_EQ(moved(k.softmax(), level, 1), 24 * in.single + 3 * 4 * in.longer);
    EXPECT_EQ(moved(k.softmaxGrad(), level, 1),
              24 * in.single + 2 * 4 * in.longer);
    atLevel.push_back(moved(k.sddmm(), level, 7));
  }
  EXPECT_GT(atLevel[0], 0);
  EXPECT_LT(atLevel[0], atLevel[1]);
  EXPECT_LT(atLevel[1], atLevel[2]);

  // The count is added to.
  const gnnrt_graph g = t.view();
  std::vector<float> y(static_cast<size_t>(e * k.heads));
  TileBuffer tile(16);
  int64_t total = 1000;
  for (int twice = 0; twice < 2; ++twice)
    ASSERT_EQ(gnnrt_cpu_edge_softmax_rows_tiles(
                  &g, k.in.scores.data(), k.heads, t.sets.data(), kHops, 1,
                  tile.data(), tile.bytes(), y.data(), &total),
              GNNRT_OK);
  EXPECT_EQ(total, 1000 + 2 * moved(k.softmax(), 1, 16));
}

TEST_F(EdgeRowsTilesTest, RejectBadArguments) {
  const TiledEdgeCase &t = smallCase();
  const gnnrt_graph g = t.view();
  const int64_t heads = 4, d = 12, hops = kHops;
  const Inputs in(t, heads, d, 100);
  const std::vector<float> x = randomDense(t.edges() * d, 101);
  std::vector<int32_t> sets = t.sets.buffer;
  std::vector<float> edgeOut(static_cast<size_t>(t.edges() * d), kSentinel);
  std::vector<float> nodeOut(static_cast<size_t>(t.nodes() * d), kSentinel);
  std::vector<char> tile(kSlotBytes * 8);
  const int64_t bytes = kSlotBytes * 8;
  int64_t moved = 0;
  // Every kernel with the graph, row-set and tile arguments given.
  using BadCall = std::function<int(const gnnrt_graph *, const int32_t *rs,
                                    int64_t hops, int64_t level, void *tile,
                                    int64_t tileBytes, int64_t *moved)>;
  const std::pair<const char *, BadCall> calls[] = {
      {"sddmm",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l,
           void *tp, int64_t tb, int64_t *m) {
         return gnnrt_cpu_sddmm_rows_tiles(gr, in.a.data(), in.b.data(), d,
                                           heads, rs, h, l, tp, tb,
                                           edgeOut.data(), m);
       }},
      {"edge_add",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l,
           void *tp, int64_t tb, int64_t *m) {
         return gnnrt_cpu_edge_add_rows_tiles(gr, in.a.data(), in.b.data(), d,
                                              rs, h, l, tp, tb, edgeOut.data(),
                                              m);
       }},
      {"edge_softmax",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l,
           void *tp, int64_t tb, int64_t *m) {
         return gnnrt_cpu_edge_softmax_rows_tiles(
             gr, in.scores.data(), heads, rs, h, l, tp, tb, edgeOut.data(), m);
       }},
      {"edge_softmax_grad",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l,
           void *tp, int64_t tb, int64_t *m) {
         return gnnrt_cpu_edge_softmax_grad_rows_tiles(
             gr, in.scores.data(), in.dy.data(), heads, rs, h, l, tp, tb,
             edgeOut.data(), m);
       }},
      {"scatter",
       [&](const gnnrt_graph *gr, const int32_t *rs, int64_t h, int64_t l,
           void *tp, int64_t tb, int64_t *m) {
         return gnnrt_cpu_scatter_rows_tiles(gr, GNNRT_END_SRC, x.data(), d, rs,
                                             h, l, 1, 1, tp, tb, nodeOut.data(),
                                             m);
       }},
  };
  for (const auto &[name, call] : calls) {
    SCOPED_TRACE(name);
    void *tp = tile.data();
    const int32_t *rs = sets.data();
    int64_t ok = 0;
    ASSERT_EQ(call(&g, rs, hops, hops, tp, bytes, &ok), GNNRT_OK);
    ASSERT_GT(ok, 0);
    std::fill(edgeOut.begin(), edgeOut.end(), kSentinel);
    std::fill(nodeOut.begin(), nodeOut.end(), kSentinel);
    // The tile's.
    EXPECT_EQ(call(&g, rs, hops, 1, nullptr, bytes, &moved),
              GNNRT_ERR_NULL_POINTER);
    EXPECT_EQ(call(&g, rs, hops, 1, tp, bytes, nullptr),
              GNNRT_ERR_NULL_POINTER);
    for (int64_t small : {kSlotBytes - 1, int64_t(0), -kSlotBytes})
      EXPECT_EQ(call(&g, rs, hops, 1, tp, small, &moved), GNNRT_ERR_BAD_SIZE)
          << small << " bytes";
    // The row sets'.
    EXPECT_EQ(call(&g, nullptr, hops, 1, tp, bytes, &moved),
              GNNRT_ERR_NULL_POINTER);
    EXPECT_EQ(call(&g, rs, hops, hops + 1, tp, bytes, &moved),
              GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(&g, rs, hops, -1, tp, bytes, &moved),
              GNNRT_ERR_BAD_ARGUMENT);
    EXPECT_EQ(call(&g, rs, -1, 0, tp, bytes, &moved), GNNRT_ERR_BAD_ARGUMENT);
    std::vector<int32_t> wrong = sets;
    wrong[1] = static_cast<int32_t>(t.nodes() + 1); // made for another graph
    EXPECT_EQ(call(&g, wrong.data(), hops, 1, tp, bytes, &moved),
              GNNRT_ERR_BAD_ARGUMENT);
    // The graph's.
    EXPECT_EQ(call(nullptr, rs, hops, 1, tp, bytes, &moved),
              GNNRT_ERR_NULL_POINTER);
    gnnrt_graph bad = g;
    bad.num_edges -= 1; // the offsets no longer end at E
    EXPECT_EQ(call(&bad, rs, hops, 1, tp, bytes, &moved), GNNRT_ERR_BAD_GRAPH);
  }

  // The kernels' own checks.
  const int32_t *rs = sets.data();
  float *ye = edgeOut.data(), *yn = nodeOut.data();
  EXPECT_EQ(gnnrt_cpu_sddmm_rows_tiles(&g, in.a.data(), in.b.data(), d, 5, rs,
                                       hops, 1, tile.data(), bytes, ye, &moved),
            GNNRT_ERR_BAD_SIZE); // 5 heads do not divide 12
  EXPECT_EQ(gnnrt_cpu_edge_add_rows_tiles(&g, in.a.data(), nullptr, d, rs, hops,
                                          1, tile.data(), bytes, ye, &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_rows_tiles(&g, in.scores.data(), heads, rs,
                                              hops, 1, tile.data(), bytes,
                                              nullptr, &moved),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_scatter_rows_tiles(&g, 7, x.data(), d, rs, hops, 1, 3, 1,
                                         tile.data(), bytes, yn, &moved),
            GNNRT_ERR_BAD_ARGUMENT);
  gnnrt_graph noOut = g;
  noOut.out = {nullptr, nullptr, nullptr};
  EXPECT_EQ(gnnrt_cpu_scatter_rows_tiles(&noOut, GNNRT_END_SRC, x.data(), d, rs,
                                         hops, 1, 3, 1, tile.data(), bytes, yn,
                                         &moved),
            GNNRT_ERR_NULL_POINTER);

  EXPECT_EQ(moved, 0) << "no call that failed copied anything";
  for (const std::vector<float> *out : {&edgeOut, &nodeOut})
    for (float v : *out)
      ASSERT_EQ(bitsOf(v), bitsOf(kSentinel)) << "no call that failed wrote";
}

} // namespace
