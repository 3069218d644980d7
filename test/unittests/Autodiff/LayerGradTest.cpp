//===- LayerGradTest.cpp - Layer gradients through gnn-decompose ----------===//
//
// Each layer op is decomposed by gnn-decompose and differentiated by
// buildVJP; the finite differences are taken of the *layer op itself*, which
// the reference interpreter computes directly from its description. So these
// tests check the rules composed the way real models compose them, and the
// decomposition on the way.
//
//===----------------------------------------------------------------------===//
#include "GradCheck.h"

#include "passes/Autodiff/ReverseMode.h"
#include "passes/Passes.h"

namespace gnnc::autodiff::test {
namespace {

using ref::randomTensor;

class LayerGrad : public AutodiffTest {
protected:
  /// \p source defines @f with one layer op; checks the gradients of the
  /// arguments \p wrt.
  void check(const std::string &source, const std::vector<Value> &args,
             const std::vector<unsigned> &wrt,
             const std::map<std::string, std::string> &subst = {}) {
    auto original = parse(source, subst);
    auto decomposed = parse(source, subst);
    ASSERT_TRUE(original && decomposed);
    ASSERT_TRUE(runPasses(*decomposed, [](mlir::OpPassManager &pm) {
      pm.addPass(mlir::gnn::createGnnDecompose());
    }));
    auto forward = original->lookupSymbol<mlir::func::FuncOp>("f");
    auto f = decomposed->lookupSymbol<mlir::func::FuncOp>("f");
    ASSERT_TRUE(forward && f);
    diagnostics.clear();
    auto vjp = mlir::gnn::buildVJP(f, wrt);
    ASSERT_TRUE(mlir::succeeded(vjp)) << "buildVJP failed:\n" << diagnostics;
    // First against the decomposed function itself: this isolates the
    // adjoint rules from the decomposition.
    auto own = compareWithFiniteDifferences(f, *vjp, args, wrt, 2);
    ASSERT_TRUE(bool(own)) << llvm::toString(own.takeError());
    EXPECT_GT(own->entries, 0);
    EXPECT_LT(own->maxError, kTolerance)
        << "against the decomposition: " << own->worst << "\n"
        << printed(vjp->getOperation());
    // Then against the layer as the interpreter computes it from its
    // description.
    auto layer = compareWithFiniteDifferences(forward, *vjp, args, wrt, 2);
    ASSERT_TRUE(bool(layer)) << llvm::toString(layer.takeError());
    // The decomposition computes the layer up to rounding (the layer's
    // outputs are O(1); a few ulps of reassociation are expected).
    EXPECT_LT(layer->forwardMismatch, 1e-12)
        << "gnn-decompose does not compute the layer";
    EXPECT_LT(layer->maxError, kTolerance)
        << "against the layer: " << layer->worst;
  }
};

TEST_F(LayerGrad, GcnConv) {
  for (std::string attrs : {"{self_loops = true, normalize = true}",
                            "{self_loops = true, normalize = false}",
                            "{self_loops = false, normalize = true}",
                            "{self_loops = false, normalize = false}"}) {
    SCOPED_TRACE(attrs);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x4xf64>, %b: tensor<4xf64>) -> tensor<5x4xf64> {
        %y = gnn.gcn_conv %g, %x, %w, %b {ATTRS} : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {testGraph(), randomTensor({5, 3}, 1), randomTensor({3, 4}, 2),
           randomTensor({4}, 3)},
          {1, 2, 3}, {{"ATTRS", attrs}});
  }
}

TEST_F(LayerGrad, GcnConvWithoutBias) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x4xf64>) -> tensor<5x4xf64> {
      %y = gnn.gcn_conv %g, %x, %w : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>) -> tensor<5x4xf64>
      return %y : tensor<5x4xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 4), randomTensor({3, 4}, 5)},
        {1, 2});
}

TEST_F(LayerGrad, SageConv) {
  for (std::string aggr : {"sum", "mean", "max"}) {
    SCOPED_TRACE(aggr);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x4xf64>, %wr: tensor<3x4xf64>, %b: tensor<4xf64>) -> tensor<5x4xf64> {
        %y = gnn.sage_conv %g, %x, %w root %wr bias %b {aggr = #gnn<aggr {AGGR}>}
            : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {testGraph(), randomTensor({5, 3}, 6), randomTensor({3, 4}, 7),
           randomTensor({3, 4}, 8), randomTensor({4}, 9)},
          {1, 2, 3, 4}, {{"AGGR", aggr}});
  }
}

TEST_F(LayerGrad, SageConvWithoutRoot) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x4xf64>, %b: tensor<4xf64>) -> tensor<5x4xf64> {
      %y = gnn.sage_conv %g, %x, %w bias %b {aggr = #gnn<aggr mean>}
          : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
      return %y : tensor<5x4xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 10), randomTensor({3, 4}, 11),
         randomTensor({4}, 12)},
        {1, 2, 3});
}

TEST_F(LayerGrad, GraphConv) {
  for (std::string aggr : {"sum", "mean", "max"}) {
    SCOPED_TRACE(aggr);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w: tensor<3x4xf64>, %wr: tensor<3x4xf64>, %b: tensor<4xf64>) -> tensor<5x4xf64> {
        %y = gnn.graph_conv %g, %x, %w, %wr, %b {aggr = #gnn<aggr {AGGR}>}
            : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {testGraph(), randomTensor({5, 3}, 13), randomTensor({3, 4}, 14),
           randomTensor({3, 4}, 15), randomTensor({4}, 16)},
          {1, 2, 3, 4}, {{"AGGR", aggr}});
  }
}

TEST_F(LayerGrad, GinConv) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x3xf64>, %w1: tensor<3x4xf64>, %b1: tensor<4xf64>, %w2: tensor<4x4xf64>, %b2: tensor<4xf64>) -> tensor<5x4xf64> {
      %y = gnn.gin_conv %g, %x, %w1, %b1, %w2, %b2 {eps = 0.25 : f64}
          : (!gnn.graph<5x9>, tensor<5x3xf64>, tensor<3x4xf64>, tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
      return %y : tensor<5x4xf64>
    })",
        {testGraph(), randomTensor({5, 3}, 17), randomTensor({3, 4}, 18),
         randomTensor({4}, 19), randomTensor({4, 4}, 20),
         randomTensor({4}, 21)},
        {1, 2, 3, 4, 5});
}

TEST_F(LayerGrad, GatConvHeads) {
  // Two heads of width 3, concatenated ([5, 6], bias [6]) or averaged
  // ([5, 3], bias [3]).
  for (auto [concat, out] :
       {std::pair<std::string, std::string>{"true", "6"}, {"false", "3"}}) {
    SCOPED_TRACE("concat = " + concat);
    int64_t outWidth = std::stoll(out);
    check(R"(
      func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x4xf64>, %w: tensor<4x6xf64>, %as: tensor<6xf64>, %ad: tensor<6xf64>, %b: tensor<{OUT}xf64>) -> tensor<5x{OUT}xf64> {
        %y = gnn.gat_conv %g, %x, %w, %as, %ad bias %b {heads = 2 : i64, concat = {CONCAT}, negative_slope = 0.2 : f64}
            : (!gnn.graph<5x9>, tensor<5x4xf64>, tensor<4x6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<{OUT}xf64>) -> tensor<5x{OUT}xf64>
        return %y : tensor<5x{OUT}xf64>
      })",
          {testGraph(), randomTensor({5, 4}, 22), randomTensor({4, 6}, 23),
           randomTensor({6}, 24), randomTensor({6}, 25),
           randomTensor({outWidth}, 26)},
          {1, 2, 3, 4, 5}, {{"CONCAT", concat}, {"OUT", out}});
  }
}

TEST_F(LayerGrad, GatConvAttentionDropout) {
  check(R"(
    func.func @f(%g: !gnn.graph<5x9>, %x: tensor<5x4xf64>, %w: tensor<4x4xf64>, %as: tensor<4xf64>, %ad: tensor<4xf64>, %k: !gnn.rng_key) -> tensor<5x4xf64> {
      %y = gnn.gat_conv %g, %x, %w, %as, %ad key %k {heads = 2 : i64, concat = true, attn_dropout = 0.3 : f64, stream = 1 : i64}
          : (!gnn.graph<5x9>, tensor<5x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, !gnn.rng_key) -> tensor<5x4xf64>
      return %y : tensor<5x4xf64>
    })",
        {testGraph(), randomTensor({5, 4}, 27), randomTensor({4, 4}, 28),
         randomTensor({4}, 29), randomTensor({4}, 30), RngKey{5, 2}},
        {1, 2, 3, 4});
}

TEST_F(LayerGrad, Linear) {
  check(R"(
    func.func @f(%x: tensor<5x3xf64>, %w: tensor<3x4xf64>, %b: tensor<4xf64>, %w2: tensor<4x2xf64>) -> tensor<5x2xf64> {
      %h = gnn.linear %x, %w, %b : (tensor<5x3xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
      %y = gnn.linear %h, %w2 : (tensor<5x4xf64>, tensor<4x2xf64>) -> tensor<5x2xf64>
      return %y : tensor<5x2xf64>
    })",
        {randomTensor({5, 3}, 31), randomTensor({3, 4}, 32),
         randomTensor({4}, 33), randomTensor({4, 2}, 34)},
        {0, 1, 2, 3});
}

TEST_F(LayerGrad, Norms) {
  for (std::string op : {"batch_norm", "layer_norm"}) {
    SCOPED_TRACE(op);
    check(R"(
      func.func @f(%x: tensor<5x4xf64>, %s: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<5x4xf64> {
        %y = gnn.{OP} %x, %s, %b {eps = 1.0e-05 : f64} : (tensor<5x4xf64>, tensor<4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
        return %y : tensor<5x4xf64>
      })",
          {randomTensor({5, 4}, 35), randomTensor({4}, 36, 0.5, 1.5),
           randomTensor({4}, 37)},
          {0, 1, 2}, {{"OP", op}});
  }
}

} // namespace
} // namespace gnnc::autodiff::test
