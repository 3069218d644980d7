//===- RefTestUtil.cpp - Helpers for the reference interpreter tests ------===//
#include "RefTestUtil.h"

#include "passes/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/Error.h"

namespace gnnc::ref::test {

IRTest::IRTest() { mlir::gnn::loadGnncDialects(context); }

mlir::OwningOpRef<mlir::ModuleOp> IRTest::parse(const std::string &source) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return mlir::success();
  });
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module) << "parse failed:\n" << diagnostics << source;
  return module;
}

std::vector<Value> IRTest::run(const std::string &source,
                               const std::vector<Value> &args,
                               const std::string &name) {
  auto module = parse(source);
  if (!module)
    return {};
  auto results = ref::run(*module, name, args);
  if (!results) {
    ADD_FAILURE() << "interpreter error: "
                  << llvm::toString(results.takeError());
    return {};
  }
  return std::move(*results);
}

std::string IRTest::runError(const std::string &source,
                             const std::vector<Value> &args,
                             const std::string &name) {
  auto module = parse(source);
  if (!module)
    return "<parse failure>";
  auto results = ref::run(*module, name, args);
  if (results) {
    ADD_FAILURE() << "expected an interpreter error";
    return "";
  }
  return llvm::toString(results.takeError());
}

Tensor tensor(std::vector<int64_t> shape, std::vector<double> data) {
  Tensor t;
  t.shape = std::move(shape);
  t.data = std::move(data);
  return t;
}

IntTensor ints(std::vector<int64_t> data) {
  IntTensor t;
  t.shape = {static_cast<int64_t>(data.size())};
  t.data = std::move(data);
  return t;
}

Graph graph(int64_t nodes, std::vector<int64_t> src, std::vector<int64_t> dst) {
  Graph g;
  g.nodes = nodes;
  g.src = std::move(src);
  g.dst = std::move(dst);
  return g;
}

Graph smallGraph() { return graph(4, {0, 2, 1, 3, 2}, {1, 1, 2, 2, 0}); }

Tensor smallFeatures() { return tensor({4, 2}, {1, 2, 3, -1, -2, 4, 0.5, 1}); }

const Tensor &asTensor(const Value &v) {
  static const Tensor empty;
  auto *t = std::get_if<Tensor>(&v);
  EXPECT_TRUE(t) << "not a float tensor";
  return t ? *t : empty;
}

void expectTensor(const Value &actual, const std::vector<int64_t> &shape,
                  const std::vector<double> &expected, double tol) {
  const Tensor &t = asTensor(actual);
  ASSERT_EQ(t.shape, shape);
  ASSERT_EQ(t.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.data[i], expected[i], tol) << "element " << i;
}

::testing::AssertionResult contains(const std::string &text,
                                    const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not contain \"" << part << "\"";
}

} // namespace gnnc::ref::test
