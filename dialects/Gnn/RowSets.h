//===- RowSets.h - The row restriction of gnn-restrict-rows -----*- C++ -*-===//
//
// gnn-restrict-rows gives some ops the nested row sets of
// gnn.receptive_rows and a level: such an op computes only the rows of
// R_level (what it means for each op is in its ODS description). The ops
// spell it alike, an optional `row_sets` operand and a `level` attribute;
// these functions read and set it on any of them, for the pass, the
// targets and the reference interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef GNNC_DIALECTS_GNN_ROWSETS_H
#define GNNC_DIALECTS_GNN_ROWSETS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::gnn {

/// A unit attribute of a restricted op whose result no op reads outside its
/// set: its kernel need not zero the other rows (they hold whatever the
/// buffer held). Set by gnn-restrict-rows; dropping it is always safe.
inline constexpr llvm::StringLiteral kRestUnreadAttr = "gnn.rest_unread";

/// An argument attribute (i64 k) of a function that reads the argument, a
/// dense node matrix, at the rows of R_k of its row sets only: the other
/// rows need not be on the device. Set by gnn-restrict-rows on the
/// features; dropping it is always safe.
inline constexpr llvm::StringLiteral kRowsReadAttr = "gnn.rows_read";

/// The most hops row sets describe: a level takes a byte (the runtime's
/// GNNRT_ROW_SETS_MAX_HOPS, which RowSets.cpp asserts equal).
inline constexpr int64_t kMaxRowSetHops = 126;

/// The i32 length of gnn.receptive_rows' result over \p nodes nodes: the
/// hops + 1 counts, the order's `nodes` entries, and the levels a byte each
/// rounded up to whole integers (the runtime's gnnrt_row_sets_length, which
/// lays the buffer out).
int64_t rowSetsLength(int64_t nodes, int64_t hops);

/// The hops of row sets of \p length integers over \p nodes rows; negative
/// when no row sets have that length.
int64_t rowSetsHops(int64_t length, int64_t nodes);

/// |R_level| of the sets \p rowSets (a gnn.receptive_rows of the step's
/// training mask) makes, estimated before any data exists: |R_0| is the
/// training set's size (`train.config`'s `train_nodes`), and each hop
/// |R_k+1| = N (1 - (1 - |R_k| / N)^(E / N)), as if each node's E / N
/// in-edges (self loops included) had independent sources. It misses both
/// ways, since degrees vary: high where neighbourhoods overlap (Facebook:
/// 13,660 for |R_2| = 10,346), low where hubs bring many neighbours (the
/// 2M-node synthetic graph: 34,266 for |R_3| = 167,285). For
/// gnn.receptive_edges, |E_level| = |R_level| E / N edges, as if every node
/// had E / N in-edges.
/// std::nullopt when \p rowSets is not such an op or the size is unknown.
std::optional<double> estimateSetRows(Operation *rowSets, int64_t level);

/// Whether \p op makes row sets: gnn.receptive_rows over a graph's nodes,
/// or gnn.receptive_edges over its edges.
bool makesRowSets(Operation *op);

/// The row sets an op computes over and the level of its set.
struct RowRestriction {
  Value rowSets;
  int64_t level;
};

/// Whether \p op is of a kind that can take row sets.
bool takesRowSets(Operation *op);

/// \p op's restriction, if it has one.
std::optional<RowRestriction> getRowRestriction(Operation *op);

/// Restricts \p op (takesRowSets) to the rows of R_level of \p rowSets.
void setRowRestriction(Operation *op, Value rowSets, int64_t level);

/// Whether \p op is an edge kernel that can take row sets: gnn.sddmm,
/// gnn.edge_add, gnn.edge_softmax and gnn.edge_softmax_grad, whose result
/// has a row per edge. Restricted, such an op computes only the edge rows of
/// the edges into R_level (its graph's destinations), so its result's rows
/// are not the sets' rows: getRowRestriction does not see it, and nothing
/// that moves or reads a restricted value by its rows (host copies of rows,
/// fused row runs) takes it for one.
bool takesEdgeRowSets(Operation *op);

/// \p op's restriction to the edges into R_level, if it has one.
std::optional<RowRestriction> getEdgeRestriction(Operation *op);

/// Restricts \p op (takesEdgeRowSets) to the edges into R_level.
void setEdgeRestriction(Operation *op, Value rowSets, int64_t level);

/// The rows of an edge kernel's result that it computes, as row sets over
/// the edges: E_level of a gnn.receptive_edges of its sets (of at least
/// level hops) that precedes it in its block, if one does. For what moves
/// such a result by its rows (host copies, signs).
std::optional<RowRestriction> getEdgeRows(Operation *op);

/// getRowRestriction or getEdgeRestriction, whichever \p op has: for what
/// needs only the set's share of an op's work (its cost, whether its
/// target runs it), not which rows its result holds.
std::optional<RowRestriction> getAnyRestriction(Operation *op);

} // namespace mlir::gnn

#endif // GNNC_DIALECTS_GNN_ROWSETS_H
