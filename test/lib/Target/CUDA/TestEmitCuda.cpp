//===- TestEmitCuda.cpp - test-emit-cuda: the CUDA emitter in gnnc-opt ----===//
//
// Prints the module as the CUDA target's unit to stdout, so lit tests can
// FileCheck the emitter (kernels, fusion, host calls) on hand-written IR.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CUDA/EmitCuda.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

struct TestEmitCudaPass
    : public PassWrapper<TestEmitCudaPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestEmitCudaPass)

  StringRef getArgument() const final { return "test-emit-cuda"; }
  StringRef getDescription() const final {
    return "Print the module as the CUDA target's unit";
  }
  void runOnOperation() override {
    if (failed(gnn::emitCuda(getOperation(), llvm::outs())))
      signalPassFailure();
  }
};

} // namespace

namespace mlir::gnn::test {
void registerTestEmitCudaPass() { PassRegistration<TestEmitCudaPass>(); }
} // namespace mlir::gnn::test
