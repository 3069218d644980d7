//===- ErrorsTest.cpp - The interpreter refuses bad input with an Error ---===//
//
// Every refusal is an llvm::Error naming the op (or function) and where it
// is; none aborts.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

using namespace gnnc::ref;
using namespace gnnc::ref::test;

namespace {

using ErrorsTest = IRTest;

const char *kSpmm = R"(
func.func @f(%g: !gnn.graph<?x?>, %x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  %y = gnn.spmm sum %g, %x : (!gnn.graph<?x?>, tensor<?x2xf64>) -> tensor<?x2xf64>
  return %y : tensor<?x2xf64>
}
)";

TEST_F(ErrorsTest, WrongArgumentCount) {
  std::string msg = runError(kSpmm, {smallGraph()});
  EXPECT_TRUE(contains(msg, "@f"));
  EXPECT_TRUE(contains(msg, "takes 2 arguments, got 1"));
}

TEST_F(ErrorsTest, WrongArgumentKind) {
  std::string msg = runError(kSpmm, {smallFeatures(), smallFeatures()});
  EXPECT_TRUE(contains(msg, "argument #0: expected !gnn.graph<?x?>, got a "
                            "float tensor [4, 2]"));
  msg = runError(kSpmm, {smallGraph(), int64_t(3)});
  EXPECT_TRUE(contains(msg, "argument #1: expected tensor<?x2xf64>, got an "
                            "integer scalar"));
}

TEST_F(ErrorsTest, WrongStaticShape) {
  std::string msg =
      runError(R"(
func.func @f(%g: !gnn.graph<4x5>, %x: tensor<4x2xf64>) -> tensor<4x2xf64> {
  return %x : tensor<4x2xf64>
})",
               {smallGraph(), tensor({3, 2}, {1, 2, 3, 4, 5, 6})});
  EXPECT_TRUE(contains(msg, "argument #1: expected tensor<4x2xf64>, got a "
                            "float tensor [3, 2]"));
  msg = runError(R"(
func.func @f(%g: !gnn.graph<4x6>) -> !gnn.graph<4x6> {
  return %g : !gnn.graph<4x6>
})",
                 {smallGraph()});
  EXPECT_TRUE(contains(msg, "got a graph with 4 nodes and 5 edges"));
}

TEST_F(ErrorsTest, MalformedArguments) {
  std::string msg =
      runError(kSpmm, {graph(2, {0, 5}, {1, 0}), tensor({2, 2}, {1, 2, 3, 4})});
  EXPECT_TRUE(contains(msg, "graph edge 1 (5 -> 0) leaves the 2 nodes"));
  msg = runError(kSpmm, {smallGraph(), tensor({4, 2}, {1, 2, 3})});
  EXPECT_TRUE(contains(msg, "shape [4, 2] needs 8 elements, the data has 3"));
}

TEST_F(ErrorsTest, ShapeMismatchInsideAnOpNamesTheOpAndItsLocation) {
  // Dynamic types let a 3-row input meet a 4-node graph at run time.
  std::string msg =
      runError(kSpmm, {smallGraph(), tensor({3, 2}, {1, 2, 3, 4, 5, 6})});
  EXPECT_TRUE(contains(msg, "'gnn.spmm' at "));
  EXPECT_TRUE(contains(msg, ":3:8"));
  EXPECT_TRUE(contains(msg, "input rows (one per node): expected 4, got 3"));
}

TEST_F(ErrorsTest, ResultDisagreeingWithItsType) {
  // The verifier cannot check edge counts of a dynamic input; the
  // interpreter checks what the op computed against the static result.
  std::string msg = runError(R"(
func.func @f(%g: !gnn.graph<?x?>) -> !gnn.graph<4x5> {
  %y = gnn.add_self_loops %g : !gnn.graph<?x?> -> !gnn.graph<4x5>
  return %y : !gnn.graph<4x5>
})",
                             {smallGraph()});
  EXPECT_TRUE(contains(msg, "'gnn.add_self_loops'"));
  EXPECT_TRUE(contains(msg, "result #0 is a graph with 4 nodes and 9 edges, "
                            "but its type is !gnn.graph<4x5>"));
}

TEST_F(ErrorsTest, UnknownOp) {
  context.allowUnregisteredDialects();
  std::string msg = runError(R"(
func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  %y = "mystery.op"(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %y : tensor<2xf64>
})",
                             {tensor({2}, {1, 2})});
  EXPECT_TRUE(contains(msg, "'mystery.op' at "));
  EXPECT_TRUE(contains(msg, "does not know this op"));
}

TEST_F(ErrorsTest, UnknownFunction) {
  std::string msg = runError(kSpmm, {}, "nope");
  EXPECT_TRUE(contains(msg, "no function @nope"));
}

TEST_F(ErrorsTest, ErrorsInsideCallsNameTheCallee) {
  std::string msg = runError(std::string(kSpmm) + R"(
func.func @outer(%g: !gnn.graph<?x?>, %x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  %y = func.call @f(%g, %x) : (!gnn.graph<?x?>, tensor<?x2xf64>) -> tensor<?x2xf64>
  return %y : tensor<?x2xf64>
})",
                             {smallGraph(), tensor({1, 2}, {1, 2})}, "outer");
  EXPECT_TRUE(contains(msg, "'func.call'"));
  EXPECT_TRUE(contains(msg, "in @f: 'gnn.spmm'"));
}

TEST_F(ErrorsTest, RunawayRecursionIsRefused) {
  std::string msg = runError(R"(
func.func @f(%a: i64) -> i64 {
  %0 = func.call @f(%a) : (i64) -> i64
  return %0 : i64
})",
                             {int64_t(1)});
  EXPECT_TRUE(contains(msg, "calls nest deeper than"));
}

TEST_F(ErrorsTest, OpLevelRefusals) {
  // A zeros tensor needs a static shape.
  std::string msg = runError(R"(
func.func @f(%x: tensor<?x2xf64>) -> tensor<?x2xf64> {
  %z = gnn.zeros : tensor<?x2xf64>
  return %z : tensor<?x2xf64>
})",
                             {tensor({1, 2}, {1, 2})});
  EXPECT_TRUE(contains(msg, "'gnn.zeros'"));
  EXPECT_TRUE(contains(msg, "needs a static result shape"));
  // Adam counts steps from 1 (its bias correction divides by 1 - beta^0).
  msg = runError(R"(
func.func @f(%p: tensor<1xf64>, %t: i64) -> tensor<1xf64> {
  %a, %m, %v = train.adam %p, %p, %p, %p, %t {lr = 0.1 : f64, beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : tensor<1xf64>
  return %a : tensor<1xf64>
})",
                 {tensor({1}, {1}), int64_t(0)});
  EXPECT_TRUE(contains(msg, "step counts updates from 1, got 0"));
  // Labels must name a class.
  msg = runError(R"(
func.func @f(%l: tensor<2x3xf64>, %y: tensor<2xi32>, %m: tensor<2xi1>) -> tensor<f64> {
  %0 = train.cross_entropy %l, %y, %m : (tensor<2x3xf64>, tensor<2xi32>, tensor<2xi1>) -> tensor<f64>
  return %0 : tensor<f64>
})",
                 {Tensor::zeros({2, 3}), ints({0, 5}), ints({1, 1})});
  EXPECT_TRUE(contains(msg, "'train.cross_entropy'"));
  EXPECT_TRUE(contains(msg, "label 5 of node 1 is out of range for 3 classes"));
  // Element-wise operands of different run-time shapes.
  msg = runError(R"(
func.func @f(%a: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?xf64> {
  %0 = gnn.add %a, %b : tensor<?xf64>
  return %0 : tensor<?xf64>
})",
                 {tensor({2}, {1, 2}), tensor({3}, {1, 2, 3})});
  EXPECT_TRUE(contains(msg, "operand shapes differ: [2] and [3]"));
}

} // namespace
