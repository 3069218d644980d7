//===- GradCheck.h - Gradient checks against finite differences -*- C++ -*-===//
//
// The oracle of the autodiff tests: a vector-Jacobian product built by
// buildVJP and run by the fp64 reference interpreter must agree with central
// finite differences of L(x) = sum_k <f_k(x), r_k> for random cotangents r,
// the forward function also being run by the interpreter. Nothing here uses
// the adjoint rules, so a wrong rule cannot hide.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_TEST_UNITTESTS_AUTODIFF_GRADCHECK_H
#define GNNC_TEST_UNITTESTS_AUTODIFF_GRADCHECK_H

#include "compiler/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gnnc::autodiff::test {

using ref::Graph;
using ref::IntTensor;
using ref::RngKey;
using ref::Tensor;
using ref::Value;

/// The worst disagreement between AD and finite differences.
struct GradCheckResult {
  /// max over entries of |fd - ad| / max(|fd|, |ad|, floor).
  double maxError = 0;
  /// "gradient of argument 2, element 5: ad 0.1 fd 0.2" for the worst entry.
  std::string worst;
  /// Entries compared (a test that compared nothing proves nothing).
  int64_t entries = 0;
  /// Largest |vjp result - forward result|: the VJP recomputes the forward.
  double forwardMismatch = 0;
};

/// Relative finite-difference step (times max(|x|, 1)). In fp64 this leaves
/// truncation error O(h^2) ~ 1e-12 and rounding error ~ 1e-16 / h ~ 1e-10
/// relative to the (O(1)) outputs, both far below the 1e-6 tolerance.
constexpr double kStep = 1e-6;
/// Required agreement, relative to max(|fd|, |ad|, kFloor).
constexpr double kTolerance = 1e-6;
/// Gradients below this size are compared in absolute terms: a relative
/// error of a gradient that is zero up to rounding means nothing.
constexpr double kFloor = 1e-3;

/// Compares the gradients that \p vjp (made by buildVJP from a function
/// computing the same as \p forward) returns for the arguments \p wrt with
/// central differences of \p forward, at \p args and with cotangents drawn
/// from \p seed. The two may differ (a layer op and its decomposition).
llvm::Expected<GradCheckResult>
compareWithFiniteDifferences(mlir::func::FuncOp forward, mlir::func::FuncOp vjp,
                             const std::vector<Value> &args,
                             const std::vector<unsigned> &wrt, uint64_t seed);

/// A fixture with every gnnc dialect (and the adjoint rules) loaded.
class AutodiffTest : public ::testing::Test {
protected:
  AutodiffTest();

  /// Parses \p source after replacing each `{KEY}` of \p subst; a failure
  /// fails the test (with the diagnostics) and returns null.
  mlir::OwningOpRef<mlir::ModuleOp>
  parse(const std::string &source,
        const std::map<std::string, std::string> &subst = {});

  /// Runs the passes \p addPasses adds on \p module; returns false, with
  /// the diagnostics in the test log, on failure.
  bool runPasses(mlir::ModuleOp module,
                 const std::function<void(mlir::OpPassManager &)> &addPasses);

  /// Builds `@name.vjp` in \p module and checks all gradients of \p wrt at
  /// \p args against finite differences of `@name` itself.
  void checkGradients(mlir::ModuleOp module, const std::string &name,
                      const std::vector<Value> &args,
                      const std::vector<unsigned> &wrt, uint64_t seed = 1);

  /// Runs `@name` of \p module; an interpreter error fails the test.
  std::vector<Value> run(mlir::ModuleOp module, const std::string &name,
                         const std::vector<Value> &args);

  mlir::MLIRContext context;
  /// Diagnostics since the last parse / pass run.
  std::string diagnostics;
};

/// A 5-node graph where nodes have 2, 3, 2, 2 and 0 incoming edges (so
/// softmaxes and means see several in-edges and one node sees none); edge
/// ids are not sorted by destination.
Graph testGraph();

/// Uniform in [-1, 1) but at least \p gap away from 0: inputs of functions
/// with a kink at 0 stay on one side of it under a finite-difference step.
Tensor awayFromZero(std::vector<int64_t> shape, uint64_t seed,
                    double gap = 0.1);

/// \p op as text, for failure messages.
std::string printed(mlir::Operation *op);

/// The float tensor inside \p v, or an empty one (failing the test).
const Tensor &asTensor(const Value &v);

} // namespace gnnc::autodiff::test

#endif // GNNC_TEST_UNITTESTS_AUTODIFF_GRADCHECK_H
