//===- InputArguments.h - A function's dataset inputs -----------*- C++ -*-===//
//
// MLIRGen marks each argument of a train block's functions that the runtime
// binds from the dataset with `gnn.input = ROLE` ("graph", "features",
// "train_mask", ...). The graph passes look them up by role.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_GRAPH_INPUTARGUMENTS_H
#define GNNC_PASSES_GRAPH_INPUTARGUMENTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gnn {

/// \p func's first argument with `gnn.input = role`, if any.
BlockArgument inputArgument(func::FuncOp func, StringRef role);

} // namespace mlir::gnn

#endif // GNNC_PASSES_GRAPH_INPUTARGUMENTS_H
