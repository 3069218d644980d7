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

namespace mlir::gnn {
#define GEN_PASS_DEF_MEMHOISTPREFETCHES
#include "passes/Passes.h.inc"
} // namespace mlir::gnn

using namespace mlir;

namespace {

/// Whether \p op reads or writes any of the arena bytes \p slot, or may.
bool touches(Operation *op, mlir::gnn::ArenaBytes slot) {
  if (op->getNumRegions() > 0)
    return true;
  // A view (a graph's transpose) has no bytes of its own: its readers read
  // its source's.
  auto overlaps = [&](Value v) {
    for (; v; v = mlir::gnn::getViewSource(v)) {
      FailureOr<std::optional<mlir::gnn::ArenaBytes>> bytes =
          mlir::gnn::assignedArenaBytes(v);
      if (failed(bytes) || (*bytes && (*bytes)->overlaps(slot)))
        return true;
    }
    return false;
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
      FailureOr<std::optional<mlir::gnn::ArenaBytes>> slot =
          mlir::gnn::assignedArenaBytes(prefetch.getResult());
      if (failed(slot) || !*slot)
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
