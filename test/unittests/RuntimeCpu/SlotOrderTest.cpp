//===- SlotOrderTest.cpp - SpMM sums in CSR slot order, to the bit --------===//
//
// gnnrt_cpu_spmm's sum and mean add each row's terms in CSR slot order, one
// rounding per product and per sum, whatever path computes them: the widths
// withRowWidth names go through gatherSum (a sum kept in registers, rows
// prefetched ahead), the others through the generic loop. Their bits are
// what makes a run reproducible across machines and what recompute relies
// on, so this checks them against a plain loop in that order at every
// fixed width and at widths around them, weighted and not, over the graph
// and its transpose (a graph with hubs, so rows span prefetch windows and
// thread chunks).
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"

#include "common/KernelCommon.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace gnnrt::cpu::test;

namespace {

/// `y = A x` in slot order with one rounding per product and per sum; the
/// product goes through a volatile so that this file's flags cannot fuse
/// it with the sum. \p mean divides each non-empty row by its slot count.
std::vector<float> slotOrderSpmm(const gnnrt_graph &g, const float *x,
                                 int64_t d, const float *w, bool mean) {
  std::vector<float> y(static_cast<size_t>(g.num_nodes * d), 0.0f);
  for (int64_t i = 0; i < g.num_nodes; ++i) {
    const int32_t first = g.in.indptr[i], last = g.in.indptr[i + 1];
    for (int32_t s = first; s < last; ++s)
      for (int64_t c = 0; c < d; ++c) {
        const float v = x[int64_t(g.in.src[s]) * d + c];
        volatile float term = w ? w[g.in.edge_id[s]] * v : v;
        y[i * d + c] += term;
      }
    if (mean && last > first)
      for (int64_t c = 0; c < d; ++c)
        y[i * d + c] /= static_cast<float>(last - first);
  }
  return y;
}

TEST(SlotOrder, SpmmSumAndMeanAtEveryWidth) {
  constexpr int64_t N = 700;
  ref::Graph graph = ref::randomGraph(N, 12, 21);
  for (int64_t j = 1; j < N; j += 2) { // a hub: one row of N / 2 slots
    graph.src.push_back(j);
    graph.dst.push_back(0);
  }
  const CsrGraph csr = toCsr(graph);
  const gnnrt_graph view = csr.view();
  const gnnrt_graph transposed = gnnrt_graph_transposed(view);
  const std::vector<float> w = toF32(randomF32({graph.numEdges()}, 7, 0, 2));

  for (int threads : {1, 2})
    for (int64_t d : {1, 3, 4, 6, 7, 8, 9, 16, 17, 32, 64, 65})
      for (const gnnrt_graph *g : {&view, &transposed})
        for (bool weighted : {false, true})
          for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN}) {
            SCOPED_TRACE("threads " + std::to_string(threads) + ", width " +
                         std::to_string(d) +
                         (g == &view ? ", graph" : ", transpose") +
                         (weighted ? ", weighted" : "") +
                         (aggr == GNNRT_AGGR_SUM ? ", sum" : ", mean"));
            gnnrt_cpu_set_num_threads(threads);
            const std::vector<float> x = toF32(randomF32({N, d}, 100 + d));
            const float *wp = weighted ? w.data() : nullptr;
            std::vector<float> y(static_cast<size_t>(N * d), NAN);
            ASSERT_EQ(gnnrt_cpu_spmm(g, aggr, x.data(), d, wp, 1, y.data()),
                      GNNRT_OK);
            const std::vector<float> want =
                slotOrderSpmm(*g, x.data(), d, wp, aggr == GNNRT_AGGR_MEAN);
            EXPECT_EQ(std::memcmp(y.data(), want.data(), y.size() * 4), 0);
          }
  gnnrt_cpu_set_num_threads(0);
}

} // namespace

namespace {

/// A warp's xor butterfly over all 32 lanes, written out: lane j at offset
/// m becomes lanes[j] + lanes[j ^ m], every lane, every offset.
float fullButterfly(std::vector<float> lanes) {
  for (int m = 16; m > 0; m /= 2) {
    std::vector<float> next(32);
    for (int j = 0; j < 32; ++j)
      next[j] = lanes[j] + lanes[j ^ m];
    lanes = next;
  }
  return lanes[0];
}

} // namespace

// The edge softmax's lane sums (KernelCommon.h): laneButterflySum with
// fewer lanes used skips the steps that only add +0.0 and turns -0.0 into
// +0.0 once instead; that must give the whole butterfly's bits, -0.0 terms
// (a gradient's y * dy) and rows of every length up to 32 included.
TEST(SlotOrder, ShortRowsTakeTheWholeButterflysBits) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (int used = 0; used <= 32; ++used)
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> whole(32, 0.0f);
      // Some rows all -0.0 (their sum is +0.0 on a warp), some mixing
      // -0.0 with values far apart, the rest plain values.
      for (int j = 0; j < used; ++j)
        whole[j] = trial % 3 == 0 || (trial % 3 == 1 && j % 2)
                       ? -0.0f
                       : value(rng) * (j % 5 ? 1.0f : 1e8f);
      float lanes[32];
      std::fill(lanes, lanes + 32, 12345.0f); // never read past the span
      std::copy(whole.begin(), whole.begin() + used, lanes);
      std::fill(lanes + used, lanes + gnnrt::kernel::laneSpan(used), 0.0f);
      const float want = fullButterfly(whole);
      const float got = gnnrt::kernel::laneButterflySum(lanes, used);
      uint32_t a, b;
      std::memcpy(&a, &want, 4);
      std::memcpy(&b, &got, 4);
      ASSERT_EQ(a, b) << "used " << used << " trial " << trial;
    }
}
