//===- PrimitiveGradTest.cpp - Every adjoint rule against finite differences =//
//
// One function per differentiable primitive (and per variant of it that has
// its own rule: weighted, per-head, mean, max, each transpose of matmul, ...)
// on testGraph(); buildVJP differentiates it and GradCheck compares every
// gradient entry with central differences of the interpreted forward.
//
//===----------------------------------------------------------------------===//
#include "GradCheck.h"

#include "dialects/Gnn/GnnOps.h"
#include "passes/Autodiff/ReverseMode.h"

#include "mlir/IR/Builders.h"

namespace gnnc::autodiff::test {
namespace {

using ref::randomTensor;

class PrimitiveGrad : public AutodiffTest {
protected:
  /// Parses \p source, which defines @f, and checks the gradients of the
  /// arguments \p wrt.
  void check(const std::string &source, const std::vector<Value> &args,
             const std::vector<unsigned> &wrt,
             const std::map<std::string, std::string> &subst = {}) {
    auto module = parse(source, subst);
    ASSERT_TRUE(module);
    checkGradients(*module, "f", args, wrt);
  }
};

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

TEST_F(PrimitiveGrad, SpmmSum) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>) -> tensor<5x3xf64> {
      %y = gnn.spmm sum %g, %x : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 1)}, {1});
}

TEST_F(PrimitiveGrad, SpmmWithEdgeWeights) {
  for (std::string aggr : {"sum", "mean"}) {
    SCOPED_TRACE(aggr);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<9xf64>) -> tensor<5x3xf64> {
        %y = gnn.spmm {AGGR} %g, %x, %w : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<9xf64>) -> tensor<5x3xf64>
        return %y : tensor<5x3xf64>
      })",
          {testGraph(), randomTensor({5, 3}, 2), randomTensor({9}, 3)}, {1, 2},
          {{"AGGR", aggr}});
  }
}

TEST_F(PrimitiveGrad, SpmmWithHeadWeights) {
  for (std::string aggr : {"sum", "mean"}) {
    SCOPED_TRACE(aggr);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x4xf64>, %w: tensor<9x2xf64>) -> tensor<5x4xf64> {
        %y = gnn.spmm {AGGR} %g, %x, %w : (!gnn.graph<5x9>, tensor<5x4xf64>, tensor<9x2xf64>) -> tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {testGraph(), randomTensor({5, 4}, 4), randomTensor({9, 2}, 5)},
          {1, 2}, {{"AGGR", aggr}});
  }
}

TEST_F(PrimitiveGrad, SpmmMean) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>) -> tensor<5x3xf64> {
      %y = gnn.spmm mean %g, %x : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 6)}, {1});
}

// Continuous random inputs have no ties (almost surely, and certainly none
// within a finite-difference step for this seed).
TEST_F(PrimitiveGrad, SpmmMax) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>) -> tensor<5x3xf64> {
      %y = gnn.spmm max %g, %x : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 7)}, {1});
}

TEST_F(PrimitiveGrad, Sddmm) {
  for (std::string heads : {"1", "2"}) {
    SCOPED_TRACE(heads);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %a: tensor<5x4xf64>, %b: tensor<5x4xf64>) -> tensor<9x{H}xf64> {
        %s = gnn.sddmm %g, %a, %b {heads = {H} : i64} : (!gnn.graph<5x9>, tensor<5x4xf64>, tensor<5x4xf64>) -> tensor<9x{H}xf64>
        return %s : tensor<9x{H}xf64>
      })",
          {testGraph(), randomTensor({5, 4}, 8), randomTensor({5, 4}, 9)},
          {1, 2}, {{"H", heads}});
  }
}

TEST_F(PrimitiveGrad, GatherAndScatter) {
  for (std::string end : {"src", "dst"}) {
    SCOPED_TRACE(end);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %e: tensor<9x3xf64>) -> (tensor<9x3xf64>, tensor<5x3xf64>) {
        %y = gnn.gather {END} %g, %x : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<9x3xf64>
        %z = gnn.scatter {END} %g, %e : (!gnn.graph<5x9>, tensor<9x3xf64>) -> tensor<5x3xf64>
        return %y, %z : tensor<9x3xf64>, tensor<5x3xf64>
      })",
          {testGraph(), randomTensor({5, 3}, 10), randomTensor({9, 3}, 11)},
          {1, 2}, {{"END", end}});
  }
}

TEST_F(PrimitiveGrad, EdgeAdd) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %a: tensor<5x3xf64>, %b: tensor<5x3xf64>) -> tensor<9x3xf64> {
      %y = gnn.edge_add %g, %a, %b : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<5x3xf64>) -> tensor<9x3xf64>
      return %y : tensor<9x3xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 14), randomTensor({5, 3}, 15)},
        {1, 2});
}

TEST_F(PrimitiveGrad, EdgeSoftmax) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %s: tensor<9x2xf64>) -> tensor<9x2xf64> {
      %a = gnn.edge_softmax %g, %s : (!gnn.graph<5x9>, tensor<9x2xf64>) -> tensor<9x2xf64>
      return %a : tensor<9x2xf64>
    })",
        {testGraph(), randomTensor({9, 2}, 12, -2, 2)}, {1});
}

//===----------------------------------------------------------------------===//
// Dense
//===----------------------------------------------------------------------===//

TEST_F(PrimitiveGrad, MatmulEveryTranspose) {
  struct Case {
    std::string attrs, a, b;
    std::vector<int64_t> aShape, bShape;
  };
  // y is always [4, 2] with contraction length 3.
  for (const Case &c :
       {Case{"", "4x3", "3x2", {4, 3}, {3, 2}},
        Case{"{transpose_a}", "3x4", "3x2", {3, 4}, {3, 2}},
        Case{"{transpose_b}", "4x3", "2x3", {4, 3}, {2, 3}},
        Case{"{transpose_a, transpose_b}", "3x4", "2x3", {3, 4}, {2, 3}}}) {
    SCOPED_TRACE(c.attrs);
    check(R"(
      func.func @f(%a: tensor<{A}xf64>, %b: tensor<{B}xf64>) -> tensor<4x2xf64> {
        %y = gnn.matmul %a, %b {ATTRS} : (tensor<{A}xf64>, tensor<{B}xf64>) -> tensor<4x2xf64>
        return %y : tensor<4x2xf64>
      })",
          {randomTensor(c.aShape, 13), randomTensor(c.bShape, 14)}, {0, 1},
          {{"ATTRS", c.attrs}, {"A", c.a}, {"B", c.b}});
  }
}

TEST_F(PrimitiveGrad, BiasAddAndRowMul) {
  check(
      R"(
    func.func @f(%x: tensor<5x3xf64>, %b: tensor<3xf64>, %v: tensor<3xf64>) -> (tensor<5x3xf64>, tensor<5x3xf64>) {
      %y = gnn.bias_add %x, %b : (tensor<5x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
      %z = gnn.row_mul %x, %v : (tensor<5x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
      return %y, %z : tensor<5x3xf64>, tensor<5x3xf64>
    })",
      {randomTensor({5, 3}, 15), randomTensor({3}, 16), randomTensor({3}, 17)},
      {0, 1, 2});
}

TEST_F(PrimitiveGrad, Reduce) {
  for (std::string kind : {"sum", "mean"})
    for (auto [dim, len] : {std::pair<std::string, std::string>{"0", "3"},
                            std::pair<std::string, std::string>{"1", "5"}}) {
      SCOPED_TRACE(kind + " dim " + dim);
      check(R"(
        func.func @f(%x: tensor<5x3xf64>) -> tensor<{LEN}xf64> {
          %y = gnn.reduce {KIND} %x {dim = {DIM} : i64} : tensor<5x3xf64> -> tensor<{LEN}xf64>
          return %y : tensor<{LEN}xf64>
        })",
            {randomTensor({5, 3}, 18)}, {0},
            {{"KIND", kind}, {"DIM", dim}, {"LEN", len}});
    }
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

TEST_F(PrimitiveGrad, AddSubMulScale) {
  check(R"(
    func.func @f(%a: tensor<5x3xf64>, %b: tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>) {
      %s = gnn.add %a, %b : tensor<5x3xf64>
      %d = gnn.sub %a, %b : tensor<5x3xf64>
      %p = gnn.mul %a, %b : tensor<5x3xf64>
      %k = gnn.scale %b {factor = -2.5 : f64} : tensor<5x3xf64>
      return %s, %d, %p, %k : tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>
    })",
        {randomTensor({5, 3}, 19), randomTensor({5, 3}, 20)}, {0, 1});
}

// One value reaching the result along several paths (and twice through one
// op) sums its cotangents.
TEST_F(PrimitiveGrad, SharedValuesAccumulate) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x3xf64>) -> tensor<5x3xf64> {
      %sq = gnn.mul %x, %x : tensor<5x3xf64>
      %h = gnn.matmul %sq, %w : (tensor<5x3xf64>, tensor<3x3xf64>) -> tensor<5x3xf64>
      %a = gnn.spmm sum %g, %h : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<5x3xf64>
      %r = gnn.add %a, %x : tensor<5x3xf64>
      %y = gnn.mul %r, %h : tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 21), randomTensor({3, 3}, 22)},
        {1, 2});
}

TEST_F(PrimitiveGrad, Activations) {
  for (std::string kind :
       {"relu", "leaky_relu", "elu", "gelu", "sigmoid", "tanh"}) {
    SCOPED_TRACE(kind);
    check(R"(
      func.func @f(%x: tensor<5x3xf64>) -> tensor<5x3xf64> {
        %y = gnn.activation {KIND} %x {slope = 0.2 : f64} : tensor<5x3xf64>
        return %y : tensor<5x3xf64>
      })",
          {awayFromZero({5, 3}, 23)}, {0}, {{"KIND", kind}});
  }
}

TEST_F(PrimitiveGrad, Dropout) {
  check(R"(
    func.func @f(%x: tensor<6x5xf64>, %key: !gnn.rng_key) -> tensor<6x5xf64> {
      %y = gnn.dropout %x, %key {p = 0.3 : f64, stream = 2 : i64} : tensor<6x5xf64>
      return %y : tensor<6x5xf64>
    })",
        {randomTensor({6, 5}, 24), RngKey{11, 4}}, {0});
}

TEST_F(PrimitiveGrad, Concat) {
  check(R"(
    func.func @f(%a: tensor<5x1xf64>, %b: tensor<5x3xf64>, %c: tensor<5x2xf64>) -> tensor<5x6xf64> {
      %y = gnn.concat %a, %b, %c : (tensor<5x1xf64>, tensor<5x3xf64>, tensor<5x2xf64>) -> tensor<5x6xf64>
      return %y : tensor<5x6xf64>
    })",
        {randomTensor({5, 1}, 25), randomTensor({5, 3}, 26),
         randomTensor({5, 2}, 27)},
        {0, 1, 2});
}

TEST_F(PrimitiveGrad, Slice) {
  // A prefix, a middle block, a suffix and the whole row.
  for (auto [offset, width] : {std::pair<std::string, std::string>{"0", "2"},
                               {"1", "3"},
                               {"3", "3"},
                               {"0", "6"}}) {
    SCOPED_TRACE(offset + "+" + width);
    check(R"(
      func.func @f(%x: tensor<5x6xf64>) -> tensor<5x{W}xf64> {
        %y = gnn.slice %x {offset = {O} : i64} : tensor<5x6xf64> -> tensor<5x{W}xf64>
        return %y : tensor<5x{W}xf64>
      })",
          {randomTensor({5, 6}, 28)}, {0}, {{"O", offset}, {"W", width}});
  }
}

TEST_F(PrimitiveGrad, Normalize) {
  for (std::string dim : {"0", "1"}) {
    SCOPED_TRACE(dim);
    check(R"(
      func.func @f(%x: tensor<5x4xf64>) -> tensor<5x4xf64> {
        %y = gnn.normalize %x {dim = {DIM} : i64, eps = 1.0e-05 : f64} : tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {randomTensor({5, 4}, 29)}, {0}, {{"DIM", dim}});
  }
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

TEST_F(PrimitiveGrad, CrossEntropy) {
  // Node 2 is masked out and node 4 is unlabelled (-1): neither counts.
  IntTensor labels{{6}, {0, 2, 1, 2, -1, 2}};
  IntTensor mask{{6}, {1, 1, 0, 1, 1, 1}};
  for (auto [smoothing, weights] :
       {std::pair<std::string, std::string>{"0.0", "none"},
        {"0.1", "none"},
        {"0.0", "balanced"},
        {"0.2", "balanced"}}) {
    SCOPED_TRACE(smoothing + " " + weights);
    check(R"(
      func.func @f(%z: tensor<6x3xf64>, %y: tensor<6xi32>, %m: tensor<6xi1>) -> tensor<f64> {
        %l = train.cross_entropy %z, %y, %m {label_smoothing = {S} : f64, class_weights = #train<class_weights {W}>}
            : (tensor<6x3xf64>, tensor<6xi32>, tensor<6xi1>) -> tensor<f64>
        return %l : tensor<f64>
      })",
          {randomTensor({6, 3}, 30, -2, 2), labels, mask}, {0},
          {{"S", smoothing}, {"W", weights}});
  }
}

//===----------------------------------------------------------------------===//
// The harness and buildVJP themselves
//===----------------------------------------------------------------------===//

// The check must be able to fail: a VJP whose gradient is off by 1% (the
// cotangent scaled before the sweep) is rejected.
TEST_F(PrimitiveGrad, HarnessRejectsAWrongGradient) {
  auto module = parse(R"(
    func.func @f(%x: tensor<5x3xf64>) -> tensor<5x3xf64> {
      %y = gnn.activation tanh %x : tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })");
  ASSERT_TRUE(module);
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  auto vjp = mlir::gnn::buildVJP(f, {0});
  ASSERT_TRUE(mlir::succeeded(vjp));
  // Scale the returned gradient by 1.01.
  auto ret =
      mlir::cast<mlir::func::ReturnOp>(vjp->getBody().front().getTerminator());
  mlir::OpBuilder b(ret);
  mlir::Value grad = ret.getOperand(1);
  ret.setOperand(1, b.create<mlir::gnn::ScaleOp>(ret.getLoc(), grad,
                                                 b.getF64FloatAttr(1.01)));
  auto result = compareWithFiniteDifferences(
      f, *vjp, {randomTensor({5, 3}, 31)}, {0}, /*seed=*/1);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_GT(result->maxError, 1e-3);
}

TEST_F(PrimitiveGrad, VjpSignatureAndZeroGradients) {
  auto module = parse(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %unused: tensor<2xf64>) -> tensor<5x3xf64> {
      %y = gnn.spmm sum %g, %x : (!gnn.graph<5x9>, tensor<5x3xf64>) -> tensor<5x3xf64>
      return %y : tensor<5x3xf64>
    })");
  ASSERT_TRUE(module);
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  auto vjp = mlir::gnn::buildVJP(f, {1, 2});
  ASSERT_TRUE(mlir::succeeded(vjp));
  EXPECT_EQ(vjp->getSymName(), "f.vjp");
  // (graph, x, unused, dy) -> (y, dx, dunused)
  EXPECT_EQ(vjp->getFunctionType().getNumInputs(), 4u);
  EXPECT_EQ(vjp->getFunctionType().getNumResults(), 3u);
  auto results = run(*module, "f.vjp",
                     {testGraph(), randomTensor({5, 3}, 32),
                      randomTensor({2}, 33), randomTensor({5, 3}, 34)});
  ASSERT_EQ(results.size(), 3u);
  // An argument nothing depends on has a zero gradient.
  EXPECT_EQ(asTensor(results[2]).data, std::vector<double>({0.0, 0.0}));

  // Graphs are not differentiable.
  EXPECT_TRUE(mlir::failed(mlir::gnn::buildVJP(f, {0})));
  EXPECT_NE(diagnostics.find("cannot differentiate with respect to argument 0"),
            std::string::npos)
      << diagnostics;
}

TEST_F(PrimitiveGrad, MissingRuleIsReportedAtTheOp) {
  auto module = parse(R"(
    func.func @f(%x: tensor<5x3xf64>) -> tensor<3xf64> {
      %y = gnn.reduce max %x {dim = 0 : i64} : tensor<5x3xf64> -> tensor<3xf64>
      return %y : tensor<3xf64>
    })");
  ASSERT_TRUE(module);
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  diagnostics.clear();
  EXPECT_TRUE(mlir::failed(mlir::gnn::buildVJP(f, {0})));
  EXPECT_NE(diagnostics.find("op 'gnn.reduce' has no derivative rule for "
                             "'max'"),
            std::string::npos)
      << diagnostics;
  // Nothing half-built is left behind.
  EXPECT_FALSE(module->lookupSymbol("f.vjp"));
}

} // namespace
} // namespace gnnc::autodiff::test
