//===- HoistPrefetches.cpp - mem-hoist-prefetches -------------------------===//
//
// Moves each host-tier mem.prefetch up to where its arena bytes were last
// touched, so that the CUDA target's copy stream brings the tensor back
// while the compute stream runs the ops in between.
//
//===----------------------------------------------------------------------===//
#include "dialects/Mem/MemOps.h"
#include "passes/MemoryPlan/Liveness.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <utility>

namespace mlir::gnn {
#define GEN_PASS_DEF_MEMHOISTPREFETCHES
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;

namespace {

using Range = std::pair<int64_t, int64_t>;

/// The arena bytes \p v occupies (gnn-assign-buffers' gnn.offsets), none
/// when it lives elsewhere (an argument, a result slot), or std::nullopt
/// when its place cannot be told.
std::optional<std::optional<Range>> arenaBytes(Value v) {
  auto result = dyn_cast<OpResult>(v);
  if (!result)
    return std::optional<Range>();
  auto offsets =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>("gnn.offsets");
  if (!offsets)
    return std::optional<Range>();
  if (static_cast<int64_t>(result.getResultNumber()) >= offsets.size())
    return std::nullopt;
  int64_t offset = offsets[result.getResultNumber()];
  if (offset < 0)
    return std::optional<Range>();
  std::optional<int64_t> bytes = mlir::gnn::storageBytes(v);
  if (!bytes)
    return std::nullopt;
  return std::optional<Range>(Range{offset, offset + *bytes});
}

/// Whether \p op reads or writes any of the arena bytes \p slot, or may.
bool touches(Operation *op, Range slot) {
  if (op->getNumRegions() > 0)
    return true;
  auto overlaps = [&](Value v) {
    std::optional<std::optional<Range>> bytes = arenaBytes(v);
    if (!bytes)
      return true;
    return *bytes && (*bytes)->first < slot.second &&
           slot.first < (*bytes)->second;
  };
  return llvm::any_of(op->getOperands(), overlaps) ||
         llvm::any_of(op->getResults(), overlaps);
}

struct HoistPrefetchesPass
    : mlir::gnn::impl::MemHoistPrefetchesBase<HoistPrefetchesPass> {
  void runOnOperation() override {
    SmallVector<mem::PrefetchOp> prefetches;
    getOperation().walk([&](mem::PrefetchOp op) { prefetches.push_back(op); });
    for (mem::PrefetchOp prefetch : prefetches) {
      // Whole tensors from host memory only: a disk prefetch is a
      // synchronous read, and row or tile reads are the CPU's.
      auto offload = prefetch.getHandle().getDefiningOp<mem::OffloadOp>();
      if (!offload || offload.getTier() != mem::Tier::host ||
          offload->getBlock() != prefetch->getBlock() ||
          prefetch.getTileBytes() || prefetch.getRowSets())
        continue;
      std::optional<std::optional<Range>> slot =
          arenaBytes(prefetch.getResult());
      if (!slot || !*slot)
        continue;
      // Up past every op that leaves the slot alone, never above the
      // offload (whose copy out must come first) or the block's start.
      Operation *after = prefetch->getPrevNode();
      while (after && after != offload.getOperation() &&
             !touches(after, **slot))
        after = after->getPrevNode();
      if (after == prefetch->getPrevNode())
        continue;
      if (after)
        prefetch->moveAfter(after);
      else
        prefetch->moveBefore(&prefetch->getBlock()->front());
      ++numHoisted;
    }
  }
};

} // namespace
