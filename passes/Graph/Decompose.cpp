//===- Decompose.cpp - gnn-decompose --------------------------------------===//
#include "passes/Passes.h"

namespace mlir::gnn {
#define GEN_PASS_DEF_GNNDECOMPOSE
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;
using namespace mlir::gnn;

namespace {
// Placeholder until the rewrite lands: refuses rather than passing layers on.
struct DecomposePass : mlir::gnn::impl::GnnDecomposeBase<DecomposePass> {
  void runOnOperation() override {
    getOperation().emitError("gnn-decompose is not supported yet");
    signalPassFailure();
  }
};
} // namespace
