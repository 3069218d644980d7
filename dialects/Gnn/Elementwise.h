//===- Elementwise.h - Which gnn ops compute element by element -*- C++ -*-===//
//
// One definition, shared by the passes and both targets, of the ops whose
// every result element depends on the same element of their tensor operands
// (and on whole broadcast operands). Three clients ask: the targets fuse
// adjacent runs of them into one pass over memory (ElementwiseRuns.h), and
// the memory planner's liveness lets such an op write its result over an
// operand that dies at it (Liveness.h), which every kernel of these ops on
// both targets allows because it reads an element before writing it.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_DIALECTS_GNN_ELEMENTWISE_H
#define GNNC_DIALECTS_GNN_ELEMENTWISE_H

#include "mlir/IR/Operation.h"

#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlir::gnn {

/// An f32 element-wise op whose one result has the run's shape: add, sub,
/// mul, scale, activation and its gradient, bias_add, row_mul, zeros, with
/// every tensor operand plain f32 (no CSR, no narrow storage) but its row
/// sets, if gnn-restrict-rows gave it some (RowSets.h).
bool isElementwiseOp(Operation *op);

/// A gnn.dropout of a plain f32 tensor into a plain f32 tensor (not the
/// CSR dropout of sparse features, whose result is laid out differently).
bool isDenseDropout(Operation *op);

/// The tensor operands of an element-wise op (isElementwiseOp or
/// isDenseDropout), each with whether it is read at the column (the [cols]
/// bias of bias_add, the scale of row_mul) rather than at the element. The
/// row sets are not among them: they choose rows, not values.
SmallVector<std::pair<Value, bool>> elementwiseReads(Operation *op);

} // namespace mlir::gnn

#endif // GNNC_DIALECTS_GNN_ELEMENTWISE_H
