//===- RefTestUtil.h - Reference interpreter test helpers -------*- C++ -*-===//
//
// Parses IR from a string into a context with every gnnc dialect, runs a
// function through the interpreter, and compares tensors with tolerances.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_REFERENCE_REFTESTUTIL_H
#define GNNC_TEST_UNITTESTS_REFERENCE_REFTESTUTIL_H

#include "compiler/Reference/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace gnnc::ref::test {

/// A context with the gnnc dialects; parse failures print and return null.
class IRTest : public ::testing::Test {
protected:
  IRTest();

  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &source);

  /// Parses \p source and runs its function \p name; an error (parse or
  /// run) fails the test and yields no results.
  std::vector<Value> run(const std::string &source,
                         const std::vector<Value> &args,
                         const std::string &name = "f");

  /// Parses \p source, runs it, and returns the error message (empty when
  /// it unexpectedly succeeded).
  std::string runError(const std::string &source,
                       const std::vector<Value> &args,
                       const std::string &name = "f");

  mlir::MLIRContext context;
};

Tensor tensor(std::vector<int64_t> shape, std::vector<double> data);
IntTensor ints(std::vector<int64_t> data);
Graph graph(int64_t nodes, std::vector<int64_t> src, std::vector<int64_t> dst);

/// The 4-node graph most hand examples use; edge ids 0..4 are
/// 0->1, 2->1, 1->2, 3->2, 2->0, so in-degrees are 1, 2, 2, 0 (node 3 has
/// no incoming edge) and the edges are not sorted by destination.
Graph smallGraph();
/// Its features: rows [1, 2], [3, -1], [-2, 4], [0.5, 1].
Tensor smallFeatures();

/// The tensor inside \p v (fails the test when it is something else).
const Tensor &asTensor(const Value &v);

/// Expects \p actual to have \p shape and elements within \p tol of
/// \p expected (absolute, since hand values are O(1)).
void expectTensor(const Value &actual, const std::vector<int64_t> &shape,
                  const std::vector<double> &expected, double tol = 1e-12);

/// Whether \p text contains \p part; the failure message shows both.
::testing::AssertionResult contains(const std::string &text,
                                    const std::string &part);

} // namespace gnnc::ref::test

#endif // GNNC_TEST_UNITTESTS_REFERENCE_REFTESTUTIL_H
