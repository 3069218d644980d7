//===- RowSetsUtil.h - Row sets for restricted kernels' tests ---*- C++ -*-===//
//
// The receptive-row buffers that the tests of the restricted kernels
// (RowsTest, DenseRowsTest, EdgeRowsTest, EdgeRowsTilesTest) build and
// compare against.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_RUNTIMECPU_ROWSETSUTIL_H
#define GNNC_TEST_RUNTIMECPU_ROWSETSUTIL_H

#include "CpuTestUtil.h"
#include "FloatBits.h"

#include <cstdint>
#include <vector>

namespace gnnrt::cpu::test {

/// A gnnrt_cpu_receptive_rows buffer, split into its three sections.
struct RowSets {
  int64_t nodes = 0, hops = 0;
  std::vector<int32_t> buffer;

  const int32_t *data() const { return buffer.data(); }
  std::vector<int32_t> counts() const {
    return {buffer.begin(), buffer.begin() + hops + 1};
  }
  std::vector<int32_t> order() const {
    return {buffer.begin() + hops + 1, buffer.begin() + hops + 1 + nodes};
  }
  std::vector<int32_t> levels() const {
    std::vector<int32_t> l(static_cast<size_t>(nodes));
    for (int64_t i = 0; i < nodes; ++i)
      l[i] = level(i);
    return l;
  }
  /// The level bytes, four to an int32 after the order.
  int32_t level(int64_t i) const {
    return reinterpret_cast<const int8_t *>(buffer.data() + hops + 1 +
                                            nodes)[i];
  }
};

/// The kernel's sets; the call must succeed.
inline RowSets receptiveRows(const gnnrt_graph &g,
                             const std::vector<uint8_t> &mask, int64_t hops) {
  RowSets sets;
  sets.nodes = g.num_nodes;
  sets.hops = hops;
  sets.buffer.assign(
      static_cast<size_t>(gnnrt_row_sets_length(g.num_nodes, hops)), -7);
  EXPECT_EQ(gnnrt_cpu_receptive_rows(&g, mask.data(), hops, sets.buffer.data()),
            GNNRT_OK);
  return sets;
}

/// A graph, its CSR views and its row sets, for the edge kernels' tests
/// (EdgeRowsTest, EdgeRowsTilesTest), which build them their own ways.
struct EdgeSetsCase {
  static constexpr int64_t kHops = 2;
  ref::Graph graph;
  CsrGraph csr;
  RowSets sets;

  gnnrt_graph view() const { return csr.view(); }
  int64_t nodes() const { return csr.nodes; }
  int64_t edges() const { return csr.edges; }
  /// Whether node \p i is in R_level.
  bool nodeComputed(int64_t i, int64_t level) const {
    return sets.level(i) <= level;
  }
  /// Whether edge \p e is computed at \p level: its destination is in
  /// R_level.
  bool edgeComputed(int64_t e, int64_t level) const {
    return nodeComputed(graph.dst[e], level);
  }
};

/// What every output element of the edge kernels' tests starts as: a NaN
/// with a payload no kernel computes.
inline const float kSentinel = fromBits(0x7FC0BEEFu);

/// About \p percent of \p n nodes, from \p seed.
inline std::vector<uint8_t> randomMask(int64_t n, int percent, uint64_t seed) {
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  uint64_t state = seed;
  for (uint8_t &m : mask)
    m = nextRandom(state) % 100 < static_cast<uint64_t>(percent) ? 1 : 0;
  return mask;
}

/// Rows of \p d elements: those of level <= \p level have the bits of \p
/// want, the others those of +0.0.
inline ::testing::AssertionResult rowsMatch(const std::vector<float> &got,
                                            const std::vector<float> &want,
                                            const RowSets &sets, int64_t level,
                                            int64_t d) {
  for (int64_t i = 0; i < sets.nodes; ++i) {
    const bool computed = sets.level(i) <= level;
    for (int64_t c = 0; c < d; ++c) {
      const uint32_t g = bitsOf(got[i * d + c]);
      const uint32_t w = computed ? bitsOf(want[i * d + c]) : 0u;
      if (g != w)
        return ::testing::AssertionFailure()
               << "row " << i << " (level " << sets.level(i) << "), column "
               << c << ": bits " << std::hex << g << ", want " << w;
    }
  }
  return ::testing::AssertionSuccess();
}

/// Row sets over the rows of a matrix, from a random graph on them and a
/// mask of about \p percent of them.
inline RowSets matrixRowSets(int64_t rows, int64_t hops, uint64_t seed,
                             int percent = 2) {
  const CsrGraph csr = toCsr(ref::randomGraph(rows, 4, seed));
  return receptiveRows(csr.view(), randomMask(rows, percent, seed + 1), hops);
}

} // namespace gnnrt::cpu::test

#endif // GNNC_TEST_RUNTIMECPU_ROWSETSUTIL_H
