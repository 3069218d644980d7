//===- RowSets.cpp - The row restriction of gnn-restrict-rows ------------===//
#include "dialects/Gnn/RowSets.h"

#include "dialects/Gnn/GnnOps.h"

#include "gnnrt/Kernels.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gnn;

namespace {

/// Calls \p fn with \p op as its concrete class if that class takes row
/// sets; returns whether it did.
template <typename Fn> bool withRowOp(Operation *op, Fn fn) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<SpmmOp, MatmulOp, DropoutOp, BiasAddOp, RowMulOp, ReduceOp, AddOp,
            SubOp, MulOp, ScaleOp, ActivationOp, ActivationGradOp, SliceOp,
            InsertColumnsOp, ScatterOp>([&](auto o) {
        fn(o);
        return true;
      })
      .Default([](Operation *) { return false; });
}

/// withRowOp for the edge kernels, whose level names destinations.
template <typename Fn> bool withEdgeRowOp(Operation *op, Fn fn) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<SddmmOp, EdgeAddOp, EdgeSoftmaxOp, EdgeSoftmaxGradOp>([&](auto o) {
        fn(o);
        return true;
      })
      .Default([](Operation *) { return false; });
}

/// The restriction \p with finds on \p op.
template <typename With>
std::optional<RowRestriction> restrictionOf(Operation *op, With with) {
  std::optional<RowRestriction> restriction;
  with(op, [&](auto o) {
    if (Value sets = o.getRowSets())
      restriction = RowRestriction{sets, static_cast<int64_t>(*o.getLevel())};
  });
  return restriction;
}

/// Sets \p op's row sets and level through \p with.
template <typename With>
void restrict(Operation *op, Value rowSets, int64_t level, With with) {
  bool known = with(op, [&](auto o) {
    o.getRowSetsMutable().assign(rowSets);
    o.setLevelAttr(Builder(op->getContext()).getI64IntegerAttr(level));
  });
  assert(known && "the op takes no row sets");
  (void)known;
}

/// withRowOp and withEdgeRowOp as callables.
constexpr auto kRowOps = [](Operation *op, auto fn) {
  return withRowOp(op, fn);
};
constexpr auto kEdgeRowOps = [](Operation *op, auto fn) {
  return withEdgeRowOp(op, fn);
};

} // namespace

static_assert(kMaxRowSetHops == GNNRT_ROW_SETS_MAX_HOPS,
              "the compiler's row sets and the runtime's must agree");

int64_t mlir::gnn::rowSetsLength(int64_t nodes, int64_t hops) {
  return gnnrt_row_sets_length(nodes, hops);
}

int64_t mlir::gnn::rowSetsHops(int64_t length, int64_t nodes) {
  return length - rowSetsLength(nodes, 0);
}

bool mlir::gnn::takesRowSets(Operation *op) {
  return withRowOp(op, [](auto) {});
}

std::optional<RowRestriction> mlir::gnn::getRowRestriction(Operation *op) {
  return restrictionOf(op, kRowOps);
}

void mlir::gnn::setRowRestriction(Operation *op, Value rowSets, int64_t level) {
  restrict(op, rowSets, level, kRowOps);
}

bool mlir::gnn::takesEdgeRowSets(Operation *op) {
  return withEdgeRowOp(op, [](auto) {});
}

std::optional<RowRestriction> mlir::gnn::getEdgeRestriction(Operation *op) {
  return restrictionOf(op, kEdgeRowOps);
}

void mlir::gnn::setEdgeRestriction(Operation *op, Value rowSets,
                                   int64_t level) {
  restrict(op, rowSets, level, kEdgeRowOps);
}

std::optional<RowRestriction> mlir::gnn::getAnyRestriction(Operation *op) {
  if (std::optional<RowRestriction> rows = getRowRestriction(op))
    return rows;
  return getEdgeRestriction(op);
}
