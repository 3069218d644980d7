//===- LayersTest.cpp - gnn layer ops by hand -----------------------------===//
//
// Each layer on a graph small enough to do on paper; the derivation sits
// next to the expected values. Where a value is an exponential (GAT) the
// test writes the hand-derived formula with std::exp instead of a decimal.
// Tolerances are 1e-12 absolute: values are O(1), rounding is all there is.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include "gnnrt/Philox.h"

#include <cmath>

using namespace gnnc::ref;
using namespace gnnc::ref::test;

namespace {

using LayersTest = IRTest;

//===----------------------------------------------------------------------===//
// gcn_conv: the path 0 -> 1 -> 2
//===----------------------------------------------------------------------===//

std::string gcn(const std::string &attrs, bool bias) {
  std::string b = bias ? ", %b" : "";
  std::string bt = bias ? ", tensor<1xf64>" : "";
  return R"(
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x1xf64>, %w: tensor<1x1xf64>, %b: tensor<1xf64>) -> tensor<3x1xf64> {
  %y = gnn.gcn_conv %g, %x, %w)" +
         b + " " + attrs +
         " : (!gnn.graph<3x2>, tensor<3x1xf64>, tensor<1x1xf64>" + bt +
         R"() -> tensor<3x1xf64>
  return %y : tensor<3x1xf64>
})";
}

TEST_F(LayersTest, GcnConvVariants) {
  // x = [1, 2, 4], W = [[2]] so XW = [2, 4, 8], b = [1].
  std::vector<Value> args = {graph(3, {0, 1}, {1, 2}),
                             tensor({3, 1}, {1, 2, 4}), tensor({1, 1}, {2}),
                             tensor({1}, {1})};
  // Self loops + normalisation: in-degrees with loops 1, 2, 2;
  // w(0->1) = 1/sqrt(1*2), w(1->2) = 1/2, loops 1, 1/2, 1/2.
  // y = [2, 2/sqrt2 + 4/2, 4/2 + 8/2] + 1.
  auto r = run(gcn("", true), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 1}, {3, 3 + std::sqrt(2.0), 7});
  // Self loops, plain sums: [2, 2 + 4, 4 + 8].
  r = run(gcn("{normalize = false}", false), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 1}, {2, 6, 12});
  // Normalised without loops: in-degrees 0, 1, 1, so w(0->1) = 0 (node 0
  // has degree 0) and w(1->2) = 1: [0, 0, 4].
  r = run(gcn("{self_loops = false}", false), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 1}, {0, 0, 4});
  // Neither: [0, 2, 4] + 1.
  r = run(gcn("{self_loops = false, normalize = false}", true), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 1}, {1, 3, 5});
}

TEST_F(LayersTest, GcnConvMultiplesFeaturesByTheWeightOnTheRight) {
  // X = [[1, 0], [0, 1], [1, 1]], W = [[1, 2], [3, 4]]: XW = [[1, 2],
  // [3, 4], [4, 6]]. With loops and normalisation as above:
  // y0 = [1, 2]; y1 = [1, 2]/sqrt2 + [3, 4]/2; y2 = ([3, 4] + [4, 6])/2.
  auto r = run(R"(
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x2xf64>, %w: tensor<2x2xf64>) -> tensor<3x2xf64> {
  %y = gnn.gcn_conv %g, %x, %w : (!gnn.graph<3x2>, tensor<3x2xf64>, tensor<2x2xf64>) -> tensor<3x2xf64>
  return %y : tensor<3x2xf64>
})",
               {graph(3, {0, 1}, {1, 2}), tensor({3, 2}, {1, 0, 0, 1, 1, 1}),
                tensor({2, 2}, {1, 2, 3, 4})});
  ASSERT_EQ(r.size(), 1u);
  double h = std::sqrt(0.5);
  expectTensor(r[0], {3, 2}, {1, 2, h + 1.5, 2 * h + 2, 3.5, 5});
}

//===----------------------------------------------------------------------===//
// sage_conv and graph_conv on smallGraph()
//===----------------------------------------------------------------------===//

// Neighbour aggregates of smallFeatures() (node 3 has no neighbours):
//   sum  [-2, 4], [-1, 6], [3.5, 0], [0, 0]
//   mean [-2, 4], [-0.5, 3], [1.75, 0], [0, 0]
//   max  [-2, 4], [1, 4], [3, 1], [0, 0]

std::string sage(const std::string &aggr, bool root, bool bias) {
  std::string ops =
      std::string(root ? " root %wr" : "") + (bias ? " bias %b" : "");
  std::string types = std::string(root ? ", tensor<2x1xf64>" : "") +
                      (bias ? ", tensor<1xf64>" : "");
  return R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>, %w: tensor<2x1xf64>, %wr: tensor<2x1xf64>, %b: tensor<1xf64>) -> tensor<4x1xf64> {
  %y = gnn.sage_conv %g, %x, %w)" +
         ops + " {aggr = #gnn<aggr " + aggr +
         ">} : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<2x1xf64>" + types +
         R"() -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
})";
}

TEST_F(LayersTest, SageConvSumMeanMaxWithAndWithoutRoot) {
  // W = [[1], [1]] sums a row, W_root = [[1], [0]] picks its first column
  // (x[:, 0] = [1, 3, -2, 0.5]), b = [0.5].
  std::vector<Value> args = {smallGraph(), smallFeatures(),
                             tensor({2, 1}, {1, 1}), tensor({2, 1}, {1, 0}),
                             tensor({1}, {0.5})};
  auto r = run(sage("sum", true, true), args);
  ASSERT_EQ(r.size(), 1u);
  // [2, 5, 3.5, 0] + [1, 3, -2, 0.5] + 0.5.
  expectTensor(r[0], {4, 1}, {3.5, 8.5, 2, 1});
  r = run(sage("mean", true, true), args);
  ASSERT_EQ(r.size(), 1u);
  // [2, 2.5, 1.75, 0] + [1, 3, -2, 0.5] + 0.5.
  expectTensor(r[0], {4, 1}, {3.5, 6, 0.25, 1});
  r = run(sage("max", false, true), args);
  ASSERT_EQ(r.size(), 1u);
  // [2, 5, 4, 0] + 0.5 (no root term).
  expectTensor(r[0], {4, 1}, {2.5, 5.5, 4.5, 0.5});
  r = run(sage("sum", false, false), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 1}, {2, 5, 3.5, 0});
}

TEST_F(LayersTest, SageConvMaxAggregatesBeforeTheWeight) {
  // W = [[1], [-1]]: max then W gives node 1 max([1,2],[-2,4]) = [1, 4] ->
  // -3, whereas W then max would give max(-1, -6) = -1.
  auto r = run(sage("max", false, false),
               {smallGraph(), smallFeatures(), tensor({2, 1}, {1, -1}),
                tensor({2, 1}, {0, 0}), tensor({1}, {0})});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 1}, {-6, -3, 2, 0});
}

std::string graphConv(const std::string &aggr) {
  return R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>, %w: tensor<2x2xf64>, %wr: tensor<2x2xf64>, %b: tensor<2xf64>) -> tensor<4x2xf64> {
  %y = gnn.graph_conv %g, %x, %w, %wr, %b {aggr = #gnn<aggr )" +
         aggr +
         R"(>} : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>) -> tensor<4x2xf64>
  return %y : tensor<4x2xf64>
})";
}

TEST_F(LayersTest, GraphConvSumAndMax) {
  // W = I, W_root swaps the two columns, b = [1, -1]:
  // y_i = swap(x_i) + aggr_j x_j + b; swap(x) = [2, 1], [-1, 3], [4, -2],
  // [1, 0.5].
  std::vector<Value> args = {
      smallGraph(), smallFeatures(), tensor({2, 2}, {1, 0, 0, 1}),
      tensor({2, 2}, {0, 1, 1, 0}), tensor({2}, {1, -1})};
  auto r = run(graphConv("sum"), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 2}, {1, 4, -1, 8, 8.5, -3, 2, -0.5});
  r = run(graphConv("max"), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 2}, {1, 4, 1, 6, 8, -2, 2, -0.5});
  r = run(graphConv("mean"), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 2}, {1, 4, -0.5, 5, 6.75, -3, 2, -0.5});
}

//===----------------------------------------------------------------------===//
// gin_conv
//===----------------------------------------------------------------------===//

std::string gin(const std::string &eps) {
  return R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>, %w1: tensor<2x2xf64>, %b1: tensor<2xf64>, %w2: tensor<2x1xf64>, %b2: tensor<1xf64>) -> tensor<4x1xf64> {
  %y = gnn.gin_conv %g, %x, %w1, %b1, %w2, %b2 {eps = )" +
         eps +
         R"( : f64} : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<2x2xf64>, tensor<2xf64>, tensor<2x1xf64>, tensor<1xf64>) -> tensor<4x1xf64>
  return %y : tensor<4x1xf64>
})";
}

TEST_F(LayersTest, GinConvWithEpsZeroAndHalf) {
  // W1 = [[1, -1], [0, 1]] maps z to [z0, z1 - z0]; b1 = [0, -2]; relu;
  // W2 = [[2], [1]], b2 = [1].
  std::vector<Value> args = {smallGraph(),
                             smallFeatures(),
                             tensor({2, 2}, {1, -1, 0, 1}),
                             tensor({2}, {0, -2}),
                             tensor({2, 1}, {2, 1}),
                             tensor({1}, {1})};
  // eps 0: z = x + sum = [-1, 6], [2, 5], [1.5, 4], [0.5, 1] ->
  // relu(zW1 + b1) = [0, 5], [2, 1], [1.5, 0.5], [0.5, 0] -> 6, 6, 4.5, 2.
  auto r = run(gin("0.0"), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 1}, {6, 6, 4.5, 2});
  // eps 0.5: z = 1.5 x + sum = [-0.5, 7], [3.5, 4.5], [0.5, 6],
  // [0.75, 1.5] -> [0, 5.5], [3.5, 0], [0.5, 3.5], [0.75, 0] ->
  // 6.5, 8, 5.5, 2.5.
  r = run(gin("0.5"), args);
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 1}, {6.5, 8, 5.5, 2.5});
}

//===----------------------------------------------------------------------===//
// gat_conv: nodes 0 and 1 both point at node 2; self loops are added
//===----------------------------------------------------------------------===//

/// softmax of three scores, the weights of edges from x = 1, 2, 3.
std::vector<double> softmax3(double a, double b, double c) {
  double s = std::exp(a) + std::exp(b) + std::exp(c);
  return {std::exp(a) / s, std::exp(b) / s, std::exp(c) / s};
}

TEST_F(LayersTest, GatConvOneHead) {
  // x = [1, 2, 3], W = [[1]] so z = x; a_src = [1]. With loops node 2 sees
  // e0 (from 0), e1 (from 1), e4 (its loop); nodes 0, 1 only their loops.
  const std::string src = R"(
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x1xf64>, %w: tensor<1x1xf64>, %as: tensor<1xf64>, %ad: tensor<1xf64>, %b: tensor<1xf64>) -> tensor<3x1xf64> {
  %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b {heads = 1 : i64, negative_slope = 0.2 : f64}
      : (!gnn.graph<3x2>, tensor<3x1xf64>, tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<3x1xf64>
  return %y : tensor<3x1xf64>
})";
  Graph g = graph(3, {0, 1}, {2, 2});
  Tensor x = tensor({3, 1}, {1, 2, 3}), w = tensor({1, 1}, {1});
  // a_dst = [0.5]: scores at node 2 are z_j + 1.5 = 2.5, 3.5, 4.5 (all
  // positive). A single incoming edge has weight 1, so y0 = z0, y1 = z1.
  auto r = run(src, {g, x, w, tensor({1}, {1}), tensor({1}, {0.5}),
                     tensor({1}, {0.25})});
  ASSERT_EQ(r.size(), 1u);
  auto a = softmax3(2.5, 3.5, 4.5);
  expectTensor(r[0], {3, 1},
               {1.25, 2.25, a[0] * 1 + a[1] * 2 + a[2] * 3 + 0.25});
  // a_dst = [-2]: scores z_j - 6 = -5, -4, -3 pass leaky_relu(0.2) as
  // -1, -0.8, -0.6.
  r = run(src,
          {g, x, w, tensor({1}, {1}), tensor({1}, {-2}), tensor({1}, {0})});
  ASSERT_EQ(r.size(), 1u);
  a = softmax3(-1, -0.8, -0.6);
  expectTensor(r[0], {3, 1}, {1, 2, a[0] * 1 + a[1] * 2 + a[2] * 3});
}

// Two heads of width 2: W = [[1, 2, -1, 0.5]] so z_n = x_n [1, 2, -1, 0.5];
// a_src = [1, 0, 0, 1], a_dst = [0, 1, 1, 0]. Head 0 scores
// z_j[0] + z_i[1] = x_j + 2 x_i, head 1 z_j[3] + z_i[2] = 0.5 x_j - x_i.
// At node 2 (x = 3) from x_j = 1, 2, 3: head 0 scores 7, 8, 9; head 1
// -2.5, -2, -1.5 -> leaky_relu -0.5, -0.4, -0.3.
std::string gatTwoHeads(bool concat, int64_t outWidth, double dropout) {
  std::string out = std::to_string(outWidth);
  std::string key = dropout > 0 ? " key %k" : "";
  std::string keyType = dropout > 0 ? ", !gnn.rng_key" : "";
  return R"(
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x1xf64>, %w: tensor<1x4xf64>, %as: tensor<4xf64>, %ad: tensor<4xf64>, %b: tensor<)" +
         out + R"(xf64>, %seed: i64, %step: i64) -> tensor<3x)" + out +
         R"(xf64> {
  %k = gnn.rng_key %seed, %step
  %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b)" +
         key + " {heads = 2 : i64, concat = " + (concat ? "true" : "false") +
         ", attn_dropout = " + std::to_string(dropout) +
         R"( : f64, stream = 2 : i64}
      : (!gnn.graph<3x2>, tensor<3x1xf64>, tensor<1x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<)" +
         out + "xf64>" + keyType + ") -> tensor<3x" + out + R"(xf64>
  return %y : tensor<3x)" +
         out + R"(xf64>
})";
}

std::vector<Value> gatTwoHeadArgs(Tensor bias, int64_t seed = 7,
                                  int64_t step = 3) {
  return {graph(3, {0, 1}, {2, 2}),
          tensor({3, 1}, {1, 2, 3}),
          tensor({1, 4}, {1, 2, -1, 0.5}),
          tensor({4}, {1, 0, 0, 1}),
          tensor({4}, {0, 1, 1, 0}),
          std::move(bias),
          seed,
          step};
}

TEST_F(LayersTest, GatConvTwoHeadsConcatenated) {
  auto r = run(gatTwoHeads(true, 4, 0),
               gatTwoHeadArgs(tensor({4}, {0.1, 0.2, 0.3, 0.4})));
  ASSERT_EQ(r.size(), 1u);
  auto a = softmax3(7, 8, 9), b = softmax3(-0.5, -0.4, -0.3);
  double sa = a[0] + 2 * a[1] + 3 * a[2], sb = b[0] + 2 * b[1] + 3 * b[2];
  // Nodes 0 and 1 keep z (one loop each); node 2 mixes per head.
  expectTensor(r[0], {3, 4},
               {1.1, 2.2, -0.7, 0.9, //
                2.1, 4.2, -1.7, 1.4, //
                sa + 0.1, 2 * sa + 0.2, -sb + 0.3, 0.5 * sb + 0.4});
}

TEST_F(LayersTest, GatConvTwoHeadsAveraged) {
  auto r =
      run(gatTwoHeads(false, 2, 0), gatTwoHeadArgs(tensor({2}, {0.5, -0.5})));
  ASSERT_EQ(r.size(), 1u);
  auto a = softmax3(7, 8, 9), b = softmax3(-0.5, -0.4, -0.3);
  double sa = a[0] + 2 * a[1] + 3 * a[2], sb = b[0] + 2 * b[1] + 3 * b[2];
  // Mean of [x, 2x] and [-x, 0.5x] blocks: [0, 1.25 x] for nodes 0, 1.
  expectTensor(r[0], {3, 2},
               {0.5, 1.25 - 0.5, 0.5, 2.5 - 0.5, (sa - sb) / 2 + 0.5,
                (2 * sa + 0.5 * sb) / 2 - 0.5});
}

TEST_F(LayersTest, GatConvAttentionDropoutUsesTheKeyStreamAndEdgeHeadIndex) {
  const double p = 0.5;
  const uint64_t seed = 7, step = 3, stream = 2;
  auto r = run(gatTwoHeads(true, 4, p),
               gatTwoHeadArgs(tensor({4}, {0, 0, 0, 0}), seed, step));
  ASSERT_EQ(r.size(), 1u);
  // Alpha is [E + N, 2] over the looped graph: edges 0->2, 1->2, then
  // loops 0, 1, 2 (ids 2, 3, 4). Element (e, k) has index e * 2 + k.
  auto keep = [&](int64_t e, int64_t k) {
    return gnnrt::dropoutUniform(seed, step, stream, e * 2 + k) >= p
               ? 1 / (1 - p)
               : 0.0;
  };
  int kept = 0;
  for (int64_t i = 0; i < 10; ++i)
    kept += keep(i / 2, i % 2) > 0;
  // Otherwise the example checks nothing about which elements drop.
  ASSERT_GT(kept, 0);
  ASSERT_LT(kept, 10);
  auto a = softmax3(7, 8, 9), b = softmax3(-0.5, -0.4, -0.3);
  // Node 2's edges from x = 1, 2, 3 have ids 0, 1, 4.
  double sa = a[0] * keep(0, 0) + 2 * a[1] * keep(1, 0) + 3 * a[2] * keep(4, 0);
  double sb = b[0] * keep(0, 1) + 2 * b[1] * keep(1, 1) + 3 * b[2] * keep(4, 1);
  expectTensor(r[0], {3, 4},
               {keep(2, 0), 2 * keep(2, 0), -keep(2, 1), 0.5 * keep(2, 1),
                2 * keep(3, 0), 4 * keep(3, 0), -2 * keep(3, 1), keep(3, 1), sa,
                2 * sa, -sb, 0.5 * sb});
}

//===----------------------------------------------------------------------===//
// linear, batch_norm, layer_norm
//===----------------------------------------------------------------------===//

TEST_F(LayersTest, LinearWithAndWithoutBias) {
  // [[1, 2], [3, 4]] [[1, 0, -1], [2, 1, 0]] = [[5, 2, -1], [11, 4, -3]].
  auto r =
      run(R"(
func.func @f(%x: tensor<2x2xf64>, %w: tensor<2x3xf64>, %b: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %0 = gnn.linear %x, %w, %b : (tensor<2x2xf64>, tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %1 = gnn.linear %x, %w : (tensor<2x2xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
})",
          {tensor({2, 2}, {1, 2, 3, 4}), tensor({2, 3}, {1, 0, -1, 2, 1, 0}),
           tensor({3}, {0.5, 0, -0.5})});
  ASSERT_EQ(r.size(), 2u);
  expectTensor(r[0], {2, 3}, {5.5, 2, -1.5, 11.5, 4, -3.5});
  expectTensor(r[1], {2, 3}, {5, 2, -1, 11, 4, -3});
}

TEST_F(LayersTest, BatchNormNormalisesColumns) {
  // x = [[1, 2], [3, 6]]: column means 2, 4, biased variances 1, 4.
  auto r = run(R"(
func.func @f(%x: tensor<2x2xf64>, %s: tensor<2xf64>, %b: tensor<2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %0 = gnn.batch_norm %x, %s, %b {eps = 0.0 : f64} : (tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  %1 = gnn.batch_norm %x, %s, %b : (tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  return %0, %1 : tensor<2x2xf64>, tensor<2x2xf64>
})",
               {tensor({2, 2}, {1, 2, 3, 6}), tensor({2}, {2, 3}),
                tensor({2}, {0.5, -1})});
  ASSERT_EQ(r.size(), 2u);
  // xhat = [[-1, -1], [1, 1]], times [2, 3] plus [0.5, -1].
  expectTensor(r[0], {2, 2}, {-1.5, -4, 2.5, 2});
  // The default eps is 1e-5.
  double c0 = 1 / std::sqrt(1 + 1e-5), c1 = 2 / std::sqrt(4 + 1e-5);
  expectTensor(r[1], {2, 2},
               {-2 * c0 + 0.5, -3 * c1 - 1, 2 * c0 + 0.5, 3 * c1 - 1});
}

TEST_F(LayersTest, LayerNormNormalisesRows) {
  // Rows [1, 2, 6] (mean 3, variance 14/3) and [0, 0, 3] (mean 1,
  // variance 2); weight [1, 2, 3], bias [0, 0, 1].
  auto r = run(R"(
func.func @f(%x: tensor<2x3xf64>, %s: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = gnn.layer_norm %x, %s, %b {eps = 0.0 : f64} : (tensor<2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
})",
               {tensor({2, 3}, {1, 2, 6, 0, 0, 3}), tensor({3}, {1, 2, 3}),
                tensor({3}, {0, 0, 1})});
  ASSERT_EQ(r.size(), 1u);
  double s0 = std::sqrt(14.0 / 3), s1 = std::sqrt(2.0);
  expectTensor(r[0], {2, 3},
               {-2 / s0, -2 / s0, 9 / s0 + 1, -1 / s1, -2 / s1, 6 / s1 + 1});
}

} // namespace
