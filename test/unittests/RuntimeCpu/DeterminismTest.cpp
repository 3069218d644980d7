//===- DeterminismTest.cpp - Same bits for any number of threads ----------===//
//
// The ABI promises results independent of the thread count (no atomics;
// fixed summation orders). These run the kernels whose parallel loops could
// break that promise, on a graph large enough for every loop to go parallel
// and with hub nodes that a dynamic schedule splits unevenly, with one and
// with two OpenMP threads, and compare the bits.
//
// The aggregation kernels accumulate in fp32, where any change of order
// shows in the bits (a kernel that reversed its slot order on a thread
// team failed here). The reductions across rows accumulate in double and
// round once, which hides most reorderings, so their check is the weaker
// one; their fixed-block order is what makes them exact.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"

#include <cstring>
#include <functional>

using namespace gnnrt::cpu::test;

namespace {

class Determinism : public ::testing::Test {
protected:
  static constexpr int64_t N = 3000, D = 32, H = 4, C = 7;

  static ref::Graph hubbyGraph() {
    ref::Graph g = ref::randomGraph(N, 30, 5);
    // Node 0 hears from everyone, node 1 from every other node: degrees
    // far above the 64-row chunks of the dynamic schedule.
    for (int64_t j = 1; j < N; ++j) {
      g.src.push_back(j);
      g.dst.push_back(0);
      if (j % 2) {
        g.src.push_back(j);
        g.dst.push_back(1);
      }
    }
    return g;
  }

  void SetUp() override {
    gnnrt_cpu_set_num_threads(2);
    if (gnnrt_cpu_get_num_threads() < 2)
      GTEST_SKIP() << "the runtime was built without OpenMP";
  }
  void TearDown() override { gnnrt_cpu_set_num_threads(0); }

  /// Runs \p kernel with 1 and with 2 threads; both must succeed and write
  /// the same bits.
  void expectSameBits(const char *what, size_t size,
                      const std::function<int(float *)> &kernel) {
    SCOPED_TRACE(what);
    std::vector<float> one(size, 1.0f), two(size, 2.0f);
    gnnrt_cpu_set_num_threads(1);
    ASSERT_EQ(kernel(one.data()), GNNRT_OK);
    gnnrt_cpu_set_num_threads(2);
    ASSERT_EQ(kernel(two.data()), GNNRT_OK);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), size * sizeof(float)), 0);
  }

  const ref::Graph graph = hubbyGraph();
  const CsrGraph csr = toCsr(graph);
  const gnnrt_graph view = csr.view();
  const int64_t E = graph.numEdges();
};

TEST_F(Determinism, AggregationKernels) {
  ASSERT_EQ(gnnrt_graph_check(&view), GNNRT_OK);
  std::vector<float> x = toF32(randomF32({N, D}, 1));
  std::vector<float> q = toF32(randomQuarters({N, D}, 2));
  std::vector<float> w = toF32(randomF32({E, H}, 3));
  std::vector<float> s = toF32(randomF32({E, H}, 4, -6, 6));
  std::vector<float> dy = toF32(randomF32({N, D}, 5));
  std::vector<float> es = toF32(randomF32({E, D}, 6));
  const gnnrt_graph t = gnnrt_graph_transposed(view);
  const size_t nd = N * D, eh = E * H;

  expectSameBits("spmm sum, per-head weights", nd, [&](float *y) {
    return gnnrt_cpu_spmm(&view, GNNRT_AGGR_SUM, x.data(), D, w.data(), H, y);
  });
  expectSameBits("spmm mean over the transpose", nd, [&](float *y) {
    return gnnrt_cpu_spmm(&t, GNNRT_AGGR_MEAN, x.data(), D, nullptr, 0, y);
  });
  expectSameBits("spmm max", nd, [&](float *y) {
    return gnnrt_cpu_spmm(&view, GNNRT_AGGR_MAX, q.data(), D, nullptr, 0, y);
  });
  expectSameBits("spmm_max_grad", nd, [&](float *dx) {
    return gnnrt_cpu_spmm_max_grad(&view, q.data(), dy.data(), D, dx);
  });
  expectSameBits("sddmm", eh, [&](float *y) {
    return gnnrt_cpu_sddmm(&view, x.data(), dy.data(), D, H, y);
  });
  expectSameBits("scatter src", nd, [&](float *y) {
    return gnnrt_cpu_scatter(&view, GNNRT_END_SRC, es.data(), D, y);
  });
  std::vector<float> soft(eh);
  ASSERT_EQ(gnnrt_cpu_edge_softmax(&view, s.data(), H, soft.data()), GNNRT_OK);
  expectSameBits("edge_softmax", eh, [&](float *y) {
    return gnnrt_cpu_edge_softmax(&view, s.data(), H, y);
  });
  expectSameBits("edge_softmax_grad", eh, [&](float *dx) {
    return gnnrt_cpu_edge_softmax_grad(&view, soft.data(), w.data(), H, dx);
  });
}

TEST_F(Determinism, ReductionsAcrossRows) {
  std::vector<float> x = toF32(randomF32({N, D}, 7, 1, 3));
  std::vector<float> dy = toF32(randomF32({N, D}, 8));
  expectSameBits("reduce sum dim 0", D, [&](float *y) {
    return gnnrt_cpu_reduce(GNNRT_REDUCE_SUM, x.data(), N, D, 0, y);
  });
  expectSameBits("normalize dim 0", N * D, [&](float *y) {
    return gnnrt_cpu_normalize(x.data(), N, D, 0, 1e-5, y);
  });
  expectSameBits("normalize_grad dim 0", N * D, [&](float *dx) {
    return gnnrt_cpu_normalize_grad(x.data(), dy.data(), N, D, 0, 1e-5, dx);
  });

  std::vector<float> logits = toF32(randomF32({N, C}, 9, -3, 3));
  std::vector<int32_t> labels(N);
  std::vector<uint8_t> mask(N);
  for (int64_t i = 0; i < N; ++i) {
    labels[i] = static_cast<int32_t>((i * 7919) % C);
    mask[i] = i % 3 != 0;
  }
  expectSameBits("cross_entropy", 1, [&](float *loss) {
    return gnnrt_cpu_cross_entropy(logits.data(), labels.data(), mask.data(), N,
                                   C, 0.1, GNNRT_CLASS_WEIGHTS_BALANCED, loss);
  });
}

// OpenBLAS on its own threads split the sum of a weight gradient's shape
// (A^T B with k the node count) and changed its bits with the thread count;
// gnnrt_cpu_matmul now deals out fixed row blocks of single-threaded calls.
// GCN's three product shapes, at Facebook's size (22470 nodes) so that
// every one is worth a thread team.
TEST_F(Determinism, DenseProducts) {
  constexpr int64_t Nodes = 22470, Hidden = 64, Classes = 4;
  std::vector<float> h = toF32(randomF32({Nodes, Hidden}, 10));
  std::vector<float> g = toF32(randomF32({Nodes, Classes}, 11));
  std::vector<float> w = toF32(randomF32({Hidden, Classes}, 12));
  expectSameBits("weight gradient h^T g", Hidden * Classes, [&](float *c) {
    return gnnrt_cpu_matmul(h.data(), g.data(), Hidden, Classes, Nodes, 1, 0,
                            c);
  });
  expectSameBits("h w", Nodes * Classes, [&](float *c) {
    return gnnrt_cpu_matmul(h.data(), w.data(), Nodes, Classes, Hidden, 0, 0,
                            c);
  });
  expectSameBits("input gradient g w^T", Nodes * Hidden, [&](float *c) {
    return gnnrt_cpu_matmul(g.data(), w.data(), Nodes, Hidden, Classes, 0, 1,
                            c);
  });
}

} // namespace
