//===- StatusTest.cpp - Bad arguments come back as statuses ---------------===//
//
// Each call below is wrong in exactly one way and must return the status
// for it without writing its output (the sentinel stays) and without
// touching memory it was not given (the sanitizer build would notice).
//
//===----------------------------------------------------------------------===//
#include "CpuTestUtil.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace gnnrt::cpu::test;

namespace {

constexpr float kSentinel = -123.0f;
constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 2;

class Status : public ::testing::Test {
protected:
  /// 0 -> 1, 2 -> 1, 1 -> 2 (ids 0, 1, 2); node 0 has no incoming edge.
  const ref::Graph graph = [] {
    ref::Graph g;
    g.nodes = 3;
    g.src = {0, 2, 1};
    g.dst = {1, 1, 2};
    return g;
  }();
  const CsrGraph csr = toCsr(graph);
  const gnnrt_graph view = csr.view();

  std::vector<float> x = std::vector<float>(6, 1.0f);
  std::vector<float> y = std::vector<float>(64, kSentinel);

  bool untouched() const {
    for (float v : y)
      if (v != kSentinel)
        return false;
    return true;
  }
};

TEST_F(Status, StatusStringsNameEveryStatus) {
  EXPECT_STREQ(gnnrt_status_string(GNNRT_OK), "ok");
  EXPECT_STREQ(gnnrt_status_string(GNNRT_ERR_BAD_GRAPH), "malformed graph");
  EXPECT_STREQ(gnnrt_status_string(99), "unknown status");
}

TEST_F(Status, GraphKernelsRejectNullAndMalformedViews) {
  EXPECT_EQ(gnnrt_cpu_spmm(nullptr, GNNRT_AGGR_SUM, x.data(), 2, nullptr, 0,
                           y.data()),
            GNNRT_ERR_NULL_POINTER);
  gnnrt_graph noIndptr = view;
  noIndptr.in.indptr = nullptr;
  EXPECT_EQ(gnnrt_cpu_sddmm(&noIndptr, x.data(), x.data(), 2, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  gnnrt_graph negative = view;
  negative.num_nodes = -1;
  EXPECT_EQ(gnnrt_cpu_edge_norm(&negative, GNNRT_NORM_MEAN, y.data()),
            GNNRT_ERR_BAD_SIZE);
  // Offsets that do not span num_edges slots.
  gnnrt_graph wrongEdges = view;
  wrongEdges.num_edges = 2;
  EXPECT_EQ(gnnrt_cpu_gather(&wrongEdges, GNNRT_END_SRC, x.data(), 2, y.data()),
            GNNRT_ERR_BAD_GRAPH);
  EXPECT_EQ(gnnrt_cpu_edge_add(&wrongEdges, x.data(), x.data(), 2, y.data()),
            GNNRT_ERR_BAD_GRAPH);
  // scatter at sources needs the transposed view.
  gnnrt_graph inOnly = view;
  inOnly.out = {nullptr, nullptr, nullptr};
  EXPECT_EQ(gnnrt_cpu_scatter(&inOnly, GNNRT_END_SRC, x.data(), 2, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_TRUE(untouched());
}

TEST_F(Status, GraphCheckFindsBadIndices) {
  EXPECT_EQ(gnnrt_graph_check(nullptr), GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_graph_check(&view), GNNRT_OK);
  CsrGraph bad = csr;
  bad.inSrc[1] = 3; // node 3 of 3
  gnnrt_graph badSrc = bad.view();
  EXPECT_EQ(gnnrt_graph_check(&badSrc), GNNRT_ERR_BAD_GRAPH);
  bad = csr;
  bad.inId[0] = bad.inId[1]; // an edge id twice
  gnnrt_graph badIds = bad.view();
  EXPECT_EQ(gnnrt_graph_check(&badIds), GNNRT_ERR_BAD_GRAPH);
  bad = csr;
  std::swap(bad.outSrc[0], bad.outSrc[1]); // out no longer mirrors in
  gnnrt_graph badMirror = bad.view();
  EXPECT_EQ(gnnrt_graph_check(&badMirror), GNNRT_ERR_BAD_GRAPH);
  bad = csr;
  bad.inPtr[1] = 3; // offsets decrease after it
  gnnrt_graph badPtr = bad.view();
  EXPECT_EQ(gnnrt_graph_check(&badPtr), GNNRT_ERR_BAD_GRAPH);
}

TEST_F(Status, AggregationArgumentChecks) {
  EXPECT_EQ(gnnrt_cpu_spmm(&view, 7, x.data(), 2, nullptr, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(
      gnnrt_cpu_spmm(&view, GNNRT_AGGR_SUM, x.data(), -2, nullptr, 0, y.data()),
      GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(
      gnnrt_cpu_spmm(&view, GNNRT_AGGR_SUM, nullptr, 2, nullptr, 0, y.data()),
      GNNRT_ERR_NULL_POINTER);
  // N * d overflows.
  EXPECT_EQ(gnnrt_cpu_spmm(&view, GNNRT_AGGR_SUM, x.data(), kHuge, nullptr, 0,
                           y.data()),
            GNNRT_ERR_BAD_SIZE);
  // max takes no weights; weight heads must divide d.
  EXPECT_EQ(
      gnnrt_cpu_spmm(&view, GNNRT_AGGR_MAX, x.data(), 2, x.data(), 1, y.data()),
      GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(
      gnnrt_cpu_spmm(&view, GNNRT_AGGR_SUM, x.data(), 2, x.data(), 3, y.data()),
      GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_sddmm(&view, x.data(), x.data(), 2, 0, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_gather(&view, 2, x.data(), 2, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_edge_add(&view, x.data(), nullptr, 2, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_add(&view, x.data(), x.data(), -1, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_edge_softmax(&view, x.data(), -1, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_edge_softmax_grad(&view, x.data(), nullptr, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_edge_norm(&view, 2, y.data()), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(untouched());
}

TEST_F(Status, DenseArgumentChecks) {
  EXPECT_EQ(gnnrt_cpu_matmul(x.data(), x.data(), 2, -1, 3, 0, 0, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_matmul(x.data(), nullptr, 2, 1, 3, 0, 0, y.data()),
            GNNRT_ERR_NULL_POINTER);
  // Beyond cblas's int.
  EXPECT_EQ(gnnrt_cpu_matmul(x.data(), x.data(), int64_t(1) << 32, 1, 1, 0, 0,
                             y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_bias_add(x.data(), nullptr, 3, 2, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_row_mul(x.data(), x.data(), kHuge, 4, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_reduce(GNNRT_REDUCE_SUM, x.data(), 3, 2, 2, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_reduce(9, x.data(), 3, 2, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_head_matrix(GNNRT_HEADS_SUM, 0, 4, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_zeros(y.data(), -1), GNNRT_ERR_BAD_SIZE);
  const float *inputs[] = {x.data(), nullptr};
  const int64_t widths[] = {1, 1};
  EXPECT_EQ(gnnrt_cpu_concat(inputs, widths, 2, 3, y.data()),
            GNNRT_ERR_NULL_POINTER);
  const int64_t negativeWidths[] = {1, -1};
  EXPECT_EQ(gnnrt_cpu_concat(inputs, negativeWidths, 2, 3, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_slice(x.data(), 3, 2, 1, 2, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_insert_columns(x.data(), x.data(), 3, 2, 1, 2, y.data()),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_insert_columns(x.data(), nullptr, 3, 2, 1, 1, y.data()),
            GNNRT_ERR_NULL_POINTER);
  // The block may not be the output it is written into.
  EXPECT_EQ(gnnrt_cpu_insert_columns(x.data(), y.data(), 3, 2, 1, 1, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  // In place over a only where each row of c is computed from its own row
  // of a, into as many floats; never over b.
  EXPECT_EQ(gnnrt_cpu_matmul(y.data(), x.data(), 3, 2, 2, 1, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_matmul(y.data(), x.data(), 3, 1, 2, 0, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_matmul(x.data(), y.data(), 2, 2, 2, 0, 0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  // An empty product writes nothing: its null pointers are not aliases
  // (the CUDA kernel's device test found this; the two share the checks).
  EXPECT_EQ(gnnrt_cpu_matmul(nullptr, x.data(), 0, 4, 3, 0, 0, nullptr),
            GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_matmul(nullptr, nullptr, 0, 0, 5, 1, 1, nullptr),
            GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_normalize(x.data(), 3, 2, 0, -1.0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(
      gnnrt_cpu_normalize_grad(x.data(), x.data(), 3, 2, 5, 1e-5, y.data()),
      GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_TRUE(untouched());
}

TEST_F(Status, ElementwiseArgumentChecks) {
  EXPECT_EQ(gnnrt_cpu_add(x.data(), nullptr, 6, y.data()),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_scale(x.data(), -6, 2.0, y.data()), GNNRT_ERR_BAD_SIZE);
  EXPECT_EQ(gnnrt_cpu_activation(6, x.data(), 6, 0.0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_activation_grad(-1, x.data(), x.data(), 6, 0.0, y.data()),
            GNNRT_ERR_BAD_ARGUMENT);
  for (double p : {1.0, -0.1, std::nan("")})
    EXPECT_EQ(gnnrt_cpu_dropout(x.data(), 6, 1, 2, 3, p, y.data()),
              GNNRT_ERR_BAD_ARGUMENT)
        << p;
  EXPECT_TRUE(untouched());
  // Empty tensors may come as null pointers.
  EXPECT_EQ(gnnrt_cpu_add(nullptr, nullptr, 0, nullptr), GNNRT_OK);
  EXPECT_EQ(gnnrt_cpu_dropout(nullptr, 0, 1, 2, 3, 0.5, nullptr), GNNRT_OK);
}

TEST_F(Status, TrainArgumentChecks) {
  std::vector<int32_t> labels = {0, 3, -1};
  std::vector<uint8_t> mask = {1, 1, 1};
  float loss = kSentinel;
  // Label 3 of node 1 is out of range for 2 classes.
  EXPECT_EQ(gnnrt_cpu_cross_entropy(x.data(), labels.data(), mask.data(), 3, 2,
                                    0.0, GNNRT_CLASS_WEIGHTS_NONE, &loss),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(loss, kSentinel);
  labels[1] = 1;
  EXPECT_EQ(gnnrt_cpu_cross_entropy(x.data(), labels.data(), mask.data(), 3, 2,
                                    0.0, 5, &loss),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_cross_entropy(x.data(), labels.data(), mask.data(), 3, 2,
                                    0.0, GNNRT_CLASS_WEIGHTS_NONE, nullptr),
            GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(gnnrt_cpu_cross_entropy_grad(x.data(), labels.data(), mask.data(),
                                         nullptr, 3, 2, 0.0,
                                         GNNRT_CLASS_WEIGHTS_NONE, y.data()),
            GNNRT_ERR_NULL_POINTER);
  // Step counts from 1; beta = 1 would divide by zero.
  float *p = y.data();
  EXPECT_EQ(gnnrt_cpu_adam(x.data(), x.data(), x.data(), x.data(), 6, 0, 0.1,
                           0.9, 0.999, 1e-8, 0, 0, p, p + 8, p + 16),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_adam(x.data(), x.data(), x.data(), x.data(), 6, 1, 0.1,
                           1.0, 0.999, 1e-8, 0, 0, p, p + 8, p + 16),
            GNNRT_ERR_BAD_ARGUMENT);
  // Momentum buffers exist exactly when momentum > 0.
  EXPECT_EQ(
      gnnrt_cpu_sgd(x.data(), x.data(), nullptr, 6, 0.1, 0.9, 0, 0, p, p + 8),
      GNNRT_ERR_NULL_POINTER);
  EXPECT_EQ(
      gnnrt_cpu_sgd(x.data(), x.data(), x.data(), 6, 0.1, 0.0, 0, 0, p, p + 8),
      GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_init(GNNRT_INIT_GLOROT, 1, 0, 0, 0, 6, p),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_init(GNNRT_INIT_KAIMING, 1, 0, 0, 4, 6, p),
            GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_init(17, 1, 0, 4, 4, 6, p), GNNRT_ERR_BAD_ARGUMENT);
  EXPECT_EQ(gnnrt_cpu_init(GNNRT_INIT_ONES, 1, 0, 0, 0, -6, p),
            GNNRT_ERR_BAD_SIZE);
  EXPECT_TRUE(untouched());
}

} // namespace
