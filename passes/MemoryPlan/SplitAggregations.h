//===- SplitAggregations.h - Aggregations by blocks of columns --*- C++ -*-===//
//
// An aggregation `y = A x` needs its input and its result whole on the
// device at once: on a 2M-node graph two N x 64 tensors, 1 GB, whatever the
// plan. Its columns are independent, so it can run a block of columns at a
// time, each block's result written over the same columns of x, which no
// later block reads (gnn.slice, gnn.spmm, gnn.insert_columns): the device
// then holds x and two blocks. gnn-plan-memory splits them where no plan
// fits otherwise (docs/MemoryPlanning.md, "Aggregations by column blocks").
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_PASSES_MEMORYPLAN_SPLITAGGREGATIONS_H
#define GNNC_PASSES_MEMORYPLAN_SPLITAGGREGATIONS_H

#include "dialects/Gnn/GnnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gnn {

/// The blocks an aggregation is split into by default: an eighth of its
/// columns each, so that its two blocks add a quarter of its input.
constexpr int64_t kAggregationBlocks = 8;

/// The aggregations of \p func splitAggregations splits: those that can be
/// (a `gnn.spmm` of a matrix with more than one column whose last reader
/// it is, with at most one weight per edge) and, unless \p everySize, are
/// large enough to bind a plan (twice the result above (1 + 2 / blocks)
/// times the largest one's).
SmallVector<SpmmOp> aggregationsToSplit(func::FuncOp func,
                                        int64_t blocks = kAggregationBlocks,
                                        bool everySize = false);

/// Splits aggregationsToSplit(func, blocks, everySize) into \p blocks
/// blocks of columns, the last one narrower when they do not divide;
/// returns how many it split. A restricted aggregation's slices copy only
/// the rows it reads, and its inserts (when its rest is unread) write only
/// the rows it computes.
int64_t splitAggregations(func::FuncOp func,
                          int64_t blocks = kAggregationBlocks,
                          bool everySize = false);

/// Where \p func (an inference function: predict) multiplies an
/// aggregation by a weight, `(A x) W`, rewrites it to `A (x W)` when that
/// split needs less: whole, `(A x) W` needs A x beside its product, `in +
/// out` columns of device memory; `x W` can read x a tile at a time from
/// its home, and `A (x W)` split needs `1 + 2 / blocks` times `out`. So
/// a narrowing weight always, a widening one while `2 out < blocks in`.
/// gnn-decompose aggregates first when a GCN weight widens, for the
/// step's sake (no backward aggregation), and SAGE always does; predict
/// takes the other order where the planner splits. Only sums and means
/// with one weight per edge commute with W. Returns how many it rewrote.
/// The rounding changes with the order, so only predict is rewritten,
/// whose logits only the metrics read.
int64_t multiplyFirst(func::FuncOp func, int64_t blocks = kAggregationBlocks);

} // namespace mlir::gnn

#endif // GNNC_PASSES_MEMORYPLAN_SPLITAGGREGATIONS_H
