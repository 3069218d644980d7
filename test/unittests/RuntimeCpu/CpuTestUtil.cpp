//===- CpuTestUtil.cpp - Helpers for the CPU kernel tests -----------------===//
#include "CpuTestUtil.h"

#include "passes/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace gnnrt::cpu::test {

gnnrt_graph CsrGraph::view() const {
  gnnrt_graph g;
  g.num_nodes = nodes;
  g.num_edges = edges;
  g.in = {inPtr.data(), inSrc.data(), inId.data()};
  g.out = {outPtr.data(), outSrc.data(), outId.data()};
  return g;
}

namespace {

/// One CSR grouped by \p rowOf, listing \p otherOf, slots by decreasing id.
void buildCsr(int64_t nodes, const std::vector<int64_t> &rowOf,
              const std::vector<int64_t> &otherOf, std::vector<int32_t> &ptr,
              std::vector<int32_t> &other, std::vector<int32_t> &id) {
  std::vector<std::vector<int64_t>> rows(nodes);
  for (size_t e = 0; e < rowOf.size(); ++e)
    rows[rowOf[e]].push_back(static_cast<int64_t>(e));
  ptr.assign(1, 0);
  other.clear();
  id.clear();
  for (auto &r : rows) {
    std::sort(r.rbegin(), r.rend());
    for (int64_t e : r) {
      other.push_back(static_cast<int32_t>(otherOf[e]));
      id.push_back(static_cast<int32_t>(e));
    }
    ptr.push_back(static_cast<int32_t>(other.size()));
  }
}

} // namespace

CsrGraph toCsr(const ref::Graph &g) {
  CsrGraph c;
  c.nodes = g.nodes;
  c.edges = g.numEdges();
  buildCsr(g.nodes, g.dst, g.src, c.inPtr, c.inSrc, c.inId);
  buildCsr(g.nodes, g.src, g.dst, c.outPtr, c.outSrc, c.outId);
  return c;
}

ref::Graph withSelfLoops(const ref::Graph &g) {
  ref::Graph r = g;
  for (int64_t i = 0; i < g.nodes; ++i) {
    r.src.push_back(i);
    r.dst.push_back(i);
  }
  return r;
}

ref::Tensor randomF32(std::vector<int64_t> shape, uint64_t seed, double lo,
                      double hi) {
  ref::Tensor t = ref::randomTensor(std::move(shape), seed, lo, hi);
  for (double &v : t.data)
    v = static_cast<float>(v);
  return t;
}

ref::Tensor randomQuarters(std::vector<int64_t> shape, uint64_t seed) {
  ref::Tensor t = ref::randomTensor(std::move(shape), seed);
  for (double &v : t.data)
    v = std::round(v * 4) / 4;
  return t;
}

std::vector<float> toF32(const ref::Tensor &t) {
  return std::vector<float>(t.data.begin(), t.data.end());
}

std::string tensorType(const std::vector<int64_t> &shape) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

std::string graphType(int64_t nodes, int64_t edges) {
  return "!gnn.graph<" + std::to_string(nodes) + "x" + std::to_string(edges) +
         ">";
}

KernelTest::KernelTest() { mlir::gnn::loadGnncDialects(context); }

std::vector<ref::Value>
KernelTest::reference(const std::string &source,
                      const std::vector<ref::Value> &args) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module) {
    ADD_FAILURE() << "parse failed:\n" << diagnostics << source;
    return {};
  }
  auto results = ref::run(*module, "f", args);
  if (!results) {
    ADD_FAILURE() << "interpreter error: "
                  << llvm::toString(results.takeError()) << "\n"
                  << source;
    return {};
  }
  return std::move(*results);
}

namespace {

const ref::Tensor *tensorOf(const ref::Value &v) {
  return std::get_if<ref::Tensor>(&v);
}

} // namespace

::testing::AssertionResult closeTo(const std::vector<float> &got,
                                   const ref::Value &want, double rtol,
                                   double atol) {
  const ref::Tensor *t = tensorOf(want);
  if (!t)
    return ::testing::AssertionFailure() << "the reference is not a tensor";
  if (got.size() != t->data.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, the reference has " << t->data.size();
  double scale = 0;
  for (double v : t->data)
    scale = std::max(scale, std::fabs(v));
  double worst = 0;
  size_t worstAt = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - t->data[i]);
    if (!(err <= worst)) { // NaN counts as the worst
      worst = err;
      worstAt = i;
    }
  }
  if (worst <= rtol * scale + atol)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "element " << worstAt << ": got " << got[worstAt] << ", want "
         << t->data[worstAt] << " (error " << worst << " > " << rtol << " * "
         << scale << " + " << atol << ")";
}

::testing::AssertionResult roundedEqual(const std::vector<float> &got,
                                        const ref::Value &want) {
  const ref::Tensor *t = tensorOf(want);
  if (!t)
    return ::testing::AssertionFailure() << "the reference is not a tensor";
  if (got.size() != t->data.size())
    return ::testing::AssertionFailure()
           << got.size() << " elements, the reference has " << t->data.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != static_cast<float>(t->data[i]))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << ", want "
             << static_cast<float>(t->data[i]);
  return ::testing::AssertionSuccess();
}

} // namespace gnnrt::cpu::test
