//===- Passes.td - gnnc passes -----------------------------*- tablegen -*-===//
//
// Every gnnc pass, declared once. Each is implemented in a file of the same
// name (gnn-decompose -> Graph/Decompose.cpp) and tested by a lit test of
// the same name (test/Passes/decompose.mlir).
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES
#define GNNC_PASSES

include "mlir/Pass/PassBase.td"

def GnnDecompose : Pass<"gnn-decompose", "::mlir::ModuleOp"> {
  let summary = "Rewrite layer ops into gnn primitives";
  let description = [{
    Replaces every layer op (`gnn.gcn_conv`, `gnn.sage_conv`, `gnn.gat_conv`,
    `gnn.graph_conv`, `gnn.gin_conv`, `gnn.linear`, `gnn.batch_norm`,
    `gnn.layer_norm`) by primitives. Graph-derived values (the graph with
    self loops, GCN's symmetric edge weights) are created once per function
    at its entry and shared by every layer that needs them. Each new op
    keeps the layer's location, so later errors point at the `.gnn` line.
  }];
  let dependentDialects = ["::mlir::gnn::GnnDialect"];
  let statistics = [
    Statistic<"numLayers", "layers", "Number of layer ops decomposed">,
  ];
}

def GnnAutodiff : Pass<"gnn-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step: forward, loss, gradients, update";
  let description = [{
    For every decomposed model function carrying a `train.config`
    attribute, creates `@M.init`, `@M.step` (or `@M.grad_step` and
    `@M.apply_step` when `accumulate > 1`) and `@M.predict` in the `train`
    dialect, and erases the model function. Gradients come from reverse-mode
    differentiation through `DifferentiableOpInterface`; layer ops must be
    decomposed first.
  }];
  let dependentDialects = ["::mlir::gnn::GnnDialect",
                           "::mlir::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numAdjoints", "adjoints", "Number of adjoint rules applied">,
  ];
}

#endif // GNNC_PASSES
