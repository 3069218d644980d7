//===- RowSets.cpp - The row restriction of gnn-restrict-rows ------------===//
#include "dialects/Gnn/RowSets.h"

#include "dialects/Gnn/GnnOps.h"

#include "gnnrt/Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// Calls \p fn with \p op as its concrete class if that class takes row
/// sets, the row ops' or (\p Edges) the edge kernels', whose level names
/// destinations; returns whether it did.
template <bool Edges, typename Fn> bool withRowOp(Operation *op, Fn fn) {
  auto call = [&](auto o) {
    fn(o);
    return true;
  };
  if constexpr (Edges)
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case<SddmmOp, EdgeAddOp, EdgeSoftmaxOp, EdgeSoftmaxGradOp>(call)
        .Default([](Operation *) { return false; });
  else
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case<SpmmOp, MatmulOp, DropoutOp, BiasAddOp, RowMulOp, ReduceOp, AddOp,
              SubOp, MulOp, ScaleOp, ActivationOp, ActivationGradOp, SliceOp,
              InsertColumnsOp, ScatterOp, ConcatOp>(call)
        .Default([](Operation *) { return false; });
}

/// The restriction of \p op, of the row ops or (\p Edges) the edge kernels.
template <bool Edges>
std::optional<RowRestriction> restrictionOf(Operation *op) {
  std::optional<RowRestriction> restriction;
  withRowOp<Edges>(op, [&](auto o) {
    if (Value sets = o.getRowSets())
      restriction = RowRestriction{sets, static_cast<int64_t>(*o.getLevel())};
  });
  return restriction;
}

/// Sets \p op's row sets and level (a row op or, \p Edges, an edge kernel).
template <bool Edges>
void restrict(Operation *op, Value rowSets, int64_t level) {
  bool known = withRowOp<Edges>(op, [&](auto o) {
    o.getRowSetsMutable().assign(rowSets);
    o.setLevelAttr(Builder(op->getContext()).getI64IntegerAttr(level));
  });
  assert(known && "the op takes no row sets");
  (void)known;
}

} // namespace

static_assert(kMaxRowSetHops == GNNRT_ROW_SETS_MAX_HOPS,
              "the compiler's row sets and the runtime's must agree");

int64_t mlir::gnn::rowSetsLength(int64_t nodes, int64_t hops) {
  return gnnrt_row_sets_length(nodes, hops);
}

int64_t mlir::gnn::rowSetsHops(int64_t length, int64_t nodes) {
  return length - rowSetsLength(nodes, 0);
}

bool mlir::gnn::makesRowSets(Operation *op) {
  return isa_and_nonnull<ReceptiveRowsOp, ReceptiveEdgesOp>(op);
}

bool mlir::gnn::takesRowSets(Operation *op) {
  return withRowOp<false>(op, [](auto) {});
}

std::optional<RowRestriction> mlir::gnn::getRowRestriction(Operation *op) {
  return restrictionOf<false>(op);
}

void mlir::gnn::setRowRestriction(Operation *op, Value rowSets, int64_t level) {
  restrict<false>(op, rowSets, level);
}

bool mlir::gnn::takesEdgeRowSets(Operation *op) {
  return withRowOp<true>(op, [](auto) {});
}

std::optional<RowRestriction> mlir::gnn::getEdgeRestriction(Operation *op) {
  return restrictionOf<true>(op);
}

void mlir::gnn::setEdgeRestriction(Operation *op, Value rowSets,
                                   int64_t level) {
  restrict<true>(op, rowSets, level);
}

std::optional<RowRestriction> mlir::gnn::getAnyRestriction(Operation *op) {
  if (std::optional<RowRestriction> rows = getRowRestriction(op))
    return rows;
  return getEdgeRestriction(op);
}

std::optional<RowRestriction> mlir::gnn::getEdgeRows(Operation *op) {
  std::optional<RowRestriction> edges = getEdgeRestriction(op);
  if (!edges)
    return std::nullopt;
  // The edge kernels' results have a row per edge of their graph, as the
  // edge sets do: gnn-restrict-rows gives both the one edge set it tracks.
  for (Operation *user : edges->rowSets.getUsers()) {
    auto sets = dyn_cast<ReceptiveEdgesOp>(user);
    if (sets && static_cast<int64_t>(sets.getHops()) >= edges->level &&
        sets->getBlock() == op->getBlock() && sets->isBeforeInBlock(op) &&
        sets.getGraph().getType().getEdges() ==
            cast<ShapedType>(op->getResult(0).getType()).getDimSize(0))
      return RowRestriction{sets.getResult(), edges->level};
  }
  return std::nullopt;
}
