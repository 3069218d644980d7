//===- ElementwiseRuns.cpp - Runs of adjacent element-wise ops ------------===//
#include "compiler/Target/ElementwiseRuns.h"

#include "dialects/Gnn/GnnOps.h"
#include "dialects/Gnn/RowSets.h"

#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/STLExtras.h"

#include <optional>

using namespace mlir;
using namespace mlir::gnn;

namespace {

RankedTensorType resultType(Operation *op) {
  return op->getNumResults() == 1
             ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
             : RankedTensorType();
}

/// The bytes [first, last) of the arena that gnn-assign-buffers gave \p v,
/// if any (arguments and result slots are memory of their own).
std::optional<std::pair<int64_t, int64_t>> arenaBytes(Value v) {
  auto result = dyn_cast<OpResult>(v);
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!result || !type || !type.hasStaticShape())
    return std::nullopt;
  auto offsets =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
  if (!offsets || offsets.size() <= result.getResultNumber())
    return std::nullopt;
  int64_t first = offsets[result.getResultNumber()];
  if (first < 0)
    return std::nullopt;
  int64_t bytes = type.getNumElements() *
                  (type.getElementType().getIntOrFloatBitWidth() / 8);
  return std::make_pair(first, first + bytes);
}

/// Whether one pass may read \p in (at i, or at the column when
/// \p broadcast) and write \p out at i. Buffers were placed for the ops one
/// at a time, so a result may lie over an input that died at an earlier op
/// of the run, at another offset: a store would then land on an element the
/// pass has yet to read. The same bytes are safe, since each element's
/// inputs are read before it is stored.
bool safeToFuse(Value in, bool broadcast, Value out) {
  auto a = arenaBytes(in), b = arenaBytes(out);
  if (!a || !b || a->second <= b->first || b->second <= a->first)
    return true;
  return !broadcast && *a == *b;
}

} // namespace

bool mlir::gnn::buffersAllowOnePass(Value in, bool aligned, Value out) {
  return safeToFuse(in, !aligned, out);
}

SmallVector<SmallVector<Operation *>>
mlir::gnn::elementwiseRuns(Block &block,
                           llvm::function_ref<bool(Operation *)> fusible) {
  SmallVector<SmallVector<Operation *>> runs;
  SmallVector<Operation *> current;
  RankedTensorType shape;
  // The rows the run computes: one pass computes one set of rows.
  std::optional<RowRestriction> rows;
  auto sameRows = [&](Operation *op) {
    std::optional<RowRestriction> mine = getRowRestriction(op);
    if (!mine || !rows)
      return !mine && !rows;
    return mine->rowSets == rows->rowSets && mine->level == rows->level;
  };
  // Whether \p op may join `current` as far as its buffers go: none of its
  // results over a value the run reads, none of its operands under a value
  // the run writes (safeToFuse).
  auto buffersAllow = [&](Operation *op) {
    for (Operation *member : current) {
      for (auto [in, broadcast] : elementwiseReads(member))
        for (Value out : op->getResults())
          if (!safeToFuse(in, broadcast, out))
            return false;
      for (auto [in, broadcast] : elementwiseReads(op))
        for (Value out : member->getResults())
          if (!safeToFuse(in, broadcast, out))
            return false;
    }
    for (auto [in, broadcast] : elementwiseReads(op))
      for (Value out : op->getResults())
        if (!safeToFuse(in, broadcast, out))
          return false;
    return true;
  };
  for (Operation &op : block) {
    if (!fusible(&op)) {
      if (!current.empty())
        runs.push_back(std::move(current));
      current.clear();
      continue;
    }
    RankedTensorType type = resultType(&op);
    if (!current.empty() && (type.getShape() != shape.getShape() ||
                             !sameRows(&op) || !buffersAllow(&op))) {
      runs.push_back(std::move(current));
      current.clear();
    }
    shape = type;
    rows = getRowRestriction(&op);
    current.push_back(&op);
  }
  if (!current.empty())
    runs.push_back(std::move(current));
  return runs;
}
