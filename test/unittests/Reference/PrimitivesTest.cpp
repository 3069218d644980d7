//===- PrimitivesTest.cpp - gnn graph ops and primitives by hand ----------===//
//
// Every expected value here was worked out by hand from the op's
// description (most on smallGraph(): edges 0->1, 2->1, 1->2, 3->2, 2->0 and
// features [1, 2], [3, -1], [-2, 4], [0.5, 1]); the derivation is in the
// comment next to it. Tolerances are 1e-12 absolute: values are O(1) and
// only fp64 rounding separates the interpreter from the hand arithmetic.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include <cmath>

using namespace gnnc::ref;
using namespace gnnc::ref::test;

namespace {

using PrimitivesTest = IRTest;

/// `func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>) -> <result>`
/// around one op line that defines %y.
std::string onGraph(const std::string &op, const std::string &resultType,
                    const std::string &extraArgs = "") {
  return "func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>" + extraArgs +
         ") -> " + resultType + " {\n  " + op +
         "\n  return %y : " + resultType + "\n}\n";
}

//===----------------------------------------------------------------------===//
// Graph ops
//===----------------------------------------------------------------------===//

TEST_F(PrimitivesTest, AddSelfLoopsAppendsOneLoopPerNodeAfterTheEdges) {
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>) -> !gnn.graph<4x9> {
  %y = gnn.add_self_loops %g : !gnn.graph<4x5> -> !gnn.graph<4x9>
  return %y : !gnn.graph<4x9>
})",
               {smallGraph()});
  ASSERT_EQ(r.size(), 1u);
  const Graph &g = std::get<Graph>(r[0]);
  EXPECT_EQ(g.nodes, 4);
  EXPECT_EQ(g.src, (std::vector<int64_t>{0, 2, 1, 3, 2, 0, 1, 2, 3}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{1, 1, 2, 2, 0, 0, 1, 2, 3}));
}

TEST_F(PrimitivesTest, TransposeSwapsEndsAndKeepsEdgeIds) {
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>) -> !gnn.graph<4x5> {
  %y = gnn.transpose %g : !gnn.graph<4x5>
  return %y : !gnn.graph<4x5>
})",
               {smallGraph()});
  ASSERT_EQ(r.size(), 1u);
  const Graph &g = std::get<Graph>(r[0]);
  EXPECT_EQ(g.src, (std::vector<int64_t>{1, 1, 2, 2, 0}));
  EXPECT_EQ(g.dst, (std::vector<int64_t>{0, 2, 1, 3, 2}));
}

TEST_F(PrimitivesTest, EdgeNormSymmetricUsesInDegreesAndZeroForIsolated) {
  // In-degrees 1, 2, 2, 0. 0->1: 1 * 2^-1/2; 2->1: 2^-1/2 2^-1/2 = 1/2;
  // 1->2: 1/2; 3->2: deg(3) = 0 gives 0; 2->0: 2^-1/2 * 1.
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>) -> (tensor<5xf64>, tensor<5xf64>) {
  %s = gnn.edge_norm symmetric %g : !gnn.graph<4x5> -> tensor<5xf64>
  %m = gnn.edge_norm mean %g : !gnn.graph<4x5> -> tensor<5xf64>
  return %s, %m : tensor<5xf64>, tensor<5xf64>
})",
               {smallGraph()});
  ASSERT_EQ(r.size(), 2u);
  double h = std::sqrt(0.5);
  expectTensor(r[0], {5}, {h, 0.5, 0.5, 0.0, h});
  // mean: 1 / deg(dst).
  expectTensor(r[1], {5}, {0.5, 0.5, 0.5, 0.5, 1.0});
}

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

TEST_F(PrimitivesTest, SpmmSumMeanMaxUnweighted) {
  const std::string type =
      "(!gnn.graph<4x5>, tensor<4x2xf64>) -> tensor<4x2xf64>";
  // Node 0 <- x2; node 1 <- x0, x2; node 2 <- x1, x3; node 3 <- nothing.
  auto sum =
      run(onGraph("%y = gnn.spmm sum %g, %x : " + type, "tensor<4x2xf64>"),
          {smallGraph(), smallFeatures()});
  ASSERT_EQ(sum.size(), 1u);
  expectTensor(sum[0], {4, 2}, {-2, 4, -1, 6, 3.5, 0, 0, 0});
  auto mean =
      run(onGraph("%y = gnn.spmm mean %g, %x : " + type, "tensor<4x2xf64>"),
          {smallGraph(), smallFeatures()});
  ASSERT_EQ(mean.size(), 1u);
  expectTensor(mean[0], {4, 2}, {-2, 4, -0.5, 3, 1.75, 0, 0, 0});
  // max of one negative neighbour stays negative (-2), no neighbour gives 0.
  auto max =
      run(onGraph("%y = gnn.spmm max %g, %x : " + type, "tensor<4x2xf64>"),
          {smallGraph(), smallFeatures()});
  ASSERT_EQ(max.size(), 1u);
  expectTensor(max[0], {4, 2}, {-2, 4, 1, 4, 3, 1, 0, 0});
}

TEST_F(PrimitivesTest, DynamicShapesTakeTheirSizesFromTheArguments) {
  auto r = run(R"(
func.func @f(%g: !gnn.graph<?x?>, %x: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %y = gnn.spmm sum %g, %x : (!gnn.graph<?x?>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %y : tensor<?x?xf64>
})",
               {smallGraph(), smallFeatures()});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {4, 2}, {-2, 4, -1, 6, 3.5, 0, 0, 0});
}

TEST_F(PrimitivesTest, SpmmWithEdgeWeights) {
  // w = [1, 2, -1, 0.5, 3]: y0 = 3 x2 = [-6, 12]; y1 = x0 + 2 x2 = [-3, 10];
  // y2 = -x1 + 0.5 x3 = [-2.75, 1.5]; y3 = 0. Mean halves nodes 1 and 2.
  const std::string type =
      "(!gnn.graph<4x5>, tensor<4x2xf64>, tensor<5xf64>) -> tensor<4x2xf64>";
  Tensor w = tensor({5}, {1, 2, -1, 0.5, 3});
  auto sum = run(onGraph("%y = gnn.spmm sum %g, %x, %w : " + type,
                         "tensor<4x2xf64>", ", %w: tensor<5xf64>"),
                 {smallGraph(), smallFeatures(), w});
  ASSERT_EQ(sum.size(), 1u);
  expectTensor(sum[0], {4, 2}, {-6, 12, -3, 10, -2.75, 1.5, 0, 0});
  auto mean = run(onGraph("%y = gnn.spmm mean %g, %x, %w : " + type,
                          "tensor<4x2xf64>", ", %w: tensor<5xf64>"),
                  {smallGraph(), smallFeatures(), w});
  ASSERT_EQ(mean.size(), 1u);
  expectTensor(mean[0], {4, 2}, {-6, 12, -1.5, 5, -1.375, 0.75, 0, 0});
}

TEST_F(PrimitivesTest, SpmmMultiHeadWeightsApplyPerColumnBlock) {
  // D = 4, H = 2: columns 0-1 use head 0, columns 2-3 head 1.
  // Node 2 <- e0 from 0 (weights 1, 10) and e1 from 1 (weights 2, 20):
  // [1*1 + 2*5, 1*2 + 2*6, 10*3 + 20*7, 10*4 + 20*8] = [11, 14, 170, 200].
  auto r = run(R"(
func.func @f(%g: !gnn.graph<3x2>, %x: tensor<3x4xf64>, %w: tensor<2x2xf64>) -> tensor<3x4xf64> {
  %y = gnn.spmm sum %g, %x, %w : (!gnn.graph<3x2>, tensor<3x4xf64>, tensor<2x2xf64>) -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
})",
               {graph(3, {0, 1}, {2, 2}),
                tensor({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9}),
                tensor({2, 2}, {1, 10, 2, 20})});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 11, 14, 170, 200});
}

TEST_F(PrimitivesTest, SpmmMaxGradRoutesToTheLowestIdAmongTies) {
  // Edges e0: 2->1, e1: 0->1, e2: 2->0. x0 = [5, 7], x1 = [0, 0],
  // x2 = [5, 3]. Node 1, column 0: x2 and x0 tie at 5, e0 (source 2) has
  // the lower id -> dx2[0] += dy1[0] = 10. Column 1: x0 = 7 wins (e1) ->
  // dx0[1] += 20. Node 0 has only e2 -> dx2 += dy0 = [1, 2].
  auto r =
      run(R"(
func.func @f(%g: !gnn.graph<3x3>, %x: tensor<3x2xf64>, %dy: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %y = gnn.spmm_max_grad %g, %x, %dy : (!gnn.graph<3x3>, tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %y : tensor<3x2xf64>
})",
          {graph(3, {2, 0, 2}, {1, 1, 0}), tensor({3, 2}, {5, 7, 0, 0, 5, 3}),
           tensor({3, 2}, {1, 2, 10, 20, 100, 200})});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {3, 2}, {0, 20, 0, 0, 11, 2});
}

TEST_F(PrimitivesTest, SddmmTakesLhsAtTheDestinationAndRhsAtTheSource) {
  // R = [[1, 0], [0, 1], [1, 1], [2, -1]]; y[e] = X[dst] . R[src]:
  // 0->1: [3,-1].[1,0] = 3; 2->1: [3,-1].[1,1] = 2; 1->2: [-2,4].[0,1] = 4;
  // 3->2: [-2,4].[2,-1] = -8; 2->0: [1,2].[1,1] = 3. With 2 heads each
  // column is its own head.
  Tensor rhs = tensor({4, 2}, {1, 0, 0, 1, 1, 1, 2, -1});
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>, %r: tensor<4x2xf64>) -> (tensor<5x1xf64>, tensor<5x2xf64>) {
  %a = gnn.sddmm %g, %x, %r {heads = 1 : i64} : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<5x1xf64>
  %b = gnn.sddmm %g, %x, %r {heads = 2 : i64} : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<5x2xf64>
  return %a, %b : tensor<5x1xf64>, tensor<5x2xf64>
})",
               {smallGraph(), smallFeatures(), rhs});
  ASSERT_EQ(r.size(), 2u);
  expectTensor(r[0], {5, 1}, {3, 2, 4, -8, 3});
  expectTensor(r[1], {5, 2}, {3, 0, 3, -1, 0, 4, -4, -4, 1, 2});
}

TEST_F(PrimitivesTest, GatherAndScatterAtBothEnds) {
  auto r =
      run(R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>, %e: tensor<5x1xf64>)
    -> (tensor<5x2xf64>, tensor<5x2xf64>, tensor<4x1xf64>, tensor<4x1xf64>) {
  %gs = gnn.gather src %g, %x : (!gnn.graph<4x5>, tensor<4x2xf64>) -> tensor<5x2xf64>
  %gd = gnn.gather dst %g, %x : (!gnn.graph<4x5>, tensor<4x2xf64>) -> tensor<5x2xf64>
  %ss = gnn.scatter src %g, %e : (!gnn.graph<4x5>, tensor<5x1xf64>) -> tensor<4x1xf64>
  %sd = gnn.scatter dst %g, %e : (!gnn.graph<4x5>, tensor<5x1xf64>) -> tensor<4x1xf64>
  return %gs, %gd, %ss, %sd : tensor<5x2xf64>, tensor<5x2xf64>, tensor<4x1xf64>, tensor<4x1xf64>
})",
          {smallGraph(), smallFeatures(), tensor({5, 1}, {1, 2, 3, 4, 5})});
  ASSERT_EQ(r.size(), 4u);
  // Sources 0, 2, 1, 3, 2; destinations 1, 1, 2, 2, 0.
  expectTensor(r[0], {5, 2}, {1, 2, -2, 4, 3, -1, 0.5, 1, -2, 4});
  expectTensor(r[1], {5, 2}, {3, -1, 3, -1, -2, 4, -2, 4, 1, 2});
  // By source: node 0 <- e0; 1 <- e2; 2 <- e1 + e4 = 7; 3 <- e3.
  expectTensor(r[2], {4, 1}, {1, 3, 7, 4});
  // By destination: node 0 <- e4; 1 <- e0 + e1 = 3; 2 <- e2 + e3 = 7; 3: 0.
  expectTensor(r[3], {4, 1}, {5, 3, 7, 0});
}

TEST_F(PrimitivesTest,
       EdgeAddTakesTheSourceRowOfOneAndTheDestinationRowOfTheOther) {
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>, %a: tensor<4x2xf64>, %b: tensor<4x2xf64>)
    -> tensor<5x2xf64> {
  %y = gnn.edge_add %g, %a, %b : (!gnn.graph<4x5>, tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<5x2xf64>
  return %y : tensor<5x2xf64>
})",
               {smallGraph(), smallFeatures(),
                tensor({4, 2}, {10, 20, 30, 40, 50, 60, 70, 80})});
  ASSERT_EQ(r.size(), 1u);
  // Sources 0, 2, 1, 3, 2 (rows of a); destinations 1, 1, 2, 2, 0 (of b).
  expectTensor(r[0], {5, 2}, {31, 42, 28, 44, 53, 59, 50.5, 61, 8, 24});
}

TEST_F(PrimitivesTest, EdgeSoftmaxIsStableAndPerHead) {
  // Head 0: node 1's edges score 1000 and 1000 + ln 3 (exp would overflow
  // without subtracting the max) -> 1/4, 3/4; node 2's tie -> 1/2, 1/2;
  // node 0's single edge -> 1. Head 1 scores 0 for e0 and ln 3 ... swapped.
  double l3 = std::log(3.0);
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>, %s: tensor<5x2xf64>) -> tensor<5x2xf64> {
  %y = gnn.edge_softmax %g, %s : (!gnn.graph<4x5>, tensor<5x2xf64>) -> tensor<5x2xf64>
  return %y : tensor<5x2xf64>
})",
               {smallGraph(), tensor({5, 2}, {1000, l3, 1000 + l3, 0, 1, -7, 1,
                                              -7 + std::log(4.0), 7, 9})});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {5, 2},
               {0.25, 0.75, 0.75, 0.25, 0.5, 0.2, 0.5, 0.8, 1, 1});
}

TEST_F(PrimitivesTest, EdgeSoftmaxGradByHand) {
  // y = [1/4, 3/4 | 1/2, 1/2 | 1], dy = [1, 2, 3, -1, 4]. Node 1:
  // sum y dy = 1/4 + 3/2 = 7/4 -> [1/4 (1 - 7/4), 3/4 (2 - 7/4)] =
  // [-3/16, 3/16]. Node 2: sum = 1 -> [1, -1]. Node 0: 1 (4 - 4) = 0.
  auto r = run(R"(
func.func @f(%g: !gnn.graph<4x5>, %y: tensor<5x1xf64>, %dy: tensor<5x1xf64>) -> tensor<5x1xf64> {
  %d = gnn.edge_softmax_grad %g, %y, %dy : (!gnn.graph<4x5>, tensor<5x1xf64>, tensor<5x1xf64>) -> tensor<5x1xf64>
  return %d : tensor<5x1xf64>
})",
               {smallGraph(), tensor({5, 1}, {0.25, 0.75, 0.5, 0.5, 1}),
                tensor({5, 1}, {1, 2, 3, -1, 4})});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {5, 1}, {-0.1875, 0.1875, 1, -1, 0});
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

TEST_F(PrimitivesTest, MatmulWithAndWithoutTransposes) {
  // A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]]:
  // A B = [[4, 5], [10, 11]]; A^T C with C = [[1, 1], [0, 2]] =
  // [[1, 9], [2, 12], [3, 15]]; C B^T = [[1, 1, 2], [0, 2, 2]].
  auto r =
      run(R"(
func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x2xf64>, %c: tensor<2x2xf64>)
    -> (tensor<2x2xf64>, tensor<3x2xf64>, tensor<2x3xf64>, tensor<2x2xf64>) {
  %0 = gnn.matmul %a, %b : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<2x2xf64>
  %1 = gnn.matmul %a, %c {transpose_a} : (tensor<2x3xf64>, tensor<2x2xf64>) -> tensor<3x2xf64>
  %2 = gnn.matmul %c, %b {transpose_b} : (tensor<2x2xf64>, tensor<3x2xf64>) -> tensor<2x3xf64>
  %3 = gnn.matmul %b, %a {transpose_a, transpose_b} : (tensor<3x2xf64>, tensor<2x3xf64>) -> tensor<2x2xf64>
  return %0, %1, %2, %3 : tensor<2x2xf64>, tensor<3x2xf64>, tensor<2x3xf64>, tensor<2x2xf64>
})",
          {tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
           tensor({3, 2}, {1, 0, 0, 1, 1, 1}), tensor({2, 2}, {1, 1, 0, 2})});
  ASSERT_EQ(r.size(), 4u);
  expectTensor(r[0], {2, 2}, {4, 5, 10, 11});
  expectTensor(r[1], {3, 2}, {1, 9, 2, 12, 3, 15});
  expectTensor(r[2], {2, 3}, {1, 1, 2, 0, 2, 2});
  // B^T A^T = (A B)^T.
  expectTensor(r[3], {2, 2}, {4, 10, 5, 11});
}

TEST_F(PrimitivesTest, BiasAddAndRowMul) {
  auto r = run(R"(
func.func @f(%x: tensor<2x2xf64>, %v: tensor<2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %0 = gnn.bias_add %x, %v : (tensor<2x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  %1 = gnn.row_mul %x, %v : (tensor<2x2xf64>, tensor<2xf64>) -> tensor<2x2xf64>
  return %0, %1 : tensor<2x2xf64>, tensor<2x2xf64>
})",
               {tensor({2, 2}, {1, 2, 3, 4}), tensor({2}, {10, -1})});
  ASSERT_EQ(r.size(), 2u);
  expectTensor(r[0], {2, 2}, {11, 1, 13, 3});
  expectTensor(r[1], {2, 2}, {10, -2, 30, -4});
}

TEST_F(PrimitivesTest, ReduceAlongBothDimensions) {
  // x = [[1, -2, 3], [4, 5, -6]].
  auto r = run(R"(
func.func @f(%x: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %0 = gnn.reduce sum %x {dim = 0 : i64} : tensor<2x3xf64> -> tensor<3xf64>
  %1 = gnn.reduce mean %x {dim = 0 : i64} : tensor<2x3xf64> -> tensor<3xf64>
  %2 = gnn.reduce max %x {dim = 0 : i64} : tensor<2x3xf64> -> tensor<3xf64>
  %3 = gnn.reduce sum %x {dim = 1 : i64} : tensor<2x3xf64> -> tensor<2xf64>
  %4 = gnn.reduce mean %x {dim = 1 : i64} : tensor<2x3xf64> -> tensor<2xf64>
  %5 = gnn.reduce max %x {dim = 1 : i64} : tensor<2x3xf64> -> tensor<2xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
})",
               {tensor({2, 3}, {1, -2, 3, 4, 5, -6})});
  ASSERT_EQ(r.size(), 6u);
  expectTensor(r[0], {3}, {5, 3, -3});
  expectTensor(r[1], {3}, {2.5, 1.5, -1.5});
  expectTensor(r[2], {3}, {4, 5, 3});
  expectTensor(r[3], {2}, {2, 3});
  expectTensor(r[4], {2}, {2.0 / 3, 1});
  expectTensor(r[5], {2}, {3, 5});
}

TEST_F(PrimitivesTest, HeadMatrixSumAndMean) {
  auto r = run(R"(
func.func @f() -> (tensor<6x2xf64>, tensor<6x3xf64>) {
  %0 = gnn.head_matrix sum {heads = 2 : i64, width = 3 : i64} : tensor<6x2xf64>
  %1 = gnn.head_matrix mean {heads = 2 : i64, width = 3 : i64} : tensor<6x3xf64>
  return %0, %1 : tensor<6x2xf64>, tensor<6x3xf64>
})",
               {});
  ASSERT_EQ(r.size(), 2u);
  expectTensor(r[0], {6, 2}, {1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1});
  expectTensor(r[1], {6, 3},
               {.5, 0, 0, 0, .5, 0, 0, 0, .5, //
                .5, 0, 0, 0, .5, 0, 0, 0, .5});
}

TEST_F(PrimitivesTest, Zeros) {
  auto r = run(R"(
func.func @f() -> tensor<2x3xf32> {
  %0 = gnn.zeros : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
})",
               {});
  ASSERT_EQ(r.size(), 1u);
  expectTensor(r[0], {2, 3}, {0, 0, 0, 0, 0, 0});
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

TEST_F(PrimitivesTest, AddSubMulScaleOnEdgeAndNodeTensors) {
  auto r = run(R"(
func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %0 = gnn.add %a, %b : tensor<3xf64>
  %1 = gnn.sub %a, %b : tensor<3xf64>
  %2 = gnn.mul %a, %b : tensor<3xf64>
  %3 = gnn.scale %a {factor = -2.5 : f64} : tensor<3xf64>
  return %0, %1, %2, %3 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
})",
               {tensor({3}, {1, 2, 3}), tensor({3}, {4, -5, 0.5})});
  ASSERT_EQ(r.size(), 4u);
  expectTensor(r[0], {3}, {5, -3, 3.5});
  expectTensor(r[1], {3}, {-3, 7, 2.5});
  expectTensor(r[2], {3}, {4, -10, 1.5});
  expectTensor(r[3], {3}, {-2.5, -5, -7.5});
}

TEST_F(PrimitivesTest, Activations) {
  // Inputs -1, 0, 1, 2. Constants from tables: e^-1 - 1, Phi(+-1) and
  // sigmoid/tanh values to 16 digits.
  auto r = run(R"(
func.func @f(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = gnn.activation relu %x : tensor<4xf64>
  %1 = gnn.activation leaky_relu %x {slope = 0.2 : f64} : tensor<4xf64>
  %2 = gnn.activation elu %x : tensor<4xf64>
  %3 = gnn.activation gelu %x : tensor<4xf64>
  %4 = gnn.activation sigmoid %x : tensor<4xf64>
  %5 = gnn.activation tanh %x : tensor<4xf64>
  %6 = gnn.activation leaky_relu %x : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
})",
               {tensor({4}, {-1, 0, 1, 2})});
  ASSERT_EQ(r.size(), 7u);
  expectTensor(r[0], {4}, {0, 0, 1, 2});
  expectTensor(r[1], {4}, {-0.2, 0, 1, 2});
  expectTensor(r[2], {4}, {-0.6321205588285577, 0, 1, 2});
  // gelu(x) = x Phi(x): Phi(-1) = 0.15865525393145707, Phi(1) =
  // 0.8413447460685429, Phi(2) = 0.9772498680518208.
  expectTensor(
      r[3], {4},
      {-0.15865525393145707, 0, 0.8413447460685429, 2 * 0.9772498680518208});
  expectTensor(
      r[4], {4},
      {0.2689414213699951, 0.5, 0.7310585786300049, 0.8807970779778823});
  expectTensor(
      r[5], {4},
      {-0.7615941559557649, 0, 0.7615941559557649, 0.9640275800758169});
  // The default slope is 0.01.
  expectTensor(r[6], {4}, {-0.01, 0, 1, 2});
}

TEST_F(PrimitivesTest, ActivationGradsTakeTheLeftDerivativeAtZero) {
  // dy = 2 everywhere, x = -1, 0, 1, 2.
  auto r = run(R"(
func.func @f(%x: tensor<4xf64>, %dy: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = gnn.activation_grad relu %x, %dy : tensor<4xf64>
  %1 = gnn.activation_grad leaky_relu %x, %dy {slope = 0.2 : f64} : tensor<4xf64>
  %2 = gnn.activation_grad elu %x, %dy : tensor<4xf64>
  %3 = gnn.activation_grad gelu %x, %dy : tensor<4xf64>
  %4 = gnn.activation_grad sigmoid %x, %dy : tensor<4xf64>
  %5 = gnn.activation_grad tanh %x, %dy : tensor<4xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
})",
               {tensor({4}, {-1, 0, 1, 2}), tensor({4}, {2, 2, 2, 2})});
  ASSERT_EQ(r.size(), 6u);
  expectTensor(r[0], {4}, {0, 0, 2, 2});
  expectTensor(r[1], {4}, {0.4, 0.4, 2, 2});
  // elu'(x) = e^x for x <= 0.
  expectTensor(r[2], {4}, {2 * 0.36787944117144233, 2, 2, 2});
  // gelu'(x) = Phi(x) + x phi(x); phi(1) = 0.24197072451914337,
  // phi(2) = 0.05399096651318806, Phi(0) = 1/2.
  expectTensor(r[3], {4},
               {2 * (0.15865525393145707 - 0.24197072451914337), 1,
                2 * (0.8413447460685429 + 0.24197072451914337),
                2 * (0.9772498680518208 + 2 * 0.05399096651318806)});
  // sigmoid' = s (1 - s); tanh' = 1 - t^2.
  expectTensor(r[4], {4},
               {2 * 0.19661193324148185, 0.5, 2 * 0.19661193324148185,
                2 * 0.10499358540350662});
  expectTensor(r[5], {4},
               {2 * 0.41997434161402614, 2, 2 * 0.41997434161402614,
                2 * 0.07065082485316443});
}

TEST_F(PrimitivesTest, ConcatAndSlice) {
  auto r = run(R"(
func.func @f(%a: tensor<2x1xf64>, %b: tensor<2x2xf64>) -> (tensor<2x3xf64>, tensor<2x2xf64>, tensor<2x1xf64>) {
  %c = gnn.concat %a, %b : (tensor<2x1xf64>, tensor<2x2xf64>) -> tensor<2x3xf64>
  %s = gnn.slice %c {offset = 1 : i64} : tensor<2x3xf64> -> tensor<2x2xf64>
  %t = gnn.slice %c {offset = 0 : i64} : tensor<2x3xf64> -> tensor<2x1xf64>
  return %c, %s, %t : tensor<2x3xf64>, tensor<2x2xf64>, tensor<2x1xf64>
})",
               {tensor({2, 1}, {1, 2}), tensor({2, 2}, {3, 4, 5, 6})});
  ASSERT_EQ(r.size(), 3u);
  expectTensor(r[0], {2, 3}, {1, 3, 4, 2, 5, 6});
  expectTensor(r[1], {2, 2}, {3, 4, 5, 6});
  expectTensor(r[2], {2, 1}, {1, 2});
}

TEST_F(PrimitivesTest, NormalizeAlongBothDimensions) {
  // x = [[1, 2, 6], [0, 0, 3]].
  // dim 1, eps 0: row 0 has mean 3, deviations [-2, -1, 3], variance 14/3;
  // row 1 mean 1, deviations [-1, -1, 2], variance 2.
  // dim 0, eps 0.75: columns [1, 0], [2, 0], [6, 3] have deviations
  // +-1/2, +-1, +-3/2 and variances 1/4, 1, 9/4 -> var + eps = 1, 7/4, 3.
  auto r = run(R"(
func.func @f(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %0 = gnn.normalize %x {dim = 1 : i64, eps = 0.0 : f64} : tensor<2x3xf64>
  %1 = gnn.normalize %x {dim = 0 : i64, eps = 0.75 : f64} : tensor<2x3xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<2x3xf64>
})",
               {tensor({2, 3}, {1, 2, 6, 0, 0, 3})});
  ASSERT_EQ(r.size(), 2u);
  double s0 = std::sqrt(14.0 / 3), s1 = std::sqrt(2.0);
  expectTensor(r[0], {2, 3},
               {-2 / s0, -1 / s0, 3 / s0, -1 / s1, -1 / s1, 2 / s1});
  double c1 = std::sqrt(1.75), c2 = std::sqrt(3.0);
  expectTensor(r[1], {2, 3}, {0.5, 1 / c1, 1.5 / c2, -0.5, -1 / c1, -1.5 / c2});
}

TEST_F(PrimitivesTest, NormalizeGradByHand) {
  // One row x = [0, 1, 2] along dim 1, eps 0: mean 1, variance 2/3,
  // r = sqrt(3/2), xhat = [-1, 0, 1] r. dy = [1, 0, 0]: mean(dy) = 1/3,
  // mean(dy xhat) = -r/3. dx = r (dy - 1/3 + xhat r/3)
  //   = r [1 - 1/3 - r^2/3, -1/3, -1/3 + r^2/3] = r [1/6, -1/3, 1/6].
  auto r = run(R"(
func.func @f(%x: tensor<1x3xf64>, %dy: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %0 = gnn.normalize_grad %x, %dy {dim = 1 : i64, eps = 0.0 : f64} : tensor<1x3xf64>
  return %0 : tensor<1x3xf64>
})",
               {tensor({1, 3}, {0, 1, 2}), tensor({1, 3}, {1, 0, 0})});
  ASSERT_EQ(r.size(), 1u);
  double rs = std::sqrt(1.5);
  expectTensor(r[0], {1, 3}, {rs / 6, -rs / 3, rs / 6});
}

/// `<y, dy>` as a function of x, for central differences of an op.
double dotWith(const Tensor &y, const Tensor &dy) {
  double s = 0;
  for (size_t i = 0; i < y.data.size(); ++i)
    s += y.data[i] * dy.data[i];
  return s;
}

TEST_F(PrimitivesTest, NormalizeGradMatchesFiniteDifferencesOnBothDims) {
  for (int dim : {0, 1}) {
    std::string d = std::to_string(dim);
    std::string src = R"(
func.func @fwd(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %0 = gnn.normalize %x {dim = )" +
                      d + R"( : i64, eps = 0.1 : f64} : tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
func.func @bwd(%x: tensor<3x4xf64>, %dy: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %0 = gnn.normalize_grad %x, %dy {dim = )" +
                      d + R"( : i64, eps = 0.1 : f64} : tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
})";
    Tensor x = randomTensor({3, 4}, 11 + dim);
    Tensor dy = randomTensor({3, 4}, 21 + dim);
    auto dx = run(src, {x, dy}, "bwd");
    ASSERT_EQ(dx.size(), 1u);
    // Central differences: error O(h^2 f''') ~ 1e-10 for h = 1e-5 and O(1)
    // derivatives, plus rounding ~1e-16/h = 1e-11.
    const double h = 1e-5;
    for (size_t i = 0; i < x.data.size(); ++i) {
      Tensor xp = x, xm = x;
      xp.data[i] += h;
      xm.data[i] -= h;
      auto yp = run(src, {xp}, "fwd"), ym = run(src, {xm}, "fwd");
      ASSERT_EQ(yp.size(), 1u);
      ASSERT_EQ(ym.size(), 1u);
      double fd =
          (dotWith(asTensor(yp[0]), dy) - dotWith(asTensor(ym[0]), dy)) /
          (2 * h);
      EXPECT_NEAR(asTensor(dx[0]).data[i], fd, 1e-8)
          << "dim " << dim << " element " << i;
    }
  }
}

//===----------------------------------------------------------------------===//
// func and arith
//===----------------------------------------------------------------------===//

TEST_F(PrimitivesTest, IntegerArithmeticAndCalls) {
  // (7 + 5) * 3 - 4 = 32, passed through a call that doubles it.
  auto r = run(R"(
func.func @twice(%a: i64) -> i64 {
  %0 = arith.addi %a, %a : i64
  return %0 : i64
}
func.func @f() -> (i64, index) {
  %a = arith.constant 7 : i64
  %b = arith.constant 5 : i64
  %c = arith.constant 3 : i64
  %d = arith.constant 4 : i64
  %0 = arith.addi %a, %b : i64
  %1 = arith.muli %0, %c : i64
  %2 = arith.subi %1, %d : i64
  %3 = func.call @twice(%2) : (i64) -> i64
  %i = arith.constant 9 : index
  return %3, %i : i64, index
})",
               {});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(r[0]), 64);
  EXPECT_EQ(std::get<int64_t>(r[1]), 9);
}

TEST_F(PrimitivesTest, DenseConstants) {
  auto r = run(R"(
func.func @f() -> (tensor<2x2xf32>, tensor<3xi32>) {
  %0 = arith.constant dense<[[1.5, 2.0], [-3.0, 0.25]]> : tensor<2x2xf32>
  %1 = arith.constant dense<[4, -1, 7]> : tensor<3xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi32>
})",
               {});
  ASSERT_EQ(r.size(), 2u);
  expectTensor(r[0], {2, 2}, {1.5, 2, -3, 0.25});
  EXPECT_EQ(std::get<IntTensor>(r[1]).data, (std::vector<int64_t>{4, -1, 7}));
}

} // namespace
