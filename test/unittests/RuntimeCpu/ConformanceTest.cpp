//===- ConformanceTest.cpp - Every CPU kernel against the interpreter -----===//
//
// One test per primitive: a one-op function parsed from text runs in the
// fp64 reference interpreter on random fp32-representable inputs, the kernel
// runs on the same inputs in fp32, and the two agree within kRtol of the
// result's scale (CpuTestUtil.h says why). Dropout and init must agree
// exactly: their masks and draws are the Philox bits, and their one
// arithmetic step is done in double and rounded once.
//
// The graph has isolated nodes and nodes without outgoing edges, its edge
// ids are shuffled, and its CSR rows list slots by decreasing edge id, so
// no kernel can lean on an order the ABI does not promise.
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"

#include <cmath>
#include <cstdio>

using namespace gnnrt::cpu::test;

namespace {

class Conformance : public KernelTest {
protected:
  static constexpr int64_t N = 37, D = 12, H = 3;

  const ref::Graph graph = ref::randomGraph(N, 6, 11);
  const CsrGraph csr = toCsr(graph);
  const gnnrt_graph view = csr.view();
  const int64_t E = graph.numEdges();
  const std::string G = graphType(N, E);
  const std::string nodeT = tensorType({N, D});

  /// `func.func @f(<params>) -> <result> { <body> return %y }`.
  static std::string fn(const std::string &params, const std::string &result,
                        const std::string &body) {
    return "func.func @f(" + params + ") -> " + result + " {\n  " + body +
           "\n  return %y : " + result + "\n}\n";
  }
  /// A one-op function of the graph and node tensors.
  std::string graphFn(const std::string &extraParams, const std::string &result,
                      const std::string &op) {
    return fn("%g: " + G + extraParams, result, op);
  }
};

//===----------------------------------------------------------------------===//
// The fixture itself
//===----------------------------------------------------------------------===//

TEST_F(Conformance, FixtureGraphHasTheEdgeCasesAndIsWellFormed) {
  int isolated = 0, sinks = 0;
  for (int64_t i = 0; i < N; ++i) {
    isolated += csr.inPtr[i + 1] == csr.inPtr[i];
    sinks += csr.outPtr[i + 1] == csr.outPtr[i];
  }
  EXPECT_GT(isolated, 0) << "no node without incoming edges";
  EXPECT_GT(sinks, 0) << "no node without outgoing edges";
  EXPECT_GT(E, 2 * N);
  EXPECT_EQ(gnnrt_graph_check(&view), GNNRT_OK);
  gnnrt_graph t = gnnrt_graph_transposed(view);
  EXPECT_EQ(gnnrt_graph_check(&t), GNNRT_OK);
}

TEST_F(Conformance, AddSelfLoopsBuildsBothViewsOfAPlusI) {
  int64_t size = gnnrt_cpu_add_self_loops_storage(N, E);
  ASSERT_EQ(size, 2 * (N + 1 + 2 * (E + N)));
  EXPECT_EQ(gnnrt_cpu_add_self_loops_storage(-1, E), -1);
  std::vector<int32_t> storage(static_cast<size_t>(size), -7);
  gnnrt_graph looped{};
  ASSERT_EQ(gnnrt_cpu_add_self_loops(&view, storage.data(), &looped), GNNRT_OK);
  EXPECT_EQ(looped.num_nodes, N);
  EXPECT_EQ(looped.num_edges, E + N);
  EXPECT_EQ(gnnrt_graph_check(&looped), GNNRT_OK);
  // Every storage element written, in the documented order.
  EXPECT_EQ(looped.in.indptr, storage.data());
  EXPECT_EQ(looped.out.edge_id + (E + N), storage.data() + size);
  for (int32_t v : storage)
    ASSERT_NE(v, -7);
  // Same edges as the reference's A + I: aggregating over both views agrees.
  ref::Graph want = withSelfLoops(graph);
  ref::Tensor x = randomF32({N, D}, 5);
  std::vector<float> xf = toF32(x);
  std::string G1 = graphType(N, E + N);
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "in");
    std::string op = transposed ? "%t = gnn.transpose %g1 : " + G1 +
                                      "\n  %y = gnn.spmm sum %t, %x : (" + G1 +
                                      ", " + nodeT + ") -> " + nodeT
                                : "%y = gnn.spmm sum %g1, %x : (" + G1 + ", " +
                                      nodeT + ") -> " + nodeT;
    std::vector<ref::Value> r =
        reference(fn("%g1: " + G1 + ", %x: " + nodeT, nodeT, op), {want, x});
    ASSERT_EQ(r.size(), 1u);
    gnnrt_graph g = transposed ? gnnrt_graph_transposed(looped) : looped;
    std::vector<float> y(N * D);
    ASSERT_EQ(
        gnnrt_cpu_spmm(&g, GNNRT_AGGR_SUM, xf.data(), D, nullptr, 1, y.data()),
        GNNRT_OK);
    EXPECT_TRUE(closeTo(y, r[0]));
  }
  // Without the out view, only `in` is built.
  gnnrt_graph inOnly = view;
  inOnly.out = gnnrt_csr{nullptr, nullptr, nullptr};
  ASSERT_EQ(gnnrt_cpu_add_self_loops(&inOnly, storage.data(), &looped),
            GNNRT_OK);
  EXPECT_EQ(looped.out.indptr, nullptr);
  EXPECT_EQ(gnnrt_graph_check(&looped), GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_add_self_loops(nullptr, storage.data(), &looped),
            GNNRT_ERR_NULL_POINTER);
}

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

TEST_F(Conformance, SpmmSumMeanMaxWithoutWeights) {
  ref::Tensor x = randomQuarters({N, D}, 1);
  std::vector<float> xf = toF32(x);
  const char *names[] = {"sum", "mean", "max"};
  for (int aggr = GNNRT_AGGR_SUM; aggr <= GNNRT_AGGR_MAX; ++aggr) {
    SCOPED_TRACE(names[aggr]);
    auto want = reference(graphFn(", %x: " + nodeT, nodeT,
                                  "%y = gnn.spmm " + std::string(names[aggr]) +
                                      " %g, %x : (" + G + ", " + nodeT +
                                      ") -> " + nodeT),
                          {graph, x});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_spmm(&view, aggr, xf.data(), D, nullptr, 0, y.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(y, want[0]));
  }
}

TEST_F(Conformance, SpmmWithEdgeAndPerHeadWeights) {
  ref::Tensor x = randomF32({N, D}, 2);
  std::vector<float> xf = toF32(x);
  for (int64_t heads : {int64_t(0), int64_t(1), H}) {
    // heads = 0 stands for a [E] weight vector.
    std::vector<int64_t> wShape =
        heads == 0 ? std::vector<int64_t>{E} : std::vector<int64_t>{E, heads};
    ref::Tensor w = randomF32(wShape, 3 + heads, 0, 2);
    std::vector<float> wf = toF32(w);
    std::string wT = tensorType(wShape);
    for (int aggr : {GNNRT_AGGR_SUM, GNNRT_AGGR_MEAN}) {
      SCOPED_TRACE("heads " + std::to_string(heads) + ", aggr " +
                   std::to_string(aggr));
      auto want =
          reference(graphFn(", %x: " + nodeT + ", %w: " + wT, nodeT,
                            std::string("%y = gnn.spmm ") +
                                (aggr == GNNRT_AGGR_SUM ? "sum" : "mean") +
                                " %g, %x, %w : (" + G + ", " + nodeT + ", " +
                                wT + ") -> " + nodeT),
                    {graph, x, w});
      ASSERT_EQ(want.size(), 1u);
      std::vector<float> y(N * D, NAN);
      ASSERT_EQ(gnnrt_cpu_spmm(&view, aggr, xf.data(), D, wf.data(),
                               heads == 0 ? 1 : heads, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(closeTo(y, want[0]));
    }
  }
}

TEST_F(Conformance, SpmmOverTheTransposeReadsTheOtherView) {
  ref::Tensor x = randomF32({N, D}, 4);
  ref::Tensor w = randomF32({E, H}, 5);
  std::vector<float> xf = toF32(x), wf = toF32(w);
  std::string wT = tensorType({E, H});
  auto want =
      reference(graphFn(", %x: " + nodeT + ", %w: " + wT, nodeT,
                        "%t = gnn.transpose %g : " + G +
                            "\n  %y = gnn.spmm sum %t, %x, " + "%w : (" + G +
                            ", " + nodeT + ", " + wT + ") -> " + nodeT),
                {graph, x, w});
  ASSERT_EQ(want.size(), 1u);
  gnnrt_graph t = gnnrt_graph_transposed(view);
  std::vector<float> y(N * D, NAN);
  ASSERT_EQ(
      gnnrt_cpu_spmm(&t, GNNRT_AGGR_SUM, xf.data(), D, wf.data(), H, y.data()),
      GNNRT_OK);
  EXPECT_TRUE(closeTo(y, want[0]));
}

TEST_F(Conformance, SpmmMaxGradBreaksTiesByLowestEdgeId) {
  // Quarters in [-1, 1] take 9 values, so most maxima over several
  // neighbours are tied; the CSR lists slots by decreasing id.
  ref::Tensor x = randomQuarters({N, D}, 6);
  ref::Tensor dy = randomF32({N, D}, 7);
  std::vector<float> xf = toF32(x), dyf = toF32(dy);
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transposed" : "forward");
    std::string body =
        std::string(transposed ? "%t = gnn.transpose %g : " + G + "\n  " : "") +
        "%y = gnn.spmm_max_grad " + (transposed ? "%t" : "%g") +
        ", %x, %dy : (" + G + ", " + nodeT + ", " + nodeT + ") -> " + nodeT;
    auto want =
        reference(graphFn(", %x: " + nodeT + ", %dy: " + nodeT, nodeT, body),
                  {graph, x, dy});
    ASSERT_EQ(want.size(), 1u);
    gnnrt_graph g = transposed ? gnnrt_graph_transposed(view) : view;
    std::vector<float> dx(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_spmm_max_grad(&g, xf.data(), dyf.data(), D, dx.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(dx, want[0]));
  }
}

TEST_F(Conformance, SddmmOneAndSeveralHeads) {
  ref::Tensor a = randomF32({N, D}, 8), b = randomF32({N, D}, 9);
  std::vector<float> af = toF32(a), bf = toF32(b);
  for (int64_t heads : {int64_t(1), H, D}) {
    for (bool transposed : {false, true}) {
      SCOPED_TRACE("heads " + std::to_string(heads) +
                   (transposed ? ", transposed" : ""));
      std::string yT = tensorType({E, heads});
      std::string body =
          std::string(transposed ? "%t = gnn.transpose %g : " + G + "\n  "
                                 : "") +
          "%y = gnn.sddmm " + (transposed ? "%t" : "%g") +
          ", %a, %b {heads = " + std::to_string(heads) + " : i64} : (" + G +
          ", " + nodeT + ", " + nodeT + ") -> " + yT;
      auto want =
          reference(graphFn(", %a: " + nodeT + ", %b: " + nodeT, yT, body),
                    {graph, a, b});
      ASSERT_EQ(want.size(), 1u);
      gnnrt_graph g = transposed ? gnnrt_graph_transposed(view) : view;
      std::vector<float> y(E * heads, NAN);
      ASSERT_EQ(gnnrt_cpu_sddmm(&g, af.data(), bf.data(), D, heads, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(closeTo(y, want[0]));
    }
  }
}

TEST_F(Conformance, GatherAndScatterAtBothEnds) {
  ref::Tensor x = randomF32({N, D}, 10);
  ref::Tensor ex = randomF32({E, D}, 11);
  std::vector<float> xf = toF32(x), exf = toF32(ex);
  std::string edgeT = tensorType({E, D});
  for (int end : {GNNRT_END_SRC, GNNRT_END_DST}) {
    std::string name = end == GNNRT_END_SRC ? "src" : "dst";
    SCOPED_TRACE(name);
    auto gathered =
        reference(graphFn(", %x: " + nodeT, edgeT,
                          "%y = gnn.gather " + name + " %g, %x : (" + G + ", " +
                              nodeT + ") -> " + edgeT),
                  {graph, x});
    ASSERT_EQ(gathered.size(), 1u);
    std::vector<float> y(E * D, NAN);
    ASSERT_EQ(gnnrt_cpu_gather(&view, end, xf.data(), D, y.data()), GNNRT_OK);
    // A copy: exact.
    EXPECT_TRUE(roundedEqual(y, gathered[0]));

    auto scattered =
        reference(graphFn(", %x: " + edgeT, nodeT,
                          "%y = gnn.scatter " + name + " %g, %x : (" + G +
                              ", " + edgeT + ") -> " + nodeT),
                  {graph, ex});
    ASSERT_EQ(scattered.size(), 1u);
    std::vector<float> s(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_scatter(&view, end, exf.data(), D, s.data()), GNNRT_OK);
    EXPECT_TRUE(closeTo(s, scattered[0]));
  }
}

TEST_F(Conformance, EdgeAddEqualsTwoGathersAdded) {
  ref::Tensor a = randomF32({N, D}, 14), b = randomF32({N, D}, 15);
  std::vector<float> af = toF32(a), bf = toF32(b);
  std::string edgeT = tensorType({E, D});
  auto want = reference(graphFn(", %a: " + nodeT + ", %b: " + nodeT, edgeT,
                                "%y = gnn.edge_add %g, %a, %b : (" + G + ", " +
                                    nodeT + ", " + nodeT + ") -> " + edgeT),
                        {graph, a, b});
  ASSERT_EQ(want.size(), 1u);
  std::vector<float> y(E * D, NAN);
  ASSERT_EQ(gnnrt_cpu_edge_add(&view, af.data(), bf.data(), D, y.data()),
            GNNRT_OK);
  // One f32 add of f32 values: the f64 reference rounded to f32 is exact.
  EXPECT_TRUE(roundedEqual(y, want[0]));

  // And the kernel it replaced, bit for bit: gather both ends, then add.
  std::vector<float> ys(E * D), yd(E * D);
  ASSERT_EQ(gnnrt_cpu_gather(&view, GNNRT_END_SRC, af.data(), D, ys.data()),
            GNNRT_OK);
  ASSERT_EQ(gnnrt_cpu_gather(&view, GNNRT_END_DST, bf.data(), D, yd.data()),
            GNNRT_OK);
  for (size_t i = 0; i < y.size(); ++i)
    ASSERT_EQ(y[i], ys[i] + yd[i]) << "element " << i;
}

TEST_F(Conformance, EdgeSoftmaxAndItsGradient) {
  // Scores up to +-8 so that the maximum shift matters.
  ref::Tensor s = randomF32({E, H}, 12, -8, 8);
  ref::Tensor dy = randomF32({E, H}, 13);
  std::string eT = tensorType({E, H});
  auto want = reference(graphFn(", %s: " + eT, eT,
                                "%y = gnn.edge_softmax %g, %s : (" + G + ", " +
                                    eT + ") -> " + eT),
                        {graph, s});
  ASSERT_EQ(want.size(), 1u);
  std::vector<float> sf = toF32(s), y(E * H, NAN);
  ASSERT_EQ(gnnrt_cpu_edge_softmax(&view, sf.data(), H, y.data()), GNNRT_OK);
  EXPECT_TRUE(closeTo(y, want[0]));
  // In place gives the same bits.
  std::vector<float> inPlace = sf;
  ASSERT_EQ(gnnrt_cpu_edge_softmax(&view, inPlace.data(), H, inPlace.data()),
            GNNRT_OK);
  EXPECT_EQ(inPlace, y);

  // The gradient from the reference's own softmax output, rounded to fp32.
  ref::Tensor yRef = std::get<ref::Tensor>(want[0]);
  for (double &v : yRef.data)
    v = static_cast<float>(v);
  auto wantGrad =
      reference(graphFn(", %o: " + eT + ", %dy: " + eT, eT,
                        "%y = gnn.edge_softmax_grad %g, %o, %dy : (" + G +
                            ", " + eT + ", " + eT + ") -> " + eT),
                {graph, yRef, dy});
  ASSERT_EQ(wantGrad.size(), 1u);
  std::vector<float> yf = toF32(yRef), dyf = toF32(dy), dx(E * H, NAN);
  ASSERT_EQ(
      gnnrt_cpu_edge_softmax_grad(&view, yf.data(), dyf.data(), H, dx.data()),
      GNNRT_OK);
  EXPECT_TRUE(closeTo(dx, wantGrad[0]));
  // In place over either operand (the planner gives the result whichever
  // dies at the op, passes/MemoryPlan/Liveness.h inPlaceReads): the same
  // bits as into a buffer of its own.
  std::vector<float> overY = yf;
  ASSERT_EQ(gnnrt_cpu_edge_softmax_grad(&view, overY.data(), dyf.data(), H,
                                        overY.data()),
            GNNRT_OK);
  EXPECT_EQ(overY, dx);
  ASSERT_EQ(
      gnnrt_cpu_edge_softmax_grad(&view, yf.data(), dyf.data(), H, dyf.data()),
      GNNRT_OK);
  EXPECT_EQ(dyf, dx);
}

TEST_F(Conformance, EdgeNormsWithAndWithoutSelfLoops) {
  ref::Graph looped = withSelfLoops(graph);
  CsrGraph loopedCsr = toCsr(looped);
  for (bool loops : {false, true}) {
    for (int kind : {GNNRT_NORM_SYMMETRIC, GNNRT_NORM_MEAN}) {
      std::string name = kind == GNNRT_NORM_SYMMETRIC ? "symmetric" : "mean";
      SCOPED_TRACE(name + (loops ? " with self loops" : ""));
      int64_t edges = loops ? E + N : E;
      std::string wT = tensorType({edges});
      std::string body =
          loops ? "%s = gnn.add_self_loops %g : " + G + " -> " +
                      graphType(N, edges) + "\n  %y = gnn.edge_norm " + name +
                      " %s : " + graphType(N, edges) + " -> " + wT
                : "%y = gnn.edge_norm " + name + " %g : " + G + " -> " + wT;
      auto want = reference(graphFn("", wT, body), {graph});
      ASSERT_EQ(want.size(), 1u);
      gnnrt_graph g = loops ? loopedCsr.view() : view;
      std::vector<float> w(edges, NAN);
      ASSERT_EQ(gnnrt_cpu_edge_norm(&g, kind, w.data()), GNNRT_OK);
      // Computed in double as the reference does, then rounded once.
      EXPECT_TRUE(roundedEqual(w, want[0]));
    }
  }
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

TEST_F(Conformance, MatmulWithEveryTranspose) {
  const int64_t m = 13, k = 9, n = 7;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE("transpose_a " + std::to_string(ta) + ", transpose_b " +
                   std::to_string(tb));
      std::vector<int64_t> aShape =
          ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
      std::vector<int64_t> bShape =
          tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
      ref::Tensor a = randomF32(aShape, 20 + ta),
                  b = randomF32(bShape, 22 + tb);
      std::string attrs;
      if (ta || tb)
        attrs = std::string(" {") + (ta ? "transpose_a" : "") +
                (ta && tb ? ", " : "") + (tb ? "transpose_b" : "") + "}";
      std::string aT = tensorType(aShape), bT = tensorType(bShape),
                  yT = tensorType({m, n});
      auto want = reference(fn("%a: " + aT + ", %b: " + bT, yT,
                               "%y = gnn.matmul %a, %b" + attrs + " : (" + aT +
                                   ", " + bT + ") -> " + yT),
                            {a, b});
      ASSERT_EQ(want.size(), 1u);
      std::vector<float> af = toF32(a), bf = toF32(b), y(m * n, NAN);
      ASSERT_EQ(
          gnnrt_cpu_matmul(af.data(), bf.data(), m, n, k, ta, tb, y.data()),
          GNNRT_OK);
      EXPECT_TRUE(closeTo(y, want[0]));
    }
}

TEST_F(Conformance, BiasAddAndRowMul) {
  ref::Tensor x = randomF32({N, D}, 30), v = randomF32({D}, 31);
  std::string vT = tensorType({D});
  std::vector<float> xf = toF32(x), vf = toF32(v);
  for (const char *op : {"bias_add", "row_mul"}) {
    SCOPED_TRACE(op);
    auto want = reference(fn("%x: " + nodeT + ", %v: " + vT, nodeT,
                             "%y = gnn." + std::string(op) + " %x, %v : (" +
                                 nodeT + ", " + vT + ") -> " + nodeT),
                          {x, v});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y = xf; // in place
    auto kernel =
        std::string(op) == "bias_add" ? gnnrt_cpu_bias_add : gnnrt_cpu_row_mul;
    ASSERT_EQ(kernel(y.data(), vf.data(), N, D, y.data()), GNNRT_OK);
    EXPECT_TRUE(closeTo(y, want[0]));
  }
}

TEST_F(Conformance, ReduceEveryKindAlongBothDims) {
  ref::Tensor x = randomF32({N, D}, 32);
  std::vector<float> xf = toF32(x);
  const char *names[] = {"sum", "mean", "max"};
  for (int kind = GNNRT_REDUCE_SUM; kind <= GNNRT_REDUCE_MAX; ++kind)
    for (int dim = 0; dim < 2; ++dim) {
      SCOPED_TRACE(std::string(names[kind]) + " dim " + std::to_string(dim));
      int64_t kept = dim == 0 ? D : N;
      std::string yT = tensorType({kept});
      auto want = reference(fn("%x: " + nodeT, yT,
                               "%y = gnn.reduce " + std::string(names[kind]) +
                                   " %x {dim = " + std::to_string(dim) +
                                   " : i64} : " + nodeT + " -> " + yT),
                            {x});
      ASSERT_EQ(want.size(), 1u);
      std::vector<float> y(kept, NAN);
      ASSERT_EQ(gnnrt_cpu_reduce(kind, xf.data(), N, D, dim, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(closeTo(y, want[0]));
    }
}

TEST_F(Conformance, HeadMatrixAndZeros) {
  for (auto [kind, name] : {std::pair{GNNRT_HEADS_SUM, "sum"},
                            {GNNRT_HEADS_MEAN, "mean"},
                            {GNNRT_HEADS_SPREAD, "spread"}}) {
    SCOPED_TRACE(name);
    std::vector<int64_t> shape = {H * 4, kind == GNNRT_HEADS_MEAN ? 4 : H};
    if (kind == GNNRT_HEADS_SPREAD)
      std::swap(shape[0], shape[1]);
    std::string yT = tensorType(shape);
    auto want = reference(fn("", yT,
                             std::string("%y = gnn.head_matrix ") + name +
                                 " {heads = " + std::to_string(H) +
                                 " : i64, width = 4 : i64} : " + yT),
                          {});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y(shape[0] * shape[1], NAN);
    ASSERT_EQ(gnnrt_cpu_head_matrix(kind, H, 4, y.data()), GNNRT_OK);
    EXPECT_TRUE(roundedEqual(y, want[0]));
  }
  auto zeros = reference(fn("", nodeT, "%y = gnn.zeros : " + nodeT), {});
  ASSERT_EQ(zeros.size(), 1u);
  std::vector<float> z(N * D, NAN);
  ASSERT_EQ(gnnrt_cpu_zeros(z.data(), N * D), GNNRT_OK);
  EXPECT_TRUE(roundedEqual(z, zeros[0]));
}

TEST_F(Conformance, ConcatAndSlice) {
  ref::Tensor a = randomF32({N, 3}, 33), b = randomF32({N, 5}, 34),
              c = randomF32({N, 4}, 35);
  std::string aT = tensorType({N, 3}), bT = tensorType({N, 5}),
              cT = tensorType({N, 4});
  auto want = reference(fn("%a: " + aT + ", %b: " + bT + ", %c: " + cT, nodeT,
                           "%y = gnn.concat %a, %b, %c : (" + aT + ", " + bT +
                               ", " + cT + ") -> " + nodeT),
                        {a, b, c});
  ASSERT_EQ(want.size(), 1u);
  std::vector<float> af = toF32(a), bf = toF32(b), cf = toF32(c), y(N * D, NAN);
  const float *inputs[] = {af.data(), bf.data(), cf.data()};
  const int64_t widths[] = {3, 5, 4};
  ASSERT_EQ(gnnrt_cpu_concat(inputs, widths, 3, N, y.data()), GNNRT_OK);
  EXPECT_TRUE(roundedEqual(y, want[0]));

  ref::Tensor x = randomF32({N, D}, 36);
  auto sliced = reference(
      fn("%x: " + nodeT, bT,
         "%y = gnn.slice %x {offset = 3 : i64} : " + nodeT + " -> " + bT),
      {x});
  ASSERT_EQ(sliced.size(), 1u);
  std::vector<float> xf = toF32(x), s(N * 5, NAN);
  ASSERT_EQ(gnnrt_cpu_slice(xf.data(), N, D, 3, 5, s.data()), GNNRT_OK);
  EXPECT_TRUE(roundedEqual(s, sliced[0]));
}

TEST_F(Conformance, InsertColumnsInPlaceAndNot) {
  // The block of gnn-split-aggregations' rewrite, written over its matrix
  // (y == x, the planner's use) and into another buffer.
  ref::Tensor x = randomF32({N, D}, 39), block = randomF32({N, 5}, 40);
  std::string bT = tensorType({N, 5});
  auto want = reference(fn("%b: " + bT + ", %x: " + nodeT, nodeT,
                           "%y = gnn.insert_columns %b into %x {offset = 3 : "
                           "i64} : " +
                               bT + " into " + nodeT),
                        {block, x});
  ASSERT_EQ(want.size(), 1u);
  std::vector<float> xf = toF32(x), bf = toF32(block), y(N * D, NAN);
  ASSERT_EQ(
      gnnrt_cpu_insert_columns(xf.data(), bf.data(), N, D, 3, 5, y.data()),
      GNNRT_OK);
  EXPECT_TRUE(roundedEqual(y, want[0]));
  ASSERT_EQ(
      gnnrt_cpu_insert_columns(xf.data(), bf.data(), N, D, 3, 5, xf.data()),
      GNNRT_OK);
  EXPECT_TRUE(roundedEqual(xf, want[0]));
}

TEST_F(Conformance, NormalizeAndItsGradientAlongBothDims) {
  // An offset mean makes the centring matter.
  ref::Tensor x = randomF32({N, D}, 37, 2, 5), dy = randomF32({N, D}, 38);
  std::vector<float> xf = toF32(x), dyf = toF32(dy);
  for (int dim = 0; dim < 2; ++dim) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    std::string attrs = " {dim = " + std::to_string(dim) +
                        " : i64, eps = 1.0e-05 : f64} : " + nodeT;
    auto want = reference(
        fn("%x: " + nodeT, nodeT, "%y = gnn.normalize %x" + attrs), {x});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_normalize(xf.data(), N, D, dim, 1e-5, y.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(y, want[0]));

    auto wantGrad = reference(fn("%x: " + nodeT + ", %dy: " + nodeT, nodeT,
                                 "%y = gnn.normalize_grad %x, %dy" + attrs),
                              {x, dy});
    ASSERT_EQ(wantGrad.size(), 1u);
    std::vector<float> dx(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_normalize_grad(xf.data(), dyf.data(), N, D, dim, 1e-5,
                                       dx.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(dx, wantGrad[0]));
    // In place over dy.
    std::vector<float> inPlace = dyf;
    ASSERT_EQ(gnnrt_cpu_normalize_grad(xf.data(), inPlace.data(), N, D, dim,
                                       1e-5, inPlace.data()),
              GNNRT_OK);
    EXPECT_EQ(inPlace, dx);
  }
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

TEST_F(Conformance, AddSubMulScale) {
  ref::Tensor a = randomF32({N, D}, 40), b = randomF32({N, D}, 41);
  std::vector<float> af = toF32(a), bf = toF32(b);
  struct Case {
    const char *name;
    int (*kernel)(const float *, const float *, int64_t, float *);
  } cases[] = {
      {"add", gnnrt_cpu_add}, {"sub", gnnrt_cpu_sub}, {"mul", gnnrt_cpu_mul}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    auto want =
        reference(fn("%a: " + nodeT + ", %b: " + nodeT, nodeT,
                     "%y = gnn." + std::string(c.name) + " %a, %b : " + nodeT),
                  {a, b});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y(N * D, NAN);
    ASSERT_EQ(c.kernel(af.data(), bf.data(), N * D, y.data()), GNNRT_OK);
    EXPECT_TRUE(closeTo(y, want[0]));
  }
  auto want = reference(fn("%a: " + nodeT, nodeT,
                           "%y = gnn.scale %a {factor = 0.3 : f64} : " + nodeT),
                        {a});
  ASSERT_EQ(want.size(), 1u);
  std::vector<float> y(N * D, NAN);
  ASSERT_EQ(gnnrt_cpu_scale(af.data(), N * D, 0.3, y.data()), GNNRT_OK);
  // The product is taken in double and rounded once.
  EXPECT_TRUE(roundedEqual(y, want[0]));
}

TEST_F(Conformance, EveryActivationAndItsGradient) {
  // [-4, 4] reaches the saturated ends; exact zeros sit on the kinks, where
  // the gradient is the left derivative.
  ref::Tensor x = randomF32({N, D}, 42, -4, 4), dy = randomF32({N, D}, 43);
  for (int64_t i = 0; i < N * D; i += 17)
    x.data[i] = 0;
  std::vector<float> xf = toF32(x), dyf = toF32(dy);
  const char *names[] = {"relu", "leaky_relu", "elu",
                         "gelu", "sigmoid",    "tanh"};
  for (int kind = GNNRT_ACT_RELU; kind <= GNNRT_ACT_TANH; ++kind) {
    SCOPED_TRACE(names[kind]);
    std::string attrs = " {slope = 2.0e-01 : f64} : " + nodeT;
    auto want = reference(
        fn("%x: " + nodeT, nodeT,
           "%y = gnn.activation " + std::string(names[kind]) + " %x" + attrs),
        {x});
    ASSERT_EQ(want.size(), 1u);
    std::vector<float> y(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_activation(kind, xf.data(), N * D, 0.2, y.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(y, want[0]));

    auto wantGrad =
        reference(fn("%x: " + nodeT + ", %dy: " + nodeT, nodeT,
                     "%y = gnn.activation_grad " + std::string(names[kind]) +
                         " %x, %dy" + attrs),
                  {x, dy});
    ASSERT_EQ(wantGrad.size(), 1u);
    std::vector<float> dx(N * D, NAN);
    ASSERT_EQ(gnnrt_cpu_activation_grad(kind, xf.data(), dyf.data(), N * D, 0.2,
                                        dx.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(dx, wantGrad[0]));
  }
}

TEST_F(Conformance, DropoutMatchesTheInterpreterExactly) {
  // 37 x 13 = 481 elements: the last Philox block is partial. The seed
  // exceeds 2^32 so both key words matter.
  const int64_t seed = (int64_t(5) << 32) | 17, step = 9;
  const std::vector<int64_t> shape = {N, 13};
  ref::Tensor x = randomF32(shape, 44);
  std::string xT = tensorType(shape);
  std::vector<float> xf = toF32(x);
  for (double p : {0.0, 0.3, 0.75}) {
    for (int64_t stream : {0, 6}) {
      SCOPED_TRACE("p " + std::to_string(p) + ", stream " +
                   std::to_string(stream));
      char pText[32];
      std::snprintf(pText, sizeof(pText), "%.17e", p);
      auto want = reference(
          fn("%x: " + xT + ", %seed: i64, %step: i64", xT,
             "%k = gnn.rng_key %seed, %step\n  %y = gnn.dropout %x, %k {p = " +
                 std::string(pText) + " : f64, stream = " +
                 std::to_string(stream) + " : i64} : " + xT),
          {x, seed, step});
      ASSERT_EQ(want.size(), 1u);
      std::vector<float> y = xf; // in place
      ASSERT_EQ(
          gnnrt_cpu_dropout(y.data(), N * 13, seed, step, stream, p, y.data()),
          GNNRT_OK);
      EXPECT_TRUE(roundedEqual(y, want[0]));
      int dropped = 0;
      for (float v : y)
        dropped += v == 0.0f;
      if (p > 0) {
        EXPECT_GT(dropped, 0);
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// train
//===----------------------------------------------------------------------===//

TEST_F(Conformance, CrossEntropyAndItsGradient) {
  const int64_t C = 5;
  ref::Tensor logits = randomF32({N, C}, 50, -3, 3);
  ref::IntTensor labels, mask;
  labels.shape = mask.shape = {N};
  std::vector<int32_t> labelsI(N);
  std::vector<uint8_t> maskB(N);
  for (int64_t i = 0; i < N; ++i) {
    // Some nodes unlabelled (-1), some masked out, class 4 rare.
    int64_t y = i % 7 == 3 ? -1 : (i * 5 + 2) % (i % 3 ? 4 : 5);
    labels.data.push_back(y);
    mask.data.push_back(i % 4 != 1);
    labelsI[i] = static_cast<int32_t>(y);
    maskB[i] = static_cast<uint8_t>(i % 4 != 1);
  }
  std::string lT = tensorType({N, C}),
              yT = "tensor<" + std::to_string(N) + "xi32>",
              mT = "tensor<" + std::to_string(N) + "xi1>";
  std::vector<float> lf = toF32(logits);
  for (double s : {0.0, 0.1}) {
    for (int weights :
         {GNNRT_CLASS_WEIGHTS_NONE, GNNRT_CLASS_WEIGHTS_BALANCED}) {
      SCOPED_TRACE("smoothing " + std::to_string(s) + ", weights " +
                   std::to_string(weights));
      std::string attrs =
          " {label_smoothing = " + std::string(s > 0 ? "0.1" : "0.0") +
          " : f64, class_weights = #train<class_weights " +
          (weights ? "balanced" : "none") + ">}";
      auto want = reference(
          fn("%l: " + lT + ", %lab: " + yT + ", %m: " + mT, "tensor<f32>",
             "%y = train.cross_entropy %l, %lab, %m" + attrs + " : (" + lT +
                 ", " + yT + ", " + mT + ") -> tensor<f32>"),
          {logits, labels, mask});
      ASSERT_EQ(want.size(), 1u);
      float loss = NAN;
      ASSERT_EQ(gnnrt_cpu_cross_entropy(lf.data(), labelsI.data(), maskB.data(),
                                        N, C, s, weights, &loss),
                GNNRT_OK);
      EXPECT_TRUE(closeTo({loss}, want[0]));

      ref::Tensor dl;
      dl.shape = {};
      dl.data = {1.75};
      auto wantGrad = reference(
          fn("%l: " + lT + ", %lab: " + yT + ", %m: " + mT +
                 ", %d: tensor<f32>",
             lT,
             "%y = train.cross_entropy_grad %l, %lab, %m, %d" + attrs + " : (" +
                 lT + ", " + yT + ", " + mT + ", tensor<f32>) -> " + lT),
          {logits, labels, mask, dl});
      ASSERT_EQ(wantGrad.size(), 1u);
      const float dlf = 1.75f;
      std::vector<float> d(N * C, NAN);
      ASSERT_EQ(gnnrt_cpu_cross_entropy_grad(lf.data(), labelsI.data(),
                                             maskB.data(), &dlf, N, C, s,
                                             weights, d.data()),
                GNNRT_OK);
      EXPECT_TRUE(closeTo(d, wantGrad[0]));
    }
  }
}

TEST_F(Conformance, AdamAndAdamW) {
  const std::vector<int64_t> shape = {9, 7};
  const int64_t n = 63;
  std::string t = tensorType(shape);
  ref::Tensor p = randomF32(shape, 60), g = randomF32(shape, 61),
              m = randomF32(shape, 62, -0.1, 0.1),
              v = randomF32(shape, 63, 0, 0.01);
  std::vector<float> pf = toF32(p), gf = toF32(g), mf = toF32(m), vf = toF32(v);
  for (bool decoupled : {false, true}) {
    SCOPED_TRACE(decoupled ? "adamw" : "adam");
    std::string src =
        "func.func @f(%p: " + t + ", %g: " + t + ", %m: " + t + ", %v: " + t +
        ", %t: i64) -> (" + t + ", " + t + ", " + t +
        ") {\n  %p1, %m1, %v1 = train.adam %p, %g, %m, %v, %t {lr = 1.0e-02 : "
        "f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, "
        "weight_decay = 5.0e-02 : f64" +
        (decoupled ? ", decoupled" : "") + "} : " + t +
        "\n  return %p1, %m1, %v1 : " + t + ", " + t + ", " + t + "\n}\n";
    auto want = reference(src, {p, g, m, v, int64_t(3)});
    ASSERT_EQ(want.size(), 3u);
    // In place, as the planner will usually run it.
    std::vector<float> p1 = pf, m1 = mf, v1 = vf;
    ASSERT_EQ(gnnrt_cpu_adam(p1.data(), gf.data(), m1.data(), v1.data(), n, 3,
                             1e-2, 0.9, 0.999, 1e-8, 5e-2, decoupled, p1.data(),
                             m1.data(), v1.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(p1, want[0]));
    EXPECT_TRUE(closeTo(m1, want[1]));
    EXPECT_TRUE(closeTo(v1, want[2]));
  }
}

TEST_F(Conformance, SgdPlainMomentumAndNesterov) {
  const std::vector<int64_t> shape = {9, 7};
  const int64_t n = 63;
  std::string t = tensorType(shape);
  ref::Tensor p = randomF32(shape, 70), g = randomF32(shape, 71),
              b = randomF32(shape, 72);
  std::vector<float> pf = toF32(p), gf = toF32(g), bf = toF32(b);

  auto plain = reference(
      "func.func @f(%p: " + t + ", %g: " + t + ") -> " + t +
          " {\n  %y = train.sgd %p, %g {lr = 0.1 : f64, weight_decay = "
          "1.0e-02 : f64} : (" +
          t + ", " + t + ") -> " + t + "\n  return %y : " + t + "\n}\n",
      {p, g});
  ASSERT_EQ(plain.size(), 1u);
  std::vector<float> y(n, NAN);
  ASSERT_EQ(gnnrt_cpu_sgd(pf.data(), gf.data(), nullptr, n, 0.1, 0.0, 1e-2, 0,
                          y.data(), nullptr),
            GNNRT_OK);
  EXPECT_TRUE(closeTo(y, plain[0]));

  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "momentum");
    auto want =
        reference("func.func @f(%p: " + t + ", %g: " + t + ", %b: " + t +
                      ") -> (" + t + ", " + t +
                      ") {\n  %y, %b1 = train.sgd %p, %g, %b {lr = 0.1 : f64, "
                      "momentum = 0.9 : f64, weight_decay = 1.0e-02 : f64" +
                      (nesterov ? ", nesterov" : "") + "} : (" + t + ", " + t +
                      ", " + t + ") -> (" + t + ", " + t +
                      ")\n  return %y, %b1 : " + t + ", " + t + "\n}\n",
                  {p, g, b});
    ASSERT_EQ(want.size(), 2u);
    std::vector<float> p1 = pf, b1 = bf;
    ASSERT_EQ(gnnrt_cpu_sgd(p1.data(), gf.data(), b1.data(), n, 0.1, 0.9, 1e-2,
                            nesterov, p1.data(), b1.data()),
              GNNRT_OK);
    EXPECT_TRUE(closeTo(p1, want[0]));
    EXPECT_TRUE(closeTo(b1, want[1]));
  }
}

TEST_F(Conformance, InitMatchesTheInterpreterExactly) {
  const int64_t seed = (int64_t(3) << 40) | 99;
  // 13 x 7 = 91 elements: a partial last Philox block.
  const std::vector<int64_t> shape = {13, 7};
  std::string t = tensorType(shape);
  const char *names[] = {"glorot", "kaiming", "zeros", "ones"};
  for (int kind = GNNRT_INIT_GLOROT; kind <= GNNRT_INIT_ONES; ++kind) {
    for (int64_t stream : {0, 4}) {
      SCOPED_TRACE(std::string(names[kind]) + ", stream " +
                   std::to_string(stream));
      auto want = reference(
          fn("%s: i64", t,
             "%y = train.init " + std::string(names[kind]) +
                 " %s {fan_in = 13 : i64, fan_out = 7 : i64, stream = " +
                 std::to_string(stream) + " : i64} : " + t),
          {seed});
      ASSERT_EQ(want.size(), 1u);
      std::vector<float> y(91, NAN);
      ASSERT_EQ(gnnrt_cpu_init(kind, seed, stream, 13, 7, 91, y.data()),
                GNNRT_OK);
      EXPECT_TRUE(roundedEqual(y, want[0]));
    }
  }
}

} // namespace
