//===- TestEmitCpp.cpp - test-emit-cpp: the CPU emitter in gnnc-opt -------===//
//
// Prints the module as the CPU target's C++ to stdout, so lit tests can
// FileCheck the emitter on hand-written IR (gnnc itself only takes `.gnn`).
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CPU/EmitCpp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

struct TestEmitCppPass
    : public PassWrapper<TestEmitCppPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestEmitCppPass)

  StringRef getArgument() const final { return "test-emit-cpp"; }
  StringRef getDescription() const final {
    return "Print the module as the CPU target's C++";
  }
  void runOnOperation() override {
    if (failed(gnn::emitCpp(getOperation(), llvm::outs())))
      signalPassFailure();
  }
};

} // namespace

namespace mlir::gnn::test {
void registerTestEmitCppPass() { PassRegistration<TestEmitCppPass>(); }
} // namespace mlir::gnn::test
