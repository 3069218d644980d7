//===- RowSets.cpp - The row restriction of gnn-restrict-rows ------------===//
#include "dialects/Gnn/RowSets.h"

#include "dialects/Gnn/GnnOps.h"

#include "gnnrt/Kernels.h"

#include "mlir/IR/BuiltinAttributes.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

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

/// The training set's size (`train.config`'s `train_nodes`) when \p mask is
/// the function's `train_mask` argument.
/// (Read through the function's generic attributes: the dialect does not
/// depend on func.)
std::optional<int64_t> trainNodesOf(Value mask) {
  auto arg = dyn_cast<BlockArgument>(mask);
  Operation *func = arg ? arg.getOwner()->getParentOp() : nullptr;
  if (!func)
    return std::nullopt;
  auto argAttrs = func->getAttrOfType<ArrayAttr>("arg_attrs");
  auto attrs = argAttrs && arg.getArgNumber() < argAttrs.size()
                   ? dyn_cast<DictionaryAttr>(argAttrs[arg.getArgNumber()])
                   : DictionaryAttr();
  auto role = attrs ? attrs.getAs<StringAttr>("gnn.input") : StringAttr();
  auto config = func->getAttrOfType<DictionaryAttr>("train.config");
  if (!role || role.getValue() != "train_mask" || !config)
    return std::nullopt;
  auto count = config.getAs<IntegerAttr>("train_nodes");
  if (!count || count.getInt() < 0)
    return std::nullopt;
  return count.getInt();
}

/// A graph's node and edge counts, when both are static and it has nodes.
std::optional<std::pair<double, double>> graphCounts(Value graph) {
  auto type = dyn_cast<GraphType>(graph.getType());
  if (!type || !type.hasStaticNodes() || !type.hasStaticEdges() ||
      type.getNodes() <= 0)
    return std::nullopt;
  return std::make_pair(static_cast<double>(type.getNodes()),
                        static_cast<double>(type.getEdges()));
}

} // namespace

std::optional<double> mlir::gnn::estimateSetRows(Operation *rowSets,
                                                 int64_t level) {
  if (auto edges = dyn_cast_or_null<ReceptiveEdgesOp>(rowSets)) {
    // The edges into R_level: its nodes' share of the edges.
    std::optional<std::pair<double, double>> g = graphCounts(edges.getGraph());
    if (level > static_cast<int64_t>(edges.getHops()) || !g)
      return std::nullopt;
    std::optional<double> rows =
        estimateSetRows(edges.getSets().getDefiningOp(), level);
    if (!rows)
      return std::nullopt;
    return *rows * g->second / g->first;
  }
  auto sets = dyn_cast_or_null<ReceptiveRowsOp>(rowSets);
  if (!sets || level < 0 || level > static_cast<int64_t>(sets.getHops()))
    return std::nullopt;
  std::optional<std::pair<double, double>> g = graphCounts(sets.getGraph());
  std::optional<int64_t> seeds = trainNodesOf(sets.getMask());
  if (!seeds || !g)
    return std::nullopt;
  const double n = g->first;
  const double degree = g->second / n;
  double rows = std::min(n, static_cast<double>(*seeds));
  for (int64_t k = 0; k < level; ++k)
    rows = n * (1.0 - std::pow(1.0 - rows / n, degree));
  return rows;
}

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
