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
            InsertColumnsOp>([&](auto o) {
        fn(o);
        return true;
      })
      .Default([](Operation *) { return false; });
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

bool mlir::gnn::takesRowSets(Operation *op) {
  return withRowOp(op, [](auto) {});
}

std::optional<RowRestriction> mlir::gnn::getRowRestriction(Operation *op) {
  std::optional<RowRestriction> restriction;
  withRowOp(op, [&](auto o) {
    if (Value sets = o.getRowSets())
      restriction = RowRestriction{sets, static_cast<int64_t>(*o.getLevel())};
  });
  return restriction;
}

void mlir::gnn::setRowRestriction(Operation *op, Value rowSets, int64_t level) {
  bool known = withRowOp(op, [&](auto o) {
    o.getRowSetsMutable().assign(rowSets);
    o.setLevelAttr(Builder(op->getContext()).getI64IntegerAttr(level));
  });
  assert(known && "the op takes no row sets");
  (void)known;
}
