//===- gnnc-opt.cpp - gnnc's mlir-opt -------------------------------------===//
//
// Runs any registered pass or pipeline on MLIR input; every gnnc pass is
// also runnable here alone, which is how the lit tests exercise them.
//
//===----------------------------------------------------------------------===//
#include "dialects/Gnn/GnnOps.h"
#include "dialects/Train/TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();

  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::tensor::TensorDialect, mlir::gnn::GnnDialect,
                  mlir::train::TrainDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gnnc optimizer driver\n", registry));
}
