//===- gnnc-opt.cpp - gnnc's mlir-opt -------------------------------------===//
//
// Runs any registered pass or pipeline on MLIR input; every gnnc pass is
// also runnable here alone, which is how the lit tests exercise them.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipeline/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::gnn::test {
void registerTestEmitCppPass();
void registerTestEmitCudaPass();
void registerTestPrintMemoryPlanPass();
} // namespace mlir::gnn::test

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::gnn::registerGnncPassesAndPipeline();
  mlir::gnn::test::registerTestEmitCppPass();
  mlir::gnn::test::registerTestEmitCudaPass();
  mlir::gnn::test::registerTestPrintMemoryPlanPass();

  mlir::DialectRegistry registry;
  mlir::gnn::registerGnncDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gnnc optimizer driver\n", registry));
}
