//===- DecomposeEquivalenceTest.cpp - gnn-decompose keeps the meaning -----===//
//
// The interpreter computes every layer op directly from its description;
// here each layer (with representative attributes) runs before and after
// gnn-decompose on random graphs and inputs, and the two results must agree
// to a relative 1e-12: both are fp64, only the order of summation differs.
//
//===----------------------------------------------------------------------===//
#include "RefTestUtil.h"

#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>

using namespace gnnc::ref;
using namespace gnnc::ref::test;

namespace {

constexpr int64_t kNodes = 13, kMaxInDegree = 4, kIn = 5;

/// One layer call: `%y = <op>` over `%g`, `%x : [N, 5]`, parameters `%p0`,
/// `%p1`, ... of the given shapes and, when `key`, `%k : !gnn.rng_key`.
struct LayerCase {
  std::string name;
  std::string op;
  std::vector<std::vector<int64_t>> params;
  int64_t outWidth;
  bool usesGraph = true;
  bool key = false;
};

/// Names the case in gtest's messages instead of dumping its bytes.
void PrintTo(const LayerCase &c, std::ostream *os) { *os << c.name; }

std::string tensorType(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

/// The function for \p c on a graph with \p edges edges.
std::string layerFunction(const LayerCase &c, int64_t edges) {
  std::string graphType = "!gnn.graph<" + std::to_string(kNodes) + "x" +
                          std::to_string(edges) + ">";
  std::string xType = tensorType({kNodes, kIn});
  std::string yType = tensorType({kNodes, c.outWidth});
  std::string args = "%g: " + graphType + ", %x: " + xType;
  std::string operandTypes = c.usesGraph ? graphType + ", " + xType : xType;
  for (size_t i = 0; i < c.params.size(); ++i) {
    args += ", %p" + std::to_string(i) + ": " + tensorType(c.params[i]);
    operandTypes += ", " + tensorType(c.params[i]);
  }
  if (c.key) {
    args += ", %k: !gnn.rng_key";
    operandTypes += ", !gnn.rng_key";
  }
  return "func.func @f(" + args + ") -> " + yType + " {\n  %y = " + c.op +
         " : (" + operandTypes + ") -> " + yType + "\n  return %y : " + yType +
         "\n}\n";
}

std::vector<Value> layerArguments(const LayerCase &c, const Graph &g,
                                  uint64_t seed) {
  std::vector<Value> args = {g, randomTensor({kNodes, kIn}, seed * 100)};
  for (size_t i = 0; i < c.params.size(); ++i)
    args.push_back(randomTensor(c.params[i], seed * 100 + 1 + i));
  if (c.key)
    args.push_back(RngKey{seed, 3});
  return args;
}

std::vector<LayerCase> layerCases() {
  std::vector<LayerCase> cases;
  // A narrowing weight (5 -> 3) is multiplied before the sum; a widening
  // one (5 -> 8) after it.
  auto gcn = [&](const std::string &name, const std::string &attrs, bool bias,
                 int64_t out = 3) {
    LayerCase c{name, "gnn.gcn_conv %g, %x, %p0", {{kIn, out}}, out};
    if (bias) {
      c.op += ", %p1";
      c.params.push_back({out});
    }
    c.op += " " + attrs;
    cases.push_back(c);
  };
  gcn("gcn_default", "", true);
  gcn("gcn_widening", "", true, 8);
  gcn("gcn_widening_plain_sum", "{self_loops = false, normalize = false}",
      false, 8);
  gcn("gcn_no_bias", "", false);
  gcn("gcn_no_self_loops", "{self_loops = false}", true);
  gcn("gcn_no_normalize", "{normalize = false}", true);
  gcn("gcn_plain_sum", "{self_loops = false, normalize = false}", false);
  for (std::string aggr : {"sum", "mean", "max"}) {
    std::string a = " {aggr = #gnn<aggr " + aggr + ">}";
    cases.push_back({"sage_" + aggr + "_root",
                     "gnn.sage_conv %g, %x, %p0 root %p1 bias %p2" + a,
                     {{kIn, 3}, {kIn, 3}, {3}},
                     3});
    cases.push_back({"sage_" + aggr + "_no_root",
                     "gnn.sage_conv %g, %x, %p0 bias %p1" + a,
                     {{kIn, 3}, {3}},
                     3});
    cases.push_back({"graph_conv_" + aggr,
                     "gnn.graph_conv %g, %x, %p0, %p1, %p2" + a,
                     {{kIn, 3}, {kIn, 3}, {3}},
                     3});
  }
  cases.push_back({"sage_sum_no_bias",
                   "gnn.sage_conv %g, %x, %p0 root %p1 "
                   "{aggr = #gnn<aggr sum>}",
                   {{kIn, 3}, {kIn, 3}},
                   3});
  for (auto [name, eps] :
       {std::pair{"gin_eps0", "0.0"}, std::pair{"gin_eps_half", "0.5"}})
    cases.push_back({name,
                     std::string("gnn.gin_conv %g, %x, %p0, %p1, %p2, %p3 "
                                 "{eps = ") +
                         eps + " : f64}",
                     {{kIn, 4}, {4}, {4, 3}, {3}},
                     3});
  cases.push_back({"gat_1head",
                   "gnn.gat_conv %g, %x, %p0, %p1, %p2 bias %p3 {heads = 1 : "
                   "i64}",
                   {{kIn, 3}, {3}, {3}, {3}},
                   3});
  cases.push_back({"gat_3heads_concat",
                   "gnn.gat_conv %g, %x, %p0, %p1, %p2 bias %p3 {heads = 3 : "
                   "i64, concat = true, negative_slope = 0.1 : f64}",
                   {{kIn, 6}, {6}, {6}, {6}},
                   6});
  cases.push_back({"gat_3heads_mean",
                   "gnn.gat_conv %g, %x, %p0, %p1, %p2 bias %p3 {heads = 3 : "
                   "i64, concat = false}",
                   {{kIn, 6}, {6}, {6}, {2}},
                   2});
  cases.push_back({"gat_3heads_no_bias",
                   "gnn.gat_conv %g, %x, %p0, %p1, %p2 {heads = 3 : i64}",
                   {{kIn, 6}, {6}, {6}},
                   6});
  cases.push_back({"gat_3heads_attn_dropout",
                   "gnn.gat_conv %g, %x, %p0, %p1, %p2 bias %p3 key %k "
                   "{heads = 3 : i64, attn_dropout = 0.3 : f64, stream = 5 : "
                   "i64}",
                   {{kIn, 6}, {6}, {6}, {6}},
                   6,
                   true,
                   true});
  cases.push_back(
      {"linear", "gnn.linear %x, %p0, %p1", {{kIn, 3}, {3}}, 3, false});
  cases.push_back(
      {"linear_no_bias", "gnn.linear %x, %p0", {{kIn, 3}}, 3, false});
  cases.push_back({"batch_norm",
                   "gnn.batch_norm %x, %p0, %p1",
                   {{kIn}, {kIn}},
                   kIn,
                   false});
  cases.push_back({"layer_norm",
                   "gnn.layer_norm %x, %p0, %p1 {eps = 0.1 : f64}",
                   {{kIn}, {kIn}},
                   kIn,
                   false});
  return cases;
}

class DecomposeFixture : public IRTest {
protected:
  /// Interprets @f of \p source before and after gnn-decompose on \p args
  /// and compares the results.
  void checkEquivalent(const std::string &source,
                       const std::vector<Value> &args) {
    auto module = parse(source);
    ASSERT_TRUE(module);
    auto before = gnnc::ref::run(*module, "f", args);
    ASSERT_TRUE(bool(before)) << llvm::toString(before.takeError());

    std::string diagnostics;
    {
      mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
        diagnostics += d.str() + "\n";
        return mlir::success();
      });
      mlir::PassManager pm(&context);
      pm.addPass(mlir::gnn::createGnnDecompose());
      ASSERT_TRUE(mlir::succeeded(pm.run(*module)))
          << "gnn-decompose failed: " << diagnostics;
    }
    bool layerLeft = false;
    module->walk([&](mlir::Operation *op) {
      layerLeft |= op->hasTrait<mlir::gnn::Layer>();
    });
    ASSERT_FALSE(layerLeft) << "a layer op survived gnn-decompose";

    auto after = gnnc::ref::run(*module, "f", args);
    ASSERT_TRUE(bool(after))
        << "decomposed IR: " << llvm::toString(after.takeError());
    ASSERT_EQ(before->size(), after->size());
    for (size_t r = 0; r < before->size(); ++r) {
      const Tensor &a = asTensor((*before)[r]), &b = asTensor((*after)[r]);
      ASSERT_EQ(a.shape, b.shape);
      // Relative to the tensor's scale: a reordered fp64 sum of k terms
      // differs by ~k 1e-16 of its magnitude; 1e-12 leaves room without
      // admitting a real difference.
      double scale = 1;
      for (double v : a.data)
        scale = std::max(scale, std::abs(v));
      for (size_t i = 0; i < a.data.size(); ++i)
        ASSERT_NEAR(a.data[i], b.data[i], 1e-12 * scale)
            << "result " << r << " element " << i;
    }
  }
};

class DecomposeEquivalenceTest
    : public DecomposeFixture,
      public ::testing::WithParamInterface<LayerCase> {};

TEST_P(DecomposeEquivalenceTest, LayerMatchesItsDecomposition) {
  const LayerCase &c = GetParam();
  // Two graphs: one with isolated nodes, one where every node has an
  // incoming edge.
  for (uint64_t seed : {1u, 2u}) {
    Graph g = randomGraph(kNodes, kMaxInDegree, seed, seed == 1);
    SCOPED_TRACE("graph seed " + std::to_string(seed));
    checkEquivalent(layerFunction(c, g.numEdges()), layerArguments(c, g, seed));
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, DecomposeEquivalenceTest,
                         ::testing::ValuesIn(layerCases()),
                         [](const ::testing::TestParamInfo<LayerCase> &info) {
                           return info.param.name;
                         });

// Several layers in one function share graph-derived values after
// decomposition (one self-loop graph, one set of GCN weights); dropout and
// attention dropout draw from separate streams of one key.
const char *kModel = R"(
func.func @f(%g: !gnn.graph<NxE>, %x: tensor<Nx5xf32>,
             %w0: tensor<5x6xf32>, %b0: tensor<6xf32>, %w1: tensor<6x4xf32>,
             %as: tensor<4xf32>, %ad: tensor<4xf32>, %b1: tensor<2xf32>,
             %w2: tensor<6x4xf32>, %b2: tensor<4xf32>, %s: tensor<2xf32>,
             %t: tensor<2xf32>, %w3: tensor<2x3xf32>, %k: !gnn.rng_key) -> tensor<Nx3xf32> {
  %0 = gnn.gcn_conv %g, %x, %w0, %b0 : (!gnn.graph<NxE>, tensor<Nx5xf32>, tensor<5x6xf32>, tensor<6xf32>) -> tensor<Nx6xf32>
  %1 = gnn.activation relu %0 : tensor<Nx6xf32>
  %2 = gnn.dropout %1, %k {p = 0.4 : f64, stream = 0 : i64} : tensor<Nx6xf32>
  %3 = gnn.gat_conv %g, %2, %w1, %as, %ad bias %b1 key %k {heads = 2 : i64, concat = false, attn_dropout = 0.2 : f64, stream = 1 : i64}
      : (!gnn.graph<NxE>, tensor<Nx6xf32>, tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>, !gnn.rng_key) -> tensor<Nx2xf32>
  %4 = gnn.sage_conv %g, %2, %w2 bias %b2 {aggr = #gnn<aggr mean>} : (!gnn.graph<NxE>, tensor<Nx6xf32>, tensor<6x4xf32>, tensor<4xf32>) -> tensor<Nx4xf32>
  %5 = gnn.slice %4 {offset = 1 : i64} : tensor<Nx4xf32> -> tensor<Nx2xf32>
  %6 = gnn.add %3, %5 : tensor<Nx2xf32>
  %7 = gnn.layer_norm %6, %s, %t : (tensor<Nx2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<Nx2xf32>
  %8 = gnn.linear %7, %w3 : (tensor<Nx2xf32>, tensor<2x3xf32>) -> tensor<Nx3xf32>
  return %8 : tensor<Nx3xf32>
})";

/// \p text with every \p from replaced by \p to.
std::string replaceAll(std::string text, const std::string &from,
                       const std::string &to) {
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

using DecomposeEquivalenceModelTest = DecomposeFixture;

TEST_F(DecomposeEquivalenceModelTest, DecomposedModelMatchesLayerByLayer) {
  Graph g = randomGraph(kNodes, kMaxInDegree, 9);
  // Bind the model's placeholder sizes: N nodes, E edges.
  std::string n = std::to_string(kNodes);
  std::string source =
      replaceAll(replaceAll(kModel, "<NxE>",
                            "<" + n + "x" + std::to_string(g.numEdges()) + ">"),
                 "<Nx", "<" + n + "x");
  std::vector<Value> args = {g, randomTensor({kNodes, 5}, 90)};
  std::vector<std::vector<int64_t>> shapes = {
      {5, 6}, {6}, {6, 4}, {4}, {4}, {2}, {6, 4}, {4}, {2}, {2}, {2, 3}};
  for (size_t i = 0; i < shapes.size(); ++i)
    args.push_back(randomTensor(shapes[i], 91 + i));
  args.push_back(RngKey{17, 4});
  checkEquivalent(source, args);
}

} // namespace
