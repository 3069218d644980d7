//===- Autodiff.cpp - gnn-autodiff ----------------------------------------===//
#include "passes/Passes.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNAUTODIFF
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {
// Placeholder until the step builder lands: refuses rather than guessing.
struct AutodiffPass : mlir::gnn::impl::GnnAutodiffBase<AutodiffPass> {
  void runOnOperation() override {
    getOperation().emitError("gnn-autodiff is not supported yet");
    signalPassFailure();
  }
};
} // namespace
