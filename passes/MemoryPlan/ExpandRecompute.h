//===- ExpandRecompute.h - Inline mem.recompute regions ---------*- C++ -*-===//
//
// After planning, a `mem.recompute` is just its region's ops run again at
// the recompute point. Buffer assignment and the emitters work on flat
// blocks, so the region is inlined in place: its ops are cloned before the
// op (block arguments mapped to the op's inputs) and its results replaced
// by the yielded values. Nothing may CSE the clones with the originals
// afterwards; the pipeline runs no CSE after gnn-plan-memory.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_EXPANDRECOMPUTE_H
#define GNNC_PASSES_MEMORYPLAN_EXPANDRECOMPUTE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gnn {

/// Inlines every `mem.recompute` of \p func's body; returns how many.
int64_t expandRecomputes(func::FuncOp func);

} // namespace mlir::gnn

#endif // GNNC_PASSES_MEMORYPLAN_EXPANDRECOMPUTE_H
